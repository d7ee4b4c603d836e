"""`mmlint server`: the language server over stdio (the `mmlint[server]` extra)."""

from __future__ import annotations

import click

from mmlint.cli.common import EXIT_ERROR
from mmlint.core.gc_tuning import one_command_per_process

EXTRA_MODULES = ("pygls", "lsprotocol")


@click.command("server")
def command() -> None:
    """Run the Language Server Protocol server on standard input and output
    (for editors; needs `pip install 'mmlint[server]'`)."""
    try:
        from mmlint.server.server import serve
    except ModuleNotFoundError as error:
        missing = (error.name or "").split(".")[0]
        if missing not in EXTRA_MODULES:
            raise
        click.echo(
            f"mmlint: error: `mmlint server` needs the server extra ({missing} is not installed): "
            "pip install 'mmlint[server]'",
            err=True,
        )
        raise SystemExit(EXIT_ERROR) from None
    one_command_per_process(False)  # it lives on, through many runs
    raise SystemExit(serve())
