"""The github reporter: exact golden output, GitHub's escaping, and the
format reached through the check command."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from reporter_support import REAL_PROCESSOR, make_report, sample_report

from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.reporters import github

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "reporters" / "github.txt"
# Set to regenerate the golden file on purpose, then review the diff.
UPDATE = os.environ.get("MMLINT_UPDATE_GOLDEN") == "1"


def test_matches_golden_output(tmp_path: Path) -> None:
    rendered = github.render(sample_report(tmp_path))
    if UPDATE:
        GOLDEN.write_text(rendered, encoding="utf-8", newline="\n")
    assert rendered == GOLDEN.read_text(encoding="utf-8")


def test_one_command_per_diagnostic_with_level(tmp_path: Path) -> None:
    lines = github.render(sample_report(tmp_path)).splitlines()
    assert len(lines) == 3
    assert [line.split(" ", 1)[0] for line in lines] == ["::error", "::error", "::warning"]


def test_the_help_is_a_line_below_the_message() -> None:
    diagnostic = Diagnostic("a.py", Span(1, 1, 1, 2), "MM001", "sync-twin-call", "short", help="do this: 5%")
    assert github.format_command(diagnostic).endswith("::short%0Ahelp: do this: 5%25")
    assert github.format_command(Diagnostic("a.py", Span(1, 1, 1, 2), "MM001", "sync-twin-call", "short")).endswith(
        "::short"
    )


def test_message_escapes_percent_and_line_breaks_only() -> None:
    assert github.escape_message("100% a:b,c\r\nd") == "100%25 a:b,c%0D%0Ad"


def test_property_escapes_separators_too() -> None:
    assert github.escape_property("a,b:c%\n") == "a%2Cb%3Ac%25%0A"


def test_percent_is_escaped_before_the_other_escapes() -> None:
    # A literal "%0A" in a message must survive as text, not turn into a newline.
    assert github.escape_message("%0A") == "%250A"


def test_positions_and_title_are_properties(tmp_path: Path) -> None:
    diagnostic = Diagnostic("pkg/mod.py", Span(7, 3, 9, 12), "MM002", "unawaitable-call-site", "msg")
    rendered = github.render(make_report([diagnostic], {"pkg/mod.py": tmp_path / "pkg/mod.py"}))
    assert rendered == (
        "::error file=pkg/mod.py,line=7,col=3,endLine=9,endColumn=12,title=MM002 unawaitable-call-site::msg\n"
    )


def test_no_diagnostics_no_output(tmp_path: Path) -> None:
    assert github.render(make_report([], {"a.py": tmp_path / "a.py"})) == ""


def test_check_command_emits_workflow_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end: the CLI's --format github on a real file."""
    click_testing = pytest.importorskip("click.testing")
    from mmlint.cli import cli

    (tmp_path / "proc.py").write_text(REAL_PROCESSOR, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = click_testing.CliRunner().invoke(cli, ["check", "--format", "github", "proc.py"])
    assert result.exit_code == 1, result.output
    assert result.output.startswith(
        "::error file=proc.py,line=4,col=16,endLine=4,endColumn=54,title=MM001 sync-twin-call::"
    ), result.output
