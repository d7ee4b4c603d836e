"""Text made markup by mmlint.reporters.markup prints as exactly that text,
wherever it sits: alone, inside a style, before plain text, twice in a row."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from mmlint.reporters.markup import styled, text

# What rich's markup reacts to, and a little else.
awkward = st.text(st.sampled_from(["\\", "[", "]", "b", "/", "#", "@", "=", "1", " ", "x"]), max_size=12)


def _printed(value: str) -> str:
    buffer = io.StringIO()
    Console(file=buffer, force_terminal=False, highlight=False, soft_wrap=True, emoji=False).print(value)
    return buffer.getvalue()[:-1]


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(awkward)
def test_printed_as_written_wherever_it_sits(plain: str) -> None:
    assert _printed(text(plain)) == plain
    assert _printed(styled(text(plain), "bold")) == plain
    assert _printed(text(plain) + " then") == plain + " then"
    assert _printed(styled(text(plain), "red") + styled(text(plain), "blue")) == plain + plain
    assert _printed(styled(text(plain), "red") + text(plain)) == plain + plain


def test_the_cases_rich_escape_gets_wrong() -> None:
    for plain in ("ends in \\", "two \\\\", "\\[ no tag", "\\\\[1]"):
        assert _printed(text(plain)) == plain
        assert _printed(styled(text(plain), "bold")) == plain
