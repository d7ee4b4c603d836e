"""How paths are shown: the one display-path rule every report and message uses."""

from __future__ import annotations

import os
from pathlib import Path


def display_path(path: Path | str, cwd: Path | str) -> str:
    """Relative to ``cwd`` with `/` separators when under it, else absolute.
    Bytes of a file name that are not valid UTF-8 are shown as `\\xNN` escapes,
    so every report stays valid text."""
    path_text, cwd_text = os.fspath(path), os.fspath(cwd)
    base = cwd_text if cwd_text.endswith(os.sep) else cwd_text + os.sep
    if path_text == cwd_text:
        shown = "."
    elif path_text.startswith(base):
        shown = Path(path_text[len(base) :]).as_posix()
    else:
        shown = Path(path_text).as_posix()
    return shown.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
