"""`mmlint server`: the language server over stdio (the `mmlint[server]` extra)."""

from __future__ import annotations

import click

from mmlint.cli.common import EXIT_ERROR

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
    raise SystemExit(serve())
