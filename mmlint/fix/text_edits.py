"""Applying a diagnostic's plain text edits (1-based lines, code-point columns,
end exclusive) to a file's bytes, keeping its encoding, BOM and line endings."""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from mmlint.core.diagnostics import Edit
from mmlint.core.source import decode_keeping_format, line_starts


class EditConflict(ValueError):
    """Two edits overlap, or an edit points outside the text."""


def offset_of(starts: list[int], text: str, line: int, column: int) -> int:
    if not 1 <= line <= len(starts):
        raise EditConflict(f"line {line} is outside the file")
    offset = starts[line - 1] + column - 1
    if offset > len(text):
        raise EditConflict(f"column {column} of line {line} is outside the file")
    return offset


def locate_edits(text: str, edits: Sequence[Edit]) -> list[tuple[int, int, str]]:
    """``edits`` as (start offset, end offset, new text), by position; edits at
    one position keep their given order (`await ` before `(await ` where an
    outer and an inner call start together)."""
    starts = line_starts(text)
    located = [
        (
            offset_of(starts, text, e.span.line, e.span.column),
            offset_of(starts, text, e.span.end_line, e.span.end_column),
            e.text,
        )
        for e in edits
    ]
    return sorted(located, key=lambda item: item[:2])


def apply_text_edits(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping ``edits`` to ``text``; raise ``EditConflict`` otherwise."""
    located = locate_edits(text, edits)
    pieces: list[str] = []
    position = 0
    for start, end, replacement in located:
        if start < position or end < start:
            raise EditConflict(f"overlapping edits at offset {start}")
        pieces.append(text[position:start])
        pieces.append(replacement)
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def apply_edits_to_bytes(source: bytes, edits: Sequence[Edit]) -> bytes:
    """Decode ``source`` as Python would, apply ``edits``, encode it back the same way."""
    text, encode = decode_keeping_format(source)
    return encode(apply_text_edits(text, edits))


class PositionMap:
    """Maps positions of ``text`` to where they land once ``edits`` are applied."""

    def __init__(self, text: str, edits: Sequence[Edit]) -> None:
        self._starts = line_starts(text)
        self._text = text
        self._ranges = [
            (
                offset_of(self._starts, text, e.span.line, e.span.column),
                offset_of(self._starts, text, e.span.end_line, e.span.end_column),
                len(e.text),
            )
            for e in edits
        ]
        self.new_text = apply_text_edits(text, edits)
        self._new_starts = line_starts(self.new_text)

    def shift(self, line: int, column: int) -> tuple[int, int] | None:
        """The new (line, column) of a position; None when an edit swallowed it."""
        offset = offset_of(self._starts, self._text, line, column)
        delta = 0
        for start, end, inserted in self._ranges:
            if end <= offset:  # wholly before the position (or an insertion at it)
                delta += inserted - (end - start)
            elif start < offset:
                return None
        new_offset = offset + delta
        new_line = bisect.bisect_right(self._new_starts, new_offset) - 1
        return new_line + 1, new_offset - self._new_starts[new_line] + 1
