"""The editor's side of text synchronisation, written from the LSP
specification and sharing no code with mmlint: a document is a string; its
lines end at \\n, \\r\\n or \\r and nowhere else; a position's character counts
the code units of the negotiated encoding (UTF-16 unless utf-8 or utf-32 was
chosen); a character past its line's end means the end of the line, a line
past the last the end of the text, a position inside a character its start."""

from __future__ import annotations

from typing import Any

ENCODINGS = ("utf-16", "utf-8", "utf-32")


def line_spans(text: str) -> list[tuple[int, int]]:
    """(start, end of content) of each line, scanning character by character."""
    spans, start, index = [], 0, 0
    while index < len(text):
        char = text[index]
        if char == "\r" or char == "\n":
            spans.append((start, index))
            index += 2 if text[index : index + 2] == "\r\n" else 1
            start = index
        else:
            index += 1
    spans.append((start, len(text)))
    return spans


def code_units(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8", "surrogatepass"))
    if encoding == "utf-16":
        return len(char.encode("utf-16-le", "surrogatepass")) // 2
    return 1


def offset_at(text: str, line: int, character: int, encoding: str = "utf-16") -> int:
    spans = line_spans(text)
    if line >= len(spans):
        return len(text)
    start, end = spans[line]
    offset, counted = start, 0
    while offset < end and counted + code_units(text[offset], encoding) <= character:
        counted += code_units(text[offset], encoding)
        offset += 1
    return offset


def position_at(text: str, offset: int, encoding: str = "utf-16") -> dict[str, int]:
    """The LSP position of a code-point offset (which is not inside a line break)."""
    spans = line_spans(text)
    line = max(number for number, (start, _) in enumerate(spans) if start <= offset)
    start = spans[line][0]
    return {"line": line, "character": sum(code_units(c, encoding) for c in text[start:offset])}


def range_of(text: str, start: int, end: int, encoding: str = "utf-16") -> dict[str, Any]:
    return {"start": position_at(text, start, encoding), "end": position_at(text, end, encoding)}


def apply_change(text: str, change: dict[str, Any], encoding: str = "utf-16") -> str:
    """One ``contentChanges`` item: a range replaced, or (no range) the whole text."""
    if "range" not in change:
        return str(change["text"])
    start, end = (
        offset_at(text, p["line"], p["character"], encoding) for p in (change["range"]["start"], change["range"]["end"])
    )
    start, end = min(start, end), max(start, end)
    return text[:start] + change["text"] + text[end:]


def apply_edits(text: str, edits: list[dict[str, Any]], encoding: str = "utf-16") -> str:
    """LSP text edits (all against ``text``, none overlapping) applied as a client does."""
    located = []
    for order, edit in enumerate(edits):  # inserts at one position appear in the order given
        start, end = (edit["range"][key] for key in ("start", "end"))
        located.append(
            (
                offset_at(text, start["line"], start["character"], encoding),
                offset_at(text, end["line"], end["character"], encoding),
                order,
                edit["newText"],
            )
        )
    for start, end, _, new in sorted(located, reverse=True):
        text = text[:start] + new + text[end:]
    return text
