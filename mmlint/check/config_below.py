"""A configuration below the working directory, for a run that no
configuration governs: from a repository's root, sglang's
``python/pyproject.toml`` does not govern the walk (its ``paths`` are not
used), and the whole checkout is scanned with the defaults. The CLI says so.

The search is bounded: breadth first, ``MAX_DEPTH`` levels below the
directory and at most ``MAX_DIRECTORIES`` directories listed, skipping hidden
entries, links, the default excludes, virtual environments and vendored
trees. A file is recognised by name and text (a ``pyproject.toml`` whose text
holds ``[tool.mmlint``), never parsed: a broken one is still named."""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path

from mmlint.check.discovery import DEFAULT_EXCLUDES, VENV_NAMES
from mmlint.config.load import CONFIG_FILE_NAMES

__all__ = ["MAX_DEPTH", "MAX_DIRECTORIES", "configuration_below"]

MAX_DEPTH = 3
MAX_DIRECTORIES = 400
VENDORED = frozenset({"thirdparty", "third_party", "vendor", "_vendor", "__pycache__"})


def configuration_below(directory: Path) -> Path | None:
    """The shallowest configuration file strictly below ``directory`` (first
    by name at one depth), or None when none lies within the bounds."""
    queue: deque[tuple[str, int]] = deque([(str(directory), 0)])
    listed = 0
    while queue and listed < MAX_DIRECTORIES:
        current, depth = queue.popleft()
        listed += 1
        try:
            with os.scandir(current) as scan:
                entries = sorted((entry for entry in scan), key=lambda entry: entry.name)
        except OSError:
            continue
        if depth > 0:
            found = _held(current, {entry.name for entry in entries})
            if found is not None:
                return Path(found)
        if depth == MAX_DEPTH:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith(".") or name in DEFAULT_EXCLUDES or name in VENDORED or name in VENV_NAMES:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    queue.append((entry.path, depth + 1))
            except OSError:
                continue
    return None


def _held(directory: str, names: set[str]) -> str | None:
    for name in CONFIG_FILE_NAMES:
        if name not in names:
            continue
        path = os.path.join(directory, name)
        if name != "pyproject.toml":
            return path
        try:
            with open(path, "rb") as file:
                if b"[tool.mmlint" in file.read(1 << 20):
                    return path
        except OSError:
            continue
    return None
