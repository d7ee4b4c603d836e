"""Edge cases the fix fuzz campaign (benchmarks/fuzz_fix.py) found: every site
`check` marks fixable (`[*]`) is fixed, byte for byte as planned, in files with
lone CRs, chained twin calls, form feeds in indentation and a cookie line
ended by a lone CR; a file Python compiles is never MM999; MM009 never joins
two line breaks into one.

Each case runs the real engine and fixer (fix_helpers) and checks: the fixed
bytes exactly, every `[*]` site fixed, nothing left to fix, a second fix a
no-op, and the result compiles."""

from __future__ import annotations

from pathlib import Path

import pytest
from fix_helpers import check_file, fix_path

from mmlint.core.source import (
    decode_source,
    indentation_view,
    python_tokens,
    split_lines,
)

SYNC = "process_and_combine_mm_data"
ASYNC = "process_and_combine_mm_data_async"


def _fix_all(tmp_path: Path, source: bytes) -> tuple[list, bytes]:
    """Check, fix, and check again; returns the first check's fixable
    diagnostics and the fixed bytes, after asserting the run was clean."""
    path = tmp_path / "proc.py"
    path.write_bytes(source)
    before = check_file(path)
    assert not [d for d in before.diagnostics if d.code == "MM999"], before.diagnostics
    fixable = [d for d in before.diagnostics if d.fixable]
    run = fix_path(path)
    assert not run.errors, [r.error for r in run.errors]
    assert not run.unfixed or all(
        not d.fixable for d in before.diagnostics if d.span in {s.span for _, s in run.unfixed}
    )
    assert run.sites_fixed == len(fixable)
    fixed = path.read_bytes()
    compile(fixed, "proc.py", "exec", dont_inherit=True)
    assert not [d for d in check_file(path).diagnostics if d.fixable]
    second = fix_path(path)
    assert not second.changed and not second.errors and path.read_bytes() == fixed
    return fixable, fixed


# (name, original, fixed): each was marked `[*]` by check and refused, or MM999, before.
CASES = [
    (
        # Outer and inner call start at one token: `await (await ...)[0]...`, not `(await await ...`.
        "chained twin calls",
        b"class P:\n    async def f(self, a):\n"
        b"        chained = self.process_and_combine_mm_data(a)[0].process_and_combine_mm_data(a)\n"
        b"        other = self.process_and_combine_mm_data(a)\n",
        b"class P:\n    async def f(self, a):\n"
        b"        chained = await (await self.process_and_combine_mm_data_async(a))[0].process_and_combine_mm_data_async(a)\n"
        b"        other = await self.process_and_combine_mm_data_async(a)\n",
    ),
    (
        "chained twin calls, the outer one parenthesised too",
        b"async def f(self, a):\n    return self.process_and_combine_mm_data(a).process_and_combine_mm_data(a)[1]\n",
        b"async def f(self, a):\n    return (await (await self.process_and_combine_mm_data_async(a)).process_and_combine_mm_data_async(a))[1]\n",
    ),
    (
        "lone CR after a comment, LF elsewhere",
        b"class P:\n    async def f(self, a):\n        x = 1  # a\r        y = self.process_and_combine_mm_data(a)\n",
        b"class P:\n    async def f(self, a):\n        x = 1  # a\r        y = await self.process_and_combine_mm_data_async(a)\n",
    ),
    (
        "lone CR among CRLF",
        b"class P:\r\n    async def f(self, a):\r\n        x = 1\r        y = self.process_and_combine_mm_data(a)\r\n",
        b"class P:\r\n    async def f(self, a):\r\n        x = 1\r        y = await self.process_and_combine_mm_data_async(a)\r\n",
    ),
    (
        "lone CR inside the call's brackets",
        b"class P:\n    async def f(self, a):\n        y = self.process_and_combine_mm_data(  # c\r            a,\n        )\n",
        b"class P:\n    async def f(self, a):\n        y = await self.process_and_combine_mm_data_async(  # c\r            a,\n        )\n",
    ),
    (
        "bare CR line endings throughout",
        b"class P:\r    async def f(self, a):\r        y = self.process_and_combine_mm_data(a)\r",
        b"class P:\r    async def f(self, a):\r        y = await self.process_and_combine_mm_data_async(a)\r",
    ),
    (
        # Python resets the indentation count at a form feed; libcst did not (MM999).
        "form feed starting a line in a nested block",
        b"class P:\n    async def f(self, a):\n\x0c        y = self.process_and_combine_mm_data(a)\n",
        b"class P:\n    async def f(self, a):\n\x0c        y = await self.process_and_combine_mm_data_async(a)\n",
    ),
    (
        "form feed inside a line's indentation",
        b"class P:\n    async def f(self, a):\n        x = 1\n  \x0c\t    \x0c        y = self.process_and_combine_mm_data(a)\n",
        b"class P:\n    async def f(self, a):\n        x = 1\n  \x0c\t    \x0c        y = await self.process_and_combine_mm_data_async(a)\n",
    ),
    (
        # A form-feed-only line after a lone CR: the view once made CRLF of CR + LF,
        # and every position after it was a line early.
        "form feed alone on a line after a lone CR",
        b"class P:\r\x0c\n    async def f(self, a):\n        y = self.process_and_combine_mm_data(a)\n",
        b"class P:\r\x0c\n    async def f(self, a):\n        y = await self.process_and_combine_mm_data_async(a)\n",
    ),
    (
        # tokenize.detect_encoding over BytesIO.readline read the whole file as line 1 (MM999).
        "Latin-1 cookie line ended by a lone CR",
        b"# -*- coding: latin-1 -*-\r# caf\xe9\rclass P:\r    async def f(self, a):\r"
        b"        y = self.process_and_combine_mm_data(a)  # \xe9t\xe9\r",
        b"# -*- coding: latin-1 -*-\r# caf\xe9\rclass P:\r    async def f(self, a):\r"
        b"        y = await self.process_and_combine_mm_data_async(a)  # \xe9t\xe9\r",
    ),
    (
        # The directive is removed, its line's blanks stay: emptied, the line would
        # leave `1\r\n` (one CRLF), and the file would lose a line.
        "unused suppression alone on a line between a lone CR and an LF",
        b"async def f(a):\n    x = 1\r    # mmlint: ignore[MM003]\n    await g(a)\n",
        b"async def f(a):\n    x = 1\r    \n    await g(a)\n",
    ),
]


