"""`mmlint clean`: empty the cache (facts and findings)."""

from __future__ import annotations

import click

from mmlint.cli.common import ToolError
from mmlint.reporters.escaping import visible


@click.command("clean")
def command() -> None:
    """Remove the cache's entries, facts and findings ($MMLINT_CACHE_DIR, else ~/.cache/mmlint), and say how much that freed."""
    from mmlint.api import cache_root, clean_cache  # the engine's: imported only when the command runs

    root = cache_root()
    result = clean_cache(root)
    if result.errors:
        more = f" (and {len(result.errors) - 1} more)" if len(result.errors) > 1 else ""
        raise ToolError(f"could not remove {len(result.errors)} cache entries: {result.errors[0]}{more}")
    if not result.entries:
        click.echo(f"Nothing to clean in {visible(str(root))}")
        return
    plural = "y" if result.entries == 1 else "ies"
    click.echo(f"Removed {result.entries} cache entr{plural} ({_size(result.bytes)}) from {visible(str(root))}")


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KiB"
    return f"{count / (1024 * 1024):.1f} MiB"
