"""Every text output is readable at 80 columns: each command's report over
the bundled fixtures, rendered at COLUMNS=80, has no line longer than 100
characters once quoted source (snippet and diff lines, `quoted code`) and
paths are set aside."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import CliRunner

from mmlint.cli import cli
from mmlint.rules import all_rules

REPO = Path(__file__).resolve().parent.parent
FIXTURES = ("processors", "suspension", "twins", "weight", "findings")
LIMIT = 100
ENV = {"COLUMNS": "80", "NO_COLOR": "1", "MMLINT_NO_CACHE": "1"}

# A source line shown in a snippet (`12 | code`) or a diff; quoted code; a path.
_SNIPPET = re.compile(r"^\s*(\d+ \| |\| +\^+$)")  # a source line, or the marks under it
_DIFF = re.compile(r"^(\+|-|@@| )")
_QUOTED = re.compile(r"`[^`]*`")
_PATH = re.compile(r"[^\s'\"(]*(?:/|\.py\b|\.toml\b|\.json\b)[^\s'\",)]*")


def over_limit(text: str, *, diff: bool = False, source: frozenset[str] = frozenset()) -> list[str]:
    """The lines of ``text`` longer than LIMIT once quoted source (snippets,
    diff lines, the lines in ``source``) and paths are left out."""
    long = []
    for line in text.splitlines():
        if _SNIPPET.match(line) or (diff and _DIFF.match(line)) or line.strip() in source:
            continue
        if len(_PATH.sub("p", _QUOTED.sub("q", line))) > LIMIT:
            long.append(line)
    return long


@pytest.fixture(scope="module")
def trees(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fixtures")
    for name in FIXTURES:
        shutil.copytree(REPO / "fixtures" / name, root / name)
    return root


def invoke(args: list[str], cwd: Path, monkeypatch) -> str:
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("PWD", str(cwd))
    result = CliRunner().invoke(cli, args, env=ENV, prog_name="mmlint")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.output


SCANNING = [
    ["check"],
    ["check", "--statistics"],
    ["check", "--show-settings"],
    ["check", "--show-files"],
    ["audit"],
    ["audit", "--show-defs"],
    ["fix", "--diff"],
]


@pytest.mark.parametrize("fixture", FIXTURES)
@pytest.mark.parametrize("args", SCANNING, ids=" ".join)
def test_scanning_commands_fit(trees, fixture, args, monkeypatch) -> None:
    before = {p: p.read_bytes() for p in (trees / fixture).rglob("*.py")}
    output = invoke(args, trees / fixture, monkeypatch)
    assert output.strip(), args
    assert over_limit(output, diff="--diff" in args) == []
    assert {p: p.read_bytes() for p in (trees / fixture).rglob("*.py")} == before


@pytest.mark.slow
def test_baseline_fits(trees, tmp_path, monkeypatch) -> None:
    output = invoke(["baseline", "-o", str(tmp_path / "baseline.json")], trees / "processors", monkeypatch)
    assert over_limit(output) == []
    checked = invoke(["check", "--baseline", str(tmp_path / "baseline.json")], trees / "processors", monkeypatch)
    assert over_limit(checked) == []


@pytest.mark.parametrize(
    "args",
    [["rules"], *(["explain", rule.code] for rule in all_rules())],
    ids=" ".join,
)
def test_rule_documentation_fits(trees, args, monkeypatch) -> None:
    examples = [e for rule in all_rules() for e in (*rule.bad_examples, *rule.good_examples)]
    source = frozenset(
        line.strip() for e in examples for text in (e.code, e.fixed_code or "") for line in text.splitlines()
    )
    assert over_limit(invoke(args, trees, monkeypatch), source=source) == []


@pytest.mark.parametrize("command", [None, "check", "fix", "audit", "baseline", "rules", "explain", "clean", "server"])
def test_every_help_fits(trees, command, monkeypatch) -> None:
    output = invoke([*([command] if command else []), "--help"], trees, monkeypatch)
    assert output.startswith("Usage:") and over_limit(output) == []


@pytest.mark.slow
def test_a_real_terminal_run_fits() -> None:
    """One real process: the width comes from COLUMNS as a terminal's would."""
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", "check"], cwd=REPO / "fixtures" / "processors",
        capture_output=True, text=True, timeout=120, env={**os.environ, **ENV},
    )  # fmt: skip
    assert result.returncode == 1 and "= help: " in result.stdout
    assert over_limit(result.stdout) == []
    # The help is wrapped to the width: no help line runs past 80 but for a word that cannot break.
    helped = [line for line in result.stdout.splitlines() if line.startswith(("  = help: ", " " * 10))]
    assert helped and all(len(line) <= 80 or len(max(line.split(), key=len)) > 40 for line in helped)


def test_the_measure_fails_a_long_line() -> None:
    assert over_limit("x" * 101) == ["x" * 101]
    assert over_limit("a.py:1:1: MM001 `" + "q" * 200 + "` short") == []
    assert over_limit("12 | " + "s" * 200) == []


# --- At 80 columns, strictly: no line over 80 but the quoted source (issue 42) ---