@pytest.mark.parametrize(("original", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_every_fixable_site_is_fixed_byte_for_byte(tmp_path: Path, original: bytes, expected: bytes) -> None:
    fixable, fixed = _fix_all(tmp_path, original)
    assert fixable
    assert fixed == expected


def test_a_lone_cr_after_a_comment_in_a_larger_file_tokenizes(tmp_path: Path) -> None:
    # Found by the campaign: "the original text does not tokenize" (EOF in multi-line
    # statement), when the tokenizer read lines at LF only.
    original = (
        " # note \U0001f600\rRESULT = proc.process_and_combine_mm_data(\t# p\x1clain\r    base_output,\t# prose\n)\t# x\r\n"
        "class Processor4(Base):\t# plain\n"
        "    async def process_mm_data_async(self, base_output): # c\r"
        "        def helper(value=self.process_and_combine_mm_data(base_output)):  # mmlint: ignore[MM001,MM002]\r\n"
        "            return value  # c\r"
    ).encode()
    fixable, fixed = _fix_all(tmp_path, original)
    assert [d.code for d in fixable] == ["MM009"]
    assert fixed == original.replace(b"ignore[MM001,MM002]", b"ignore[MM001]")


def test_an_unused_suppression_that_cannot_be_removed_without_joining_line_breaks_is_not_fixable(
    tmp_path: Path,
) -> None:
    original = b"async def f(a):\n    x = 1\r# mmlint: ignore[MM003]\n    await g(a)\n"
    path = tmp_path / "proc.py"
    path.write_bytes(original)
    (mm009,) = [d for d in check_file(path).diagnostics if d.code == "MM009"]
    assert not mm009.fixable and not mm009.edits
    assert "remove it by hand" in mm009.help
    run = fix_path(path)
    assert not run.errors and not run.changed
    assert path.read_bytes() == original


def test_positions_on_a_line_after_an_indentation_form_feed_are_the_files(tmp_path: Path) -> None:
    # The facts come from a view without `  \f\t    \f`; their columns are shifted back.
    path = tmp_path / "proc.py"
    path.write_bytes(
        b"class P:\n    async def f(self, a):\n  \x0c\t    \x0c        y = self.process_and_combine_mm_data(a)\n"
    )
    (mm001,) = [d for d in check_file(path).diagnostics if d.code == "MM001"]
    line = split_lines(path.read_bytes().decode())[2]
    assert (mm001.span.line, mm001.span.column) == (3, line.index("self") + 1)
    assert (mm001.span.end_line, mm001.span.end_column) == (3, len(line) + 1)


def test_a_form_feed_dedent_means_what_python_says(tmp_path: Path) -> None:
    # `    \fy` is at column 0 for Python: module level, where the call cannot await.
    path = tmp_path / "proc.py"
    path.write_bytes(b"async def f(self, a):\n    x = 1\n    \x0cy = self.process_and_combine_mm_data(a)\n")
    (mm001,) = [d for d in check_file(path).diagnostics if d.code == "MM001"]
    assert not mm001.fixable and "module level" in mm001.help
    assert (mm001.span.line, mm001.span.column) == (3, 10)


def test_indentation_view() -> None:
    text = "a\n\x0c  b\r \x0c\tc\r\nd \x0c e\n\x0c # c\r\x0c\n\x0c"
    view, shift = indentation_view(text)
    # Lines without code keep their length (a form feed becomes a space): an emptied
    # line between a lone CR and an LF would join them into one CRLF.
    assert view == "a\n  b\r\tc\r\nd \x0c e\n  # c\r \n "
    assert shift == {2: 1, 3: 2}
    assert indentation_view("x = 1\n") == ("x = 1\n", {})


def test_cookie_line_ended_by_a_lone_cr_decodes() -> None:
    assert decode_source(b"# coding: latin-1\rx = '\xe9'\r") == "# coding: latin-1\rx = '\xe9'\r"


def test_python_tokens_end_lines_at_a_lone_cr() -> None:
    tokens = python_tokens("x = 1  # a\ry = (2,\r 3)\r\nz = 4\n")
    names = [(tok.string, tok.start) for tok in tokens if tok.type == 1]
    assert names == [("x", (1, 0)), ("y", (2, 0)), ("z", (4, 0))]
