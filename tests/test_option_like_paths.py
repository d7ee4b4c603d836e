"""After `--`, every argument is a PATH: files named like options, and `-`
(the file named `-`, not standard input), through click's runner and a real
subprocess. The pre-commit hooks end their options so (tests/test_precommit.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from cache_support import SOURCE
from cli_support import CliRunner

from mmlint.cli import cli

FIXED = SOURCE.replace(
    "return self.process_and_combine_mm_data(", "return await self.process_and_combine_mm_data_async("
)
# Each would be an option (or a cluster of short ones) before `--`.
OPTION_LIKE = ("--config=cfg.py", "--exit-zero.py", "-q.py", "--select=MM999.py", "--no-cache.py", "-o.py", "-")


@pytest.fixture
def tree(tmp_path, monkeypatch, cache_dir):
    project = tmp_path / "proj"
    project.mkdir()
    for name in OPTION_LIKE:
        (project / name).write_text(SOURCE, encoding="utf-8")
    (project / "cfg.py").write_text("", encoding="utf-8")  # a valid (empty) configuration, were it read as one
    monkeypatch.chdir(project)
    monkeypatch.setenv("PWD", str(project))
    return project


def _invoke(*args: str, input: str | None = None):
    result = CliRunner().invoke(cli, list(args), input=input)
    assert "Traceback" not in result.output, result.output
    return result


def _reported(stdout: str) -> set[str]:
    return {line.split(":", 1)[0] for line in stdout.splitlines() if ": MM001 " in line}


def test_check_reads_every_name_after_dashes_as_a_path(tree):
    result = _invoke("check", "--no-color", "--", *OPTION_LIKE)
    assert result.exit_code == 1, result.output
    assert _reported(result.stdout) == set(OPTION_LIKE)
    assert "Found" in result.stdout  # -q.py did not make it --quiet


@pytest.mark.parametrize("name", OPTION_LIKE)
def test_check_each_name_alone(tree, name):
    result = _invoke("check", "--no-color", "--format", "json", "--", name)
    assert result.exit_code == 1, result.output
    assert {d["path"] for d in json.loads(result.stdout)["diagnostics"]} == {name}


def test_options_before_dashes_still_apply(tree):
    result = _invoke("check", "--no-color", "-q", "--select", "MM003", "--", "-q.py")
    assert result.exit_code == 1 and "MM003" in result.stdout and "MM001" not in result.stdout
    assert "Found" not in result.stdout


def test_fix_rewrites_every_name_after_dashes(tree):
    result = _invoke("fix", "--", *OPTION_LIKE)
    assert result.exit_code == 0 and "Fixed 7 sites in 7 files." in result.stdout, result.output
    for name in OPTION_LIKE:
        assert (tree / name).read_text(encoding="utf-8") == FIXED, name
    assert (tree / "cfg.py").read_text(encoding="utf-8") == ""


def test_fix_diff_and_check_name_every_file(tree):
    diff = _invoke("fix", "--diff", "--", *OPTION_LIKE)
    assert diff.exit_code == 1, diff.output
    assert {line[6:] for line in diff.stdout.splitlines() if line.startswith("+++ b/")} == set(OPTION_LIKE)
    listed = _invoke("fix", "--check", "--", *OPTION_LIKE)
    assert {
        line.split(": ", 1)[1].rsplit(" (", 1)[0]
        for line in listed.stdout.splitlines()
        if line.startswith("Would fix: ")
    } == set(OPTION_LIKE)
    for name in OPTION_LIKE:
        assert (tree / name).read_text(encoding="utf-8") == SOURCE


def test_audit_and_baseline_take_the_names_as_paths(tree):
    audit = _invoke("audit", "--format", "json", "--", *OPTION_LIKE)
    assert audit.exit_code == 0, audit.output
    assert {row["path"] for row in json.loads(audit.stdout)["files"]} == set(OPTION_LIKE)
    baseline = _invoke("baseline", "-o", "base.json", "--", *OPTION_LIKE)
    assert baseline.exit_code == 0, baseline.output
    recorded = json.loads((tree / "base.json").read_text(encoding="utf-8"))
    assert set(OPTION_LIKE) <= {entry["path"] for entry in recorded["entries"]}


def test_a_dash_before_dashes_is_still_standard_input(tree):
    result = _invoke("check", "--no-color", "-", input="x = 1\n")
    assert result.exit_code == 0 and "MM001" not in result.stdout, result.output
    result = _invoke("check", "--no-color", "--", "-", input="x = 1\n")
    assert result.exit_code == 1 and _reported(result.stdout) == {"-"}, result.output
    fixed = _invoke("fix", "--", "-", input="x = 1\n")
    assert (tree / "-").read_text(encoding="utf-8") == FIXED and fixed.stdout.startswith("Fixed 1 site")


def test_dashes_given_as_an_options_value_do_not_end_the_options(tree):
    (tree / "--").write_text("select = ['MM003']\n", encoding="utf-8")
    result = _invoke("check", "--no-color", "--config", "--", "--", "-q.py")
    assert result.exit_code == 1, result.output
    assert "MM003" in result.stdout and "MM001" not in result.stdout  # the file `--` configured the run
    assert "Found" in result.stdout  # -q.py is a path: not --quiet


def test_a_missing_option_like_path_is_a_clear_error(tree):
    result = _invoke("check", "--", "--select=MM001")
    assert result.exit_code == 2 and result.stderr.startswith("mmlint: error: ") and "--select=MM001" in result.stderr


@pytest.mark.parametrize("command", [("check", "--no-color"), ("fix", "--diff")])
def test_a_real_subprocess(tree, command):
    env = {**os.environ, "NO_COLOR": "1", "PWD": str(tree)}
    ran = subprocess.run(
        [sys.executable, "-m", "mmlint", *command, "--", *OPTION_LIKE],
        cwd=tree,
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert ran.returncode == 1, ran.stderr
    if command[0] == "check":
        assert _reported(ran.stdout) == set(OPTION_LIKE)
    else:
        assert {line[6:] for line in ran.stdout.splitlines() if line.startswith("+++ b/")} == set(OPTION_LIKE)
