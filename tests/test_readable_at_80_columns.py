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
