"""What ruff users reach for: --show-settings, --show-files, --extend-select,
--exclude and --extend-exclude, on every scanning command."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_support import CliRunner

from mmlint.cli import cli

CONFIG = """\
[tool.mmlint]
paths = ["pkg"]
exclude = ["**/drafts/**"]
select = ["MM001"]
"""
PROCESSOR = "class P:\n    async def run(self, a):\n        return self.process_and_combine_mm_data(a)\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    for name in ("pkg/clip.py", "pkg/drafts/new.py", "pkg/legacy/old.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(PROCESSOR)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    monkeypatch.delenv("COLUMNS", raising=False)  # as piped: one line a setting
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(cli, [*args, "--no-cache"], prog_name="mmlint")


def paths_reported(*args: str) -> list[str]:
    result = run("check", "--format", "json", *args)
    assert result.exit_code in (0, 1), result.output
    return sorted({d["path"] for d in json.loads(result.stdout)["diagnostics"]})


def test_show_files_lists_what_would_be_checked(project: Path) -> None:
    result = run("check", "--show-files")
    assert result.exit_code == 0
    assert result.output.splitlines() == ["pkg/clip.py", "pkg/legacy/old.py"]


def test_exclude_replaces_the_configured_one_and_extend_exclude_adds(project: Path) -> None:
    assert paths_reported() == ["pkg/clip.py", "pkg/legacy/old.py"]
    assert paths_reported("--exclude", "**/legacy/**") == ["pkg/clip.py", "pkg/drafts/new.py"]
    assert paths_reported("--extend-exclude", "**/legacy/**") == ["pkg/clip.py"]
    assert paths_reported("--extend-exclude", "pkg/legacy/old.py,pkg/clip.py") == []


def test_command_line_globs_are_relative_to_the_current_directory(project: Path, monkeypatch) -> None:
    monkeypatch.chdir(project / "pkg")
    monkeypatch.setenv("PWD", str(project / "pkg"))
    result = run("check", "--show-files", "--extend-exclude", "legacy/old.py", ".")
    assert result.output.splitlines() == ["clip.py"]


def test_extend_select_adds_to_the_configured_select(project: Path) -> None:
    (project / "pkg" / "clip.py").write_text("async def f():\n    return 1\n")
    codes = lambda *a: sorted(
        {d["code"] for d in json.loads(run("check", "--format", "json", *a).output)["diagnostics"]}
    )  # noqa: E731
    assert codes() == ["MM001"]
    assert codes("--extend-select", "MM003") == ["MM001", "MM003"]


def test_show_settings_names_the_configuration_and_its_values(project: Path) -> None:
    result = run("check", "--show-settings", "pkg/clip.py", "--extend-exclude", "x/**")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[:2] == ["Resolved settings for: pkg/clip.py", "Settings path: pyproject.toml"]
    values = dict(line.split(" = ", 1) for line in lines[2:])
    assert json.loads(values["exclude"]) == ["**/drafts/**"]
    assert json.loads(values["extend_exclude"]) == ["x/**"]
    assert json.loads(values["select"]) == ["MM001"]


def _settings(lines: list[str]) -> dict[str, str]:
    """`key = value` lines, a value going on over the lines that do not start a key."""
    values: dict[str, str] = {}
    key = ""
    for line in lines:
        name, sep, value = line.partition(" = ")
        if sep and name.isidentifier():
            key, values[key] = name, value
        else:
            values[key] += "\n" + line
    return values


def test_show_settings_spreads_a_value_too_wide_for_the_terminal_and_stays_json(project: Path) -> None:
    piped = run("check", "--show-settings").output.splitlines()
    narrow = CliRunner().invoke(cli, ["check", "--show-settings", "--no-cache"], env={"COLUMNS": "60"}).output
    lines = narrow.splitlines()
    assert max(map(len, piped)) > 60 and len(lines) > len(piped)
    assert all(len(line) <= 60 for line in lines[2:] if str(project) not in line)  # a path is never broken
    spread, flat = _settings(lines[2:]), _settings(piped[2:])
    assert spread.keys() == flat.keys()
    assert {key: json.loads(value) for key, value in spread.items()} == {key: json.loads(v) for key, v in flat.items()}
    assert spread["blocking_calls"].startswith("[\n  ") and spread["select"] == flat["select"] == '["MM001"]'


@pytest.mark.parametrize("command", ["fix", "audit"])
def test_every_scanning_command_takes_them(project: Path, command: str) -> None:
    result = run(command, "--show-files", "--exclude", "**/legacy/**")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["pkg/clip.py", "pkg/drafts/new.py"]
    assert os.path.exists(project / "pkg" / "clip.py")


def test_shell_completion_as_the_readme_says() -> None:
    import subprocess
    import sys

    script = subprocess.run([sys.executable, "-c", "from mmlint.cli import main; main()"], capture_output=True, text=True,
                            env={**os.environ, "_MMLINT_COMPLETE": "bash_source"}, timeout=60)  # fmt: skip
    assert "complete" in script.stdout and "_MMLINT_COMPLETE" in script.stdout
