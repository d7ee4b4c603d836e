"""One rule for printing text that comes from the user's files (paths, source
lines, messages quoting source) in formats a human or a CI runner reads as
lines: control characters are made visible, never interpreted.

A newline in a file name must not start a new report line, an escape sequence
must not recolour or rewrite the terminal (and must not vanish, or the path
shown is not the real one), and a path must not begin a GitHub workflow
command (``::error ...``) when the text output is shown in an Actions log."""

from __future__ import annotations

import re

# C0 and DEL, C1 (U+0085 NEL among them), the Unicode line and paragraph
# separators, and the bidirectional overrides and isolates that can reorder
# what a reader sees ("Trojan Source"), and lone surrogates (a non-UTF-8 file
# name decoded with surrogateescape), which no output stream could encode.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str], keep: str = "") -> str:
    char = match.group()
    if char in keep:
        return char
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str, *, keep: str = "") -> str:
    """``text`` with every control character written as its escape (``\\n``,
    ``\\x1b``, ``\\u2028``); printable text, backslashes included, unchanged.
    ``keep``: control characters a structured format carries safely as they are."""
    if keep:
        return _UNSAFE.sub(lambda match: _escape(match, keep), text)
    return _UNSAFE.sub(_escape, text)


def visible_line(line: str) -> str:
    """One line of a file's text as a diff prints it: :func:`visible` with
    tabs kept, and its line break kept when it is ``\\n`` or ``\\r\\n`` (a
    CRLF file's diff still applies). A lone ``\\r`` break would return the
    cursor over the line just printed: it is shown as ``\\r`` before a ``\\n``."""
    if line.endswith("\r\n"):
        return visible(line[:-2], keep="\t") + "\r\n"
    if line.endswith("\n"):
        return visible(line[:-1], keep="\t") + "\n"
    if line.endswith("\r"):
        return visible(line[:-1], keep="\t") + "\\r\n"
    return visible(line, keep="\t")


def visible_path(path: str) -> str:
    """A path as printed at the start of a line: :func:`visible`, and a relative
    path that would read as a workflow command (``::...``, also after leading
    blanks, which the Actions runner strips) gets a ``./`` in front: the same file."""
    shown = visible(path)
    if shown.lstrip().startswith("::"):
        return "./" + shown
    return shown


# What json.dumps leaves raw (it escapes only C0, quotes and backslashes): DEL,
# C1, the line separators, the bidirectional controls and lone surrogates.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def json_text(data: object) -> str:
    """``data`` as indented JSON (non-ASCII text kept readable) whose every
    control character is a ``\\uXXXX`` escape: the same value to a JSON reader,
    and no line of it can be split, reordered or recoloured on a terminal."""
    import json

    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _UNSAFE_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text) + "\n"
