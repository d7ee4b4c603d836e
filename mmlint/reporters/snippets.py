"""Source lines for reporters that show code (text, baseline), read once per file."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from mmlint.core.source import source_lines


@lru_cache(maxsize=256)
def _lines(path: Path, mtime_ns: int) -> tuple[str, ...]:
    try:
        return tuple(source_lines(path.read_bytes()))
    except OSError:
        return ()


# A file larger than this is shown without snippets: holding its lines would
# cost more memory than the whole check of a file within the size budget.
SNIPPET_MAX_BYTES = 8 * 1024 * 1024


def line_of(path: Path | None, line: int) -> str | None:
    """The decoded text of 1-based ``line``, without its line ending; None if unavailable."""
    if path is None:
        return None
    try:
        status = path.stat()
        if status.st_size > SNIPPET_MAX_BYTES:
            return None
        lines = _lines(path, status.st_mtime_ns)
    except OSError:
        return None
    return lines[line - 1] if 0 < line <= len(lines) else None
