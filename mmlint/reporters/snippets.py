"""Source lines for reporters that show code (text, baseline), read once per file."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from mmlint.source import source_lines


@lru_cache(maxsize=256)
def _lines(path: Path, mtime_ns: int) -> tuple[str, ...]:
    try:
        return tuple(source_lines(path.read_bytes()))
    except OSError:
        return ()


def line_of(path: Path | None, line: int) -> str | None:
    """The decoded text of 1-based ``line``, without its line ending; None if unavailable."""
    if path is None:
        return None
    try:
        lines = _lines(path, path.stat().st_mtime_ns)
    except OSError:
        return None
    return lines[line - 1] if 0 < line <= len(lines) else None
