"""`mmlint server`: the language server over stdio (the `mmlint[server]` extra)."""

from __future__ import annotations

import importlib.util

import click

from mmlint.cli.common import EXIT_ERROR

EXTRA_MODULES = ("pygls", "lsprotocol")


@click.command("server")
def command() -> None:
    """Run the Language Server Protocol server on standard input and output
    (for editors; needs `pip install 'mmlint[server]'`)."""
    missing = [name for name in EXTRA_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        click.echo(
            f"mmlint: error: `mmlint server` needs the server extra ({', '.join(missing)} not installed): "
            "pip install 'mmlint[server]'",
            err=True,
        )
        raise SystemExit(EXIT_ERROR)
    from mmlint.server.server import serve

    raise SystemExit(serve())
