"""The prefilter lets through every file that can hold a finding and no other."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mmlint.api import check
from mmlint.check.prefilter import _COROUTINE_DEF, Prefilter, _defines_coroutine
from mmlint.config.settings import DEFAULT_TWINS
from mmlint.facts.model import TwinPair

PREFILTER = Prefilter(DEFAULT_TWINS + (TwinPair("encode_audio", "encode_audio_async"),))


@pytest.mark.parametrize(
    "text",
    [
        b"x = self.process_and_combine_mm_data(a)",
        b"x = await self.process_and_combine_mm_data_async(a)",
        b"encode_audio(wave)",
        b"async def f():\n    pass\n",
        b"async\tdef f():\n    pass\n",
        b"class A:\n    async  def f(self): ...\n",
        b"async \\\ndef f():\n    pass\n",
        b"async \\\rdef f():\r    pass\r",  # a lone CR ends a line for Python
        # UTF-7 `async def f(self): self.process_and_combine_mm_data(a)`, its cookie
        # on line 2 after a blank line ended by a lone CR.
        b"\r# coding: utf-7\r+AGE-sync def f(self): self.process+AF8-and+AF8-combine+AF8-mm+AF8-data(a)\r",
        b"x = 1  # mmlint: ignore[MM001]\n",
    ],
)
def test_files_that_can_hold_a_finding_pass(text):
    assert PREFILTER.could_hold_finding(text)


@pytest.mark.parametrize(
    "text",
    [
        b"import asyncio\nasyncio.run(main())\n",
        b"def asyncdef(): pass\n",
        b"x = 'nothing to see'\n",
        b"",
    ],
)
def test_files_that_cannot_are_skipped(text):
    assert not PREFILTER.could_hold_finding(text)


def test_a_skipped_file_is_never_parsed(tmp_path):
    (tmp_path / "tools.py").write_text("import asyncio\ndef broken(:\n")
    report = check(cwd=tmp_path)
    assert report.files_scanned == 1 and report.diagnostics == ()
    assert report.outcomes["tools.py"].reason == "prefilter"


# Pieces `async def` can be made of, and near misses: other whitespace, line
# continuations of each kind, word characters that glue `async` to a name.
_PIECES = [
    b"async",
    b"def",
    b" ",
    b"\t",
    b"\f",
    b"\\\n",
    b"\\\r\n",
    b"\\\r",
    b"\n",
    b"x",
    b"_",
    b"1",
    b"\xc3\xa9",
    b"(",
]


@given(st.lists(st.sampled_from(_PIECES), max_size=10).map(b"".join))
def test_the_coroutine_search_agrees_with_the_reference_pattern(data: bytes) -> None:
    """_defines_coroutine tries the pattern only where `async` starts; it must
    find `async def` exactly where the whole-file pattern would."""
    assert _defines_coroutine(data) == (_COROUTINE_DEF.search(data) is not None)


def test_a_twin_name_inside_another_is_searched_for_once() -> None:
    # process_and_combine_mm_data_async contains process_and_combine_mm_data.
    assert Prefilter(DEFAULT_TWINS).words == (b"mmlint:", b"process_and_combine_mm_data")