WIDTH = 80


def wider_than_the_terminal(text: str) -> list[str]:
    """The lines of ``text`` over WIDTH cells, snippet lines (quoted source and
    the marks under it) aside: nothing else is exempt, paths included."""
    from rich.cells import cell_len

    return [line for line in text.splitlines() if not _SNIPPET.match(line) and cell_len(line) > WIDTH]


def test_the_measure_fails_any_long_line_but_a_snippet() -> None:
    assert wider_than_the_terminal("a.py:1:1: MM001 `" + "q" * 80 + "`") != []
    assert wider_than_the_terminal("12 | " + "s" * 200) == []


def test_check_of_the_readmes_fixtures_fits_80_columns(trees, monkeypatch) -> None:
    """The README's first command's tree: every header, note, help and summary line fits."""
    output = invoke(["check"], trees / "processors", monkeypatch)
    assert output.count(": MM") >= 30 and wider_than_the_terminal(output) == []
    # A message too long for a line goes on below, indented, between words.
    assert "mmproc/processors/legacy/old_llava.py:12:34: MM001 [*] sync twin bypasses the\n    worker pool\n" in output


@pytest.mark.parametrize("fixture", FIXTURES)
def test_every_heading_fits_80_columns(trees, fixture, monkeypatch) -> None:
    output = invoke(["check"], trees / fixture, monkeypatch)
    headings = [line for line in output.splitlines() if re.match(r"^\S+:\d+:\d+: MM\d{3} ", line)]
    assert headings and [line for line in headings if len(line) > WIDTH] == []


def test_piped_output_is_never_wrapped(trees, monkeypatch) -> None:
    monkeypatch.chdir(trees / "processors")
    monkeypatch.setenv("PWD", str(trees / "processors"))
    result = CliRunner().invoke(cli, ["check"], env={"NO_COLOR": "1", "MMLINT_NO_CACHE": "1"}, prog_name="mmlint")
    assert "old_llava.py:12:34: MM001 [*] sync twin bypasses the worker pool\n" in result.stdout


def test_every_rules_message_is_a_short_statement() -> None:
    """The detail is in the help and the notes: a message is at most 60
    characters, with a quoted name at most 30 more, in every fixture tree."""
    from mmlint.api import check

    long = []
    for tree in sorted(p for p in (REPO / "fixtures").iterdir() if (p / "pyproject.toml").is_file()):
        for d in check(cwd=tree).diagnostics:
            names = sum(len(quoted) for quoted in _QUOTED.findall(d.message))
            if len(d.message) > 60 + min(names, 30):
                long.append(f"{tree.name}/{d.path}: {d.code} {d.message}")
    assert long == []


def test_concise_is_one_line_per_finding_never_wrapped(trees, monkeypatch) -> None:
    for args in (["check", "--output-format", "concise"], ["check", "--format", "concise"]):
        output = invoke(args, trees / "processors", monkeypatch)
        *findings, summary = output.splitlines()
        assert len(findings) == 34 and summary.startswith("Found 34 diagnostics")
        assert all(re.fullmatch(r"\S+\.py:\d+:\d+: MM\d{3} [^\n]+", line) for line in findings), findings
        assert (
            "mmproc/processors/broken.py:9:67: MM999 could not parse: invalid syntax. Perhaps you forgot a comma?"
            in findings
        )
    quiet = invoke(["check", "--format", "concise", "-q"], trees / "processors", monkeypatch)
    assert len(quiet.splitlines()) == 34 and "Found" not in quiet


def test_concise_refuses_statistics(trees, monkeypatch) -> None:
    monkeypatch.chdir(trees / "processors")
    result = CliRunner().invoke(cli, ["check", "--format", "concise", "--statistics"], env=ENV)
    assert result.exit_code == 2 and "--statistics works with --format text or json" in result.output


def test_audit_groups_the_twin_pairs(trees, monkeypatch) -> None:
    grouped = invoke(["audit"], trees / "twins", monkeypatch)
    assert "twin pair " not in grouped and re.search(r"^\d+ twin pairs \(MM010\) by their async member", grouped, re.M)
    assert wider_than_the_terminal(grouped) == []
    full = invoke(["audit", "--show-twins"], trees / "twins", monkeypatch)
    pairs = full.count("\ntwin pair ")
    count = int(re.search(r"^(\d+) twin pairs", grouped, re.M).group(1))
    assert pairs == count >= 10 and len(grouped.splitlines()) < len(full.splitlines()) - 3 * count
    for fmt in ("json", "markdown"):  # the data for a machine or a pull request keeps every pair
        assert invoke(["audit", "--format", fmt], trees / "twins", monkeypatch) == invoke(
            ["audit", "--format", fmt, "--show-twins"], trees / "twins", monkeypatch
        )


@pytest.mark.slow
def test_a_real_terminal_run_fits_80_columns() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", "check"], cwd=REPO / "fixtures" / "processors",
        capture_output=True, text=True, timeout=120, env={**os.environ, **ENV},
    )  # fmt: skip
    assert result.returncode == 1 and wider_than_the_terminal(result.stdout) == []
