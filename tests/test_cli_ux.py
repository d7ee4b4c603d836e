"""The command line as a ruff user expects it: colour and width decided by rich
from the environment, carets under the right cells, and the small options and
messages (aliases, usage errors in mmlint's own words)."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest
from cli_support import CliRunner
from rich.cells import cell_len

from mmlint.audit import Audit, AuditRow, AuditTotals, render_text
from mmlint.cli import cli
from mmlint.cli.check import STATISTICS_FORMATS
from mmlint.cli.terminal import terminal_width, use_color
from mmlint.reporters import FORMATS

WIDE = 'class P:\n    async def f(self, a):\n        return ("图像处理", self.process_and_combine_mm_data(a))\n'


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "wide.py").write_text(WIDE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(cli, list(args), prog_name="mmlint")


# --- colour and width ----------------------------------------------------------------------


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM", "COLUMNS", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    return monkeypatch


def test_colour_follows_the_environment(clean_env):
    clean_env.setattr(sys, "stdout", io.StringIO())
    assert not use_color(False, None)  # piped
    clean_env.setenv("FORCE_COLOR", "1")
    assert use_color(False, None)  # FORCE_COLOR on a pipe
    assert not use_color(True, None)  # --no-color wins
    clean_env.setenv("NO_COLOR", "1")
    assert not use_color(False, None)
    clean_env.delenv("NO_COLOR")
    clean_env.setattr(sys, "stdout", _Tty())
    assert use_color(False, None)
    clean_env.setenv("TERM", "dumb")
    assert not use_color(False, None)


def test_width_is_the_terminals_or_unbounded(clean_env):
    clean_env.setattr(sys, "stdout", io.StringIO())
    assert terminal_width(None) is None  # piped: never wrap
    clean_env.setenv("COLUMNS", "100")
    assert terminal_width(None) == 100
    assert terminal_width(Path("report.txt")) is None  # written to a file: never wrapped


def _audit(path: str) -> Audit:
    row = AuditRow(path, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0)
    totals = AuditTotals(1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0)
    return Audit((row,), totals)


LONG = "python/sglang/srt/multimodal/processors/ernie45_vl_processor_with_a_long_name.py"


@pytest.mark.parametrize("width", [None, 60, 100, 200])
def test_audit_never_breaks_a_path(width):
    text = render_text(_audit(LONG), color=False, width=width)
    assert any(LONG in line for line in text.splitlines())
    if width is None:  # piped: the table at its natural width, no header wrapped
        assert any("hollow awaits" in line for line in text.splitlines())
        assert "1 call site bypasses the worker pool" in text


def test_audit_fits_a_wide_enough_terminal():
    text = render_text(_audit("a.py"), color=False, width=100)
    assert max(cell_len(line) for line in text.splitlines()) <= 100


def test_audit_quiet_prints_only_the_table(tree):
    loud = run("audit", "--no-color").stdout
    quiet = run("audit", "--no-color", "-q").stdout
    assert "bypasses the worker pool" in loud
    assert "worker pool" not in quiet and "wide.py" in quiet
    assert "worker pool" not in run("audit", "--format", "markdown", "-q").stdout


def test_audit_has_no_exit_zero_and_json_says_not_judged(tree):
    result = run("audit", "--exit-zero")
    assert result.exit_code == 2 and result.stderr.startswith("mmlint: error: No such option")
    data = json.loads(run("audit", "--format", "json").stdout)
    assert "not_judged" in data["totals"] and "stubs" not in data["totals"]
    assert data["summary"].startswith("1 call site bypasses the worker pool")


def test_carets_align_under_wide_characters(tree):
    out = run("check", "--no-color", "--select", "MM001").stdout.splitlines()
    source = next(line for line in out if "图像处理" in line)
    carets = out[out.index(source) + 1]
    assert carets.index("^") == cell_len(source[: source.index("self.")])
    assert carets.count("^") == len("self.process_and_combine_mm_data(a)")


@pytest.mark.slow
def test_help_follows_the_snippet_wrapped_to_the_width_and_never_inside_quoted_code(tree):
    out = (
        CliRunner()
        .invoke(cli, ["check", "--no-color", "--no-cache", "--select", "MM001", "wide.py"], env={"COLUMNS": "50"})
        .stdout
    )
    lines = out.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("  = help: "))
    assert lines[start - 1].strip() == "|" and "^" in lines[start - 2]  # after the marks, as ruff shows it
    helped = [lines[start], *(line for line in lines[start + 1 :] if line.startswith(" " * 10) and line.strip())]
    assert len(helped) >= 2 and all(len(line) <= 50 for line in helped if "`" not in line)
    text = " ".join(line.strip() for line in helped).removeprefix("= help: ")
    assert text == "use `await self.process_and_combine_mm_data_async(...)`"
    assert any(line.strip() == "`await self.process_and_combine_mm_data_async(...)`" for line in helped)
    piped = _piped("check", "--no-cache", "--select", "MM001", "wide.py")  # never wrapped
    assert "  = help: use `await self.process_and_combine_mm_data_async(...)`\n" in piped


def test_words_are_wrapped_whole_with_quoted_code_as_one_word():
    from mmlint.reporters.text import wrap_words

    assert wrap_words("a `b c d` e", 5) == ["a", "`b c d`", "e"]
    assert wrap_words("aa bb cc", 5) == ["aa bb", "cc"]
    assert wrap_words("an `unclosed quote", 8) == ["an", "`unclosed", "quote"]


# --- options and messages ------------------------------------------------------------------


def test_output_format_is_an_alias_of_format(tree):
    result = run("check", "--output-format", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["diagnostics"]


def test_check_fix_points_at_mmlint_fix(tree):
    result = run("check", "--fix")
    assert result.exit_code == 2
    assert result.stderr.startswith("mmlint: error: `check` does not rewrite files; use `mmlint fix`")
    assert "Did you mean" not in result.output
    assert WIDE == (tree / "wide.py").read_text(encoding="utf-8")


def test_usage_errors_have_mmlints_form(tree):
    result = run("check", "--bogus")
    assert result.exit_code == 2
    assert result.stderr.startswith("mmlint: error: No such option") and "--bogus" in result.stderr
    assert "Try 'mmlint check -h' for help." in result.stderr


@pytest.mark.parametrize("output_format", [name for name in FORMATS if name not in STATISTICS_FORMATS])
def test_statistics_is_refused_where_it_cannot_apply(tree, output_format):
    result = run("check", "--statistics", "--format", output_format)
    assert result.exit_code == 2
    assert result.stderr.startswith("mmlint: error: --statistics works with --format text or json")


def test_statistics_in_json(tree):
    result = run("check", "--statistics", "--format", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == [
        {"code": "MM001", "name": "sync-twin-call", "count": 1, "fixable": 1},
        {"code": "MM003", "name": "fake-async", "count": 1, "fixable": 0},
    ]


@pytest.mark.parametrize("command", [["check"], ["audit"], ["baseline"]])
def test_output_naming_an_input_is_refused(tree, command):
    for inputs in (["wide.py"], ["."]):
        result = run(*command, "-o", "wide.py", *inputs)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("mmlint: error: --output wide.py names one of the inputs")
        assert (tree / "wide.py").read_text(encoding="utf-8") == WIDE


def test_no_cache_help_says_what_it_does():
    help_text = " ".join(run("check", "--help").stdout.split())
    assert "Neither read nor write the cache of parsed files" in help_text
    assert "mmlint.check.cache" not in help_text


def test_summary_says_files_scanned(tree):
    assert run("check", "--no-color").stdout.splitlines()[-1] == (
        "Found 2 diagnostics, 1 fixable with `mmlint fix` (1 file scanned, 1 twin call site)."
    )


def test_unreadable_file_gets_mmlints_message(tree, monkeypatch):
    # Click would check readability itself (with os.access) and word the error
    # its own way; mmlint reads the file and says what went wrong.
    monkeypatch.setattr(os, "access", lambda *args, **kwargs: False)
    result = run("check", "wide.py")
    assert "is not readable" not in result.output
    assert result.exit_code == 1


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root reads any file")
def test_unreadable_file_named_explicitly(tree):
    (tree / "wide.py").chmod(0)
    result = run("check", "wide.py")
    assert result.exit_code == 2
    assert result.stderr.startswith("mmlint: error: wide.py: cannot read")


def _piped(*args: str, **env: str) -> str:
    """mmlint in a real subprocess with stdout a pipe, as in `mmlint ... | cat`."""
    import subprocess

    clean = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "TERM")}
    result = subprocess.run([sys.executable, "-m", "mmlint", *args], capture_output=True, text=True, timeout=60,
                            env={**clean, "TERM": "xterm-256color", **env})  # fmt: skip
    return result.stdout


@pytest.mark.slow
def test_force_color_reaches_a_pipe(tree):
    assert "\x1b[" in _piped("check", "--no-cache", "wide.py", FORCE_COLOR="1")
    assert "\x1b[" not in _piped("check", "--no-cache", "wide.py")
    assert "\x1b[" not in _piped("check", "--no-cache", "--no-color", "wide.py", FORCE_COLOR="1")


@pytest.mark.slow
def test_rules_piped_is_one_rule_a_line_and_wraps_to_a_terminal_width():
    from mmlint.rules import all_rules

    lines = _piped("rules").splitlines()
    assert len(lines) == 1 + len(all_rules())
    assert all(line == line.rstrip() for line in lines)
    assert lines[1].startswith("MM001") and lines[1].endswith(all_rules()[0].summary)
    narrow = _piped("rules", COLUMNS="60").splitlines()
    assert len(narrow) > len(lines) and max(map(len, narrow)) <= 60


def _many_rows_audit() -> Audit:
    rows = tuple(AuditRow(f"{LONG[:-3]}_{n}.py", 1, 0, 0, 3, 0, 1, 2, 0, 1, 1) for n in range(30))
    totals = AuditTotals(30, 30, 0, 0, 90, 0, 30, 60, 0, 30, 30)
    return Audit(rows, totals)


def test_audit_at_80_columns_stacks_each_file_and_keeps_every_line_in_the_width():
    text = render_text(_many_rows_audit(), color=False, width=80)
    lines = text.splitlines()
    assert all(cell_len(line) <= 80 for line in lines if LONG[:-3] not in line)
    assert sum(1 for line in lines if line.startswith(LONG[:-3])) == 30  # each path whole, on its own line
    assert len(lines) <= 30 * 4 + 10
    assert "┃" not in text


def test_audit_piped_is_a_plain_table_one_file_a_line():
    text = render_text(_many_rows_audit(), color=False, width=None)
    lines = text.splitlines()
    assert not any(ch in text for ch in "┃│━─")
    assert all(line == line.rstrip() for line in lines)
    assert sum(1 for line in lines if line.startswith(LONG[:-3])) == 30
    header = next(line for line in lines if line.startswith("file"))
    assert header.split() == ["file", "sync", "async", "unawaitable", "async", "defs", "always", "some", "never",
                              "not", "judged", "hollow", "awaits"]  # fmt: skip
