"""The server's copy of each open document, kept equal to the editor's.

A change's positions are read the protocol's way: lines break only at \\n,
\\r\\n and \\r (not where ``str.splitlines`` also breaks: \\f, \\v,
\\x1c-\\x1e, \\x85, U+2028, U+2029; an incremental change after one of those
landed a line off when pygls kept the documents), and a character counts
the code units of the negotiated position encoding."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mmlint.core.source import line_starts
from mmlint.server.protocol import UTF32, units


@dataclass
class TextDocument:
    uri: str
    language_id: str
    version: int | None
    text: str


def offset_at(text: str, starts: Sequence[int], position: Mapping[str, int], encoding: str) -> int:
    """The code-point offset in ``text`` (whose ``line_starts`` are ``starts``) of a
    position in the client's code units. As the protocol says, a character past
    the end of its line means the line's end; a line past the last means the end
    of the text; a position inside a character (half a UTF-16 surrogate pair, a
    byte inside a UTF-8 sequence) means that character's start, as editors read it."""
    line, character = position["line"], position["character"]
    if line >= len(starts):
        return len(text)
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    content = text[start:end].rstrip("\r\n")  # only the line break: a line holds no other \r or \n
    if encoding == UTF32 or content.isascii():
        return start + min(character, len(content))
    counted = 0
    for index, char in enumerate(content):
        counted += units(char, encoding)
        if counted > character:
            return start + index
    return start + len(content)


def apply_change(text: str, change_range: Mapping[str, Any], new_text: str, encoding: str) -> str:
    """``text`` with ``change_range`` (in the client's units) replaced by ``new_text``."""
    starts = line_starts(text)
    start = offset_at(text, starts, change_range["start"], encoding)
    end = offset_at(text, starts, change_range["end"], encoding)
    start, end = min(start, end), max(start, end)  # a reversed range is the same range
    return text[:start] + new_text + text[end:]


def apply_changes(text: str, changes: Sequence[Mapping[str, Any]], encoding: str) -> str:
    """A didChange's ``contentChanges``, in order: a range replaced, or (no range) the whole text."""
    for change in changes:
        if change.get("range") is not None:
            text = apply_change(text, change["range"], change["text"], encoding)
        else:
            text = change["text"]
    return text
