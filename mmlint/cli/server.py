"""`mmlint server`: the language server over stdio."""

from __future__ import annotations

import click


@click.command("server")
def command() -> None:
    """Run the Language Server Protocol server on standard input and output
    (for editors)."""
    from mmlint.server.server import serve  # only this command loads the server

    raise SystemExit(serve())
