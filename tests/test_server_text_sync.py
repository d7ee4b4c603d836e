"""The server's copy of a document against the editor's (tests/lsp_model.py,
the specification's reading): after any sequence of incremental changes, in
every position encoding, with the characters str.splitlines takes for line
breaks and the protocol does not (\\f, \\v, \\x1c-\\x1e, \\x85, U+2028, U+2029);
and the positions the server sends, counted the same way."""

from __future__ import annotations

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lsp_model
from mmlint.core.diagnostics import Span
from mmlint.server.protocol import Lines, text_edits
from mmlint.server.text_sync import apply_changes

NOT_LINE_BREAKS = "\x0c\x0b\x1c\x1d\x1e\x85\u2028\u2029"


def server_text(text: str, changes: list[dict], encoding: str) -> str:
    """``text`` as the server holds it after ``changes``, each applied as didChange applies its contentChanges."""
    for change in changes:
        text = apply_changes(text, [change], encoding)
    return text


def change(start: tuple[int, int], end: tuple[int, int], text: str) -> dict:
    return {
        "range": {"start": {"line": start[0], "character": start[1]}, "end": {"line": end[0], "character": end[1]}},
        "text": text,
    }


@pytest.mark.parametrize("encoding", lsp_model.ENCODINGS)
@pytest.mark.parametrize("char", NOT_LINE_BREAKS)
def test_a_change_after_a_character_splitlines_breaks_at_lands_on_the_editors_line(char: str, encoding: str) -> None:
    text = f"# a{char}b 😀\r\nx = 1\ry = 2\n"
    steps = [  # each a span of the editor's text then, as the editor sends it: in its lines and units
        lambda t: (t.index("x = 1"), t.index("x = 1") + 1, "X"),  # on the line after
        lambda t: (t.index("b 😀"), t.index("b 😀") + 1, "B"),  # after the character, on its line
        lambda t: (t.index(char), t.index("y = 2"), "|"),  # across it and two line breaks
    ]
    changes, expected = [], text
    for step in steps:
        start, end, new = step(expected)
        changes.append({"range": lsp_model.range_of(expected, start, end, encoding), "text": new})
        expected = expected[:start] + new + expected[end:]
    assert expected == "# a|y = 2\n"
    assert server_text(text, changes, encoding) == expected


@pytest.mark.parametrize("encoding", lsp_model.ENCODINGS)
def test_positions_past_a_line_or_the_text_and_inside_a_character_read_as_the_protocol_says(encoding: str) -> None:
    text = "ab😀c\nlast"
    inside = {"utf-16": 3, "utf-8": 4, "utf-32": 3}[encoding]  # inside 😀 (utf-32 has no inside: after it)
    cases = [
        (change((0, 99), (0, 99), "!"), "ab😀c!\nlast"),  # past the line's end: its end, not the next line
        (change((7, 0), (9, 9), "!"), "ab😀c\nlast!"),  # past the last line: the end of the text
        (change((1, 99), (1, 99), "!"), "ab😀c\nlast!"),  # the last line, which has no line break
        (change((0, 4), (0, 2), ""), {"utf-16": "abc\nlast", "utf-8": "ab😀c\nlast", "utf-32": "ab\nlast"}[encoding]),
        (change((0, inside), (0, inside), "!"), "ab!😀c\nlast" if encoding != "utf-32" else "ab😀!c\nlast"),
    ]
    for item, expected in cases:
        assert lsp_model.apply_change(text, item, encoding) == expected, item
        assert server_text(text, [item], encoding) == expected, item


def test_a_change_without_a_range_replaces_the_whole_text() -> None:
    assert server_text("a\u2028b\n", [{"text": "c\x85d"}, change((0, 2), (0, 3), "D")], "utf-16") == "c\x85D"


# Text with every kind of line break, the characters that are none, and
# characters of 1 to 4 UTF-8 bytes and 1 or 2 UTF-16 units.
_TEXT = st.lists(st.sampled_from(["a", " ", "é", "中", "😀", "\n", "\r", "\r\n", *NOT_LINE_BREAKS]), max_size=30).map(
    "".join
)


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, list[dict], str]:
    encoding = draw(st.sampled_from(lsp_model.ENCODINGS))
    text = draw(_TEXT)
    changes, current = [], text
    for _ in range(draw(st.integers(1, 6))):
        lines = len(lsp_model.line_spans(current))
        # Mostly positions on a line, sometimes past its end or past the last line.
        start = (draw(st.integers(0, lines)), draw(st.integers(0, 12)))
        end = draw(st.one_of(st.just(start), st.tuples(st.integers(start[0], lines + 1), st.integers(0, 12))))
        item = change(start, end, draw(_TEXT))
        changes.append(item)
        current = lsp_model.apply_change(current, item, encoding)
    return text, changes, encoding


@pytest.mark.slow  # generating the cases takes seconds: outside the fast loop, as the other campaigns
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits())
def test_any_sequence_of_changes_leaves_the_editors_text(case: tuple[str, list[dict], str]) -> None:
    text, changes, encoding = case
    expected = text
    for item in changes:
        expected = lsp_model.apply_change(expected, item, encoding)
    assert server_text(text, changes, encoding) == expected


# -- what the server sends ----------------------------------------------------------------------


@pytest.mark.parametrize("encoding", lsp_model.ENCODINGS)
@pytest.mark.parametrize("char", NOT_LINE_BREAKS)
def test_positions_sent_count_lines_as_the_editor_does(char: str, encoding: str) -> None:
    text = f"# 😀{char}é\r\nx = f()\ry = 2\n"
    call = text.index("f()")
    sent = Lines(text, encoding).range(Span(2, 5, 2, 8))  # mmlint's 1-based code-point span of f()
    assert sent == lsp_model.range_of(text, call, call + 3, encoding)
    new = text.replace("f()", "await f()").replace("y = 2", f"y = 2{char}")
    assert lsp_model.apply_edits(text, text_edits(text, new, encoding), encoding) == new
