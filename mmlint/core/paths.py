"""How paths are shown: the one display-path rule every report and message uses."""

from __future__ import annotations

import os
import re
from pathlib import Path

# What pathlib would rewrite (`a//b`, `a/./b`, a trailing `/`, nothing at
# all): only such a path pays for building a Path.
_NOT_AS_PATHLIB_WRITES = re.compile(r"\A\Z|//|/\Z|(?:\A|/)\.(?:/|\Z)")


def display_path(path: Path | str, cwd: Path | str) -> str:
    """Relative to ``cwd`` with `/` separators when under it, else absolute.
    Bytes of a file name that are not valid UTF-8 are shown as `\\xNN` escapes,
    so every report stays valid text."""
    path_text, cwd_text = os.fspath(path), os.fspath(cwd)
    base = cwd_text if cwd_text.endswith(os.sep) else cwd_text + os.sep
    if path_text == cwd_text:
        return "."
    shown = path_text[len(base) :] if path_text.startswith(base) else path_text
    if os.sep != "/" or _NOT_AS_PATHLIB_WRITES.search(shown):
        shown = Path(shown).as_posix()
    if shown.isascii():  # the common case: no bytes to escape
        return shown
    return shown.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
