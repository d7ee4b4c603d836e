"""File discovery seen from the command line: the warnings it prints and the
issue's done-when (a `pip install .` build/ copy is never reported)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import CliRunner
from conftest import FIXTURES_DIR

from mmlint.cli import cli

NO_FILES = "mmlint: warning: no Python files found under"


def in_directory(monkeypatch, directory: Path) -> None:
    monkeypatch.chdir(directory)
    monkeypatch.setenv("PWD", str(directory))


def mmlint_command() -> list[str]:
    executable = shutil.which("mmlint")
    return [executable] if executable else [sys.executable, "-m", "mmlint"]


@pytest.mark.parametrize("command", ["check", "audit"])
def test_no_python_files_under_a_path_warns_and_exits_0(tmp_path: Path, monkeypatch, command: str) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# docs\n")
    in_directory(monkeypatch, tmp_path)
    result = CliRunner().invoke(cli, [command, "docs"])
    assert result.exit_code == 0, result.output
    assert f"{NO_FILES} docs\n" in result.stderr
    quiet = CliRunner().invoke(cli, [command, "-q", "docs"])
    assert quiet.exit_code == 0 and NO_FILES not in quiet.stderr


def test_no_python_files_in_a_full_scan_names_the_scanned_directory(tmp_path: Path, monkeypatch) -> None:
    in_directory(monkeypatch, tmp_path)
    result = CliRunner().invoke(cli, ["check"])
    assert result.exit_code == 0
    assert result.stderr == f"{NO_FILES} .\n"


def test_everything_gitignored_is_no_python_files(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("gen/\n")
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "g.py").write_text("x = 1\n")
    in_directory(monkeypatch, tmp_path)
    result = CliRunner().invoke(cli, ["check"])
    assert result.exit_code == 0
    assert result.stderr == f"{NO_FILES} .\n"


def test_explicitly_excluded_inputs_keep_their_own_message(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "mmlint.toml").write_text('exclude = ["gen.py"]\n')
    (tmp_path / "gen.py").write_text("x = 1\n")
    in_directory(monkeypatch, tmp_path)
    result = CliRunner().invoke(cli, ["check", "gen.py"])
    assert result.exit_code == 0
    assert result.stderr == "mmlint: every input is excluded by the configuration (1 file)\n"


def test_no_python_files_warning_from_a_real_subprocess(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    env = {**os.environ, "NO_COLOR": "1", "PWD": str(tmp_path)}
    found = subprocess.run([*mmlint_command(), "check", "empty"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert found.returncode == 0, found.stderr
    assert found.stderr == f"{NO_FILES} empty\n"


def test_unreadable_subdirectory_is_one_warning_line_and_the_rest_is_checked(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "pkg" / "locked").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    locked = str(tmp_path / "pkg" / "locked")
    real_scandir = os.scandir

    def scandir(path):
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    in_directory(monkeypatch, tmp_path)
    result = CliRunner().invoke(cli, ["check", "pkg"])
    assert result.exit_code == 0, result.output
    assert result.stderr == "mmlint: warning: pkg/locked: cannot read directory: Permission denied; skipped\n"
    assert "1 file" in result.stdout


@pytest.mark.slow
def test_check_from_a_repository_root_after_pip_install_reports_nothing_under_build(tmp_path: Path) -> None:
    """The issue's done-when, simulated: the repository holds the processor
    fixture, and `pip install .` left a copy of the package in build/lib (there
    is no .gitignore: the default excludes alone must skip it)."""
    repository = tmp_path / "repo"
    (repository / ".git").mkdir(parents=True)
    (repository / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n')
    shutil.copytree(FIXTURES_DIR / "processors", repository / "fixtures" / "processors")
    shutil.copytree(FIXTURES_DIR / "processors" / "mmproc", repository / "build" / "lib" / "mmproc")
    shutil.copytree(FIXTURES_DIR / "processors" / "mmproc", repository / "dist" / "mmproc")
    env = {**os.environ, "NO_COLOR": "1", "PWD": str(repository)}
    found = subprocess.run(
        [*mmlint_command(), "check", "--format", "json"], cwd=repository, capture_output=True, text=True, env=env
    )
    assert found.returncode == 1, found.stderr
    paths = {diagnostic["path"] for diagnostic in json.loads(found.stdout)["diagnostics"]}
    assert any(path.startswith("fixtures/processors/mmproc/") for path in paths)
    assert not [path for path in paths if path.startswith(("build/", "dist/"))]
