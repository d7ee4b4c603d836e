"""`--format text` without colour is written as it is (mmlint.reporters.text's
plain output): byte for byte what rich prints for the same markup with the
colour off, over reports whose text needs every escape, and over every
fixture tree's real report."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import FIXTURES_DIR
from reporter_support import make_report, sample_diagnostics, sample_report
from rich.console import Console
from rich.text import Text

from mmlint.api import check
from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.reporters import markup, text


class _UncolouredRich:
    """The markup path of text.render with rich's colour off: what plain output must equal."""

    def __init__(self) -> None:
        self._buffer = io.StringIO()
        self._console = Console(
            file=self._buffer, no_color=True, highlight=False, soft_wrap=True, width=200, emoji=False
        )

    def style(self, value: str, style: str) -> str:
        return markup.styled(value, style)

    def escape(self, value: str) -> str:
        return markup.text(value)

    def print(self, value: str) -> None:
        self._console.print(value)

    def text(self) -> str:
        return self._buffer.getvalue()


def _rendered_both_ways(report, monkeypatch: pytest.MonkeyPatch, **options) -> tuple[str, str]:
    plain = text.render(report, **options)
    with monkeypatch.context() as patched:
        patched.setattr(text, "_PlainOut", _UncolouredRich)
        through_rich = text.render(report, **options)
    return plain, through_rich


def _awkward(root: Path) -> list[Diagnostic]:
    (root / "w.py").write_text("x = '[bold]:smile: \\\\[/]'\n\tprint(x)  # 😀 宽\n", encoding="utf-8")
    return [
        Diagnostic(
            "w.py", Span(1, 5, 1, 20), "MM003", "fake-async", "`[red]x[/]` :smile: \\ [*] ends", help="a [b] \\c"
        ),
        Diagnostic(
            "w.py", Span(2, 2, 2, 9), "MM005", "blocking-call-in-async", "m", chain=("`[a]` at w.py:1", "`b\\c`")
        ),
        # Backslashes where rich's own escape goes wrong: at the end, before a "[" that opens no tag.
        Diagnostic("w.py", Span(1, 1, 1, 2), "MM003", "fake-async", "ends in \\", help="in c:\\dir\\\\"),
        Diagnostic(
            "w.py",
            Span(2, 1, 2, 2),
            "MM005",
            "blocking-call-in-async",
            "a \\[ and \\\\[1] x",
            chain=("`q\\`", "`r\\\\`"),
        ),
    ]


@pytest.mark.parametrize("options", [{}, {"quiet": True}, {"statistics": True}, {"width": 40}])
def test_plain_output_is_what_rich_prints_without_colour(tmp_path: Path, monkeypatch, options) -> None:
    for name in ("processors/clip.py", "processors/siglip.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("\n".join(f"line {n} [x] = y" for n in range(1, 60)) + "\n", encoding="utf-8")
    reports = [
        sample_report(tmp_path),
        make_report([*sample_diagnostics(), *_awkward(tmp_path)], {"w.py": tmp_path / "w.py"}),
    ]
    for report in reports:
        plain, through_rich = _rendered_both_ways(report, monkeypatch, **options)
        assert plain == through_rich


@pytest.mark.parametrize("tree", sorted(p.name for p in FIXTURES_DIR.iterdir() if (p / "pyproject.toml").is_file()))
def test_every_fixture_trees_report_reads_the_same(tree: str, monkeypatch) -> None:
    root = FIXTURES_DIR / tree
    report = check([root], cwd=root)
    plain, through_rich = _rendered_both_ways(report, monkeypatch, width=80)
    assert plain == through_rich and plain


def test_a_trailing_backslash_is_shown_once(tmp_path: Path) -> None:
    # rich's escape() doubles a backslash that ends the text (for markup that
    # would follow it), and its print then shows both: plain output shows one.
    report = make_report([Diagnostic("w.py", Span(1, 1, 1, 2), "MM003", "fake-async", "ends in \\")], {})
    assert text.render(report, quiet=True).splitlines()[0] == "w.py:1:1: MM003 ends in \\"


def test_coloured_output_reads_as_the_plain_output(tmp_path: Path) -> None:
    """The colours are all that differ: the same characters, backslashes and
    brackets included, wherever they sit."""
    report = make_report([*sample_diagnostics(), *_awkward(tmp_path)], {"w.py": tmp_path / "w.py"})
    for options in ({}, {"width": 40}, {"statistics": True}):
        coloured = text.render(report, color=True, **options)
        assert "\x1b[" in coloured or "statistics" in options
        # By lines: rich 13.0's from_ansi drops the final newline.
        assert Text.from_ansi(coloured).plain.splitlines() == text.render(report, **options).splitlines()
