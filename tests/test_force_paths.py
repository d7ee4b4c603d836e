"""--force-paths: the configured `paths` bind files named explicitly, as
`exclude` always does (ruff's --force-exclude, which its pre-commit hook
passes). The hooks pass it, so a commit touching code outside `paths` is not
checked; a file named by hand is checked wherever it lies."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import CliRunner

from mmlint.cli import cli
from sglang_layout import MULTIMODAL, REPO, make_sglang_layout

ENTRYPOINT = "python/sglang/srt/entrypoints/http_server.py"
BLOCKING = "import time\n\n\nasync def generate(request):\n    time.sleep(1)\n    return request\n"
EXCLUDED = "mmlint: every input is excluded by the configuration (1 file)\n"


@pytest.fixture()
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_sglang_layout(tmp_path / "sglang")
    (root / ENTRYPOINT).parent.mkdir(parents=True)
    (root / ENTRYPOINT).write_text(BLOCKING, encoding="utf-8")
    monkeypatch.chdir(root)
    monkeypatch.setenv("PWD", str(root))
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    return root


def _codes(output: str) -> list[tuple[str, str]]:
    return [(d["path"], d["code"]) for d in json.loads(output)["diagnostics"]]


def test_a_named_file_outside_paths_is_checked_by_default(layout: Path) -> None:
    result = CliRunner().invoke(cli, ["check", "--format", "json", ENTRYPOINT])
    assert result.exit_code == 1, result.output
    assert (ENTRYPOINT, "MM005") in _codes(result.stdout)


@pytest.mark.parametrize(
    "command", [["check"], ["fix", "--diff"], ["audit"], ["check", "--config", "python/pyproject.toml"]]
)
def test_with_force_paths_it_is_left_out(layout: Path, command: list[str]) -> None:
    result = CliRunner().invoke(cli, [*command, "--force-paths", "--", ENTRYPOINT])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(EXCLUDED) and "MM005" not in result.stdout
    assert (layout / ENTRYPOINT).read_text(encoding="utf-8") == BLOCKING


def test_with_force_paths_a_file_under_paths_is_still_checked(layout: Path) -> None:
    clip = f"{MULTIMODAL}/processors/clip.py"
    result = CliRunner().invoke(cli, ["check", "--format", "json", "--force-paths", "--", ENTRYPOINT, clip])
    assert result.exit_code == 1, result.output
    assert {path for path, _ in _codes(result.stdout)} == {clip}


def test_force_paths_binds_standard_input_by_the_name_it_stands_for(layout: Path) -> None:
    args = ["check", "--force-paths", "-", "--stdin-filename", ENTRYPOINT]
    assert CliRunner().invoke(cli, args, input=BLOCKING).exit_code == 0
    assert CliRunner().invoke(cli, args[:1] + args[2:], input=BLOCKING).exit_code == 1


def test_force_paths_without_configured_paths_checks_every_named_file(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "mmlint.toml").write_text('exclude = ["skipped.py"]\n', encoding="utf-8")
    for name in ("server.py", "skipped.py"):
        (tmp_path / name).write_text(BLOCKING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    result = CliRunner().invoke(cli, ["check", "--format", "json", "--force-paths", "--", "server.py", "skipped.py"])
    assert result.exit_code == 1 and {path for path, _ in _codes(result.stdout)} == {"server.py"}


def test_show_files_honours_force_paths(layout: Path) -> None:
    clip = f"{MULTIMODAL}/processors/clip.py"
    shown = CliRunner().invoke(cli, ["check", "--show-files", "--force-paths", "--", ENTRYPOINT, clip])
    assert shown.exit_code == 0 and clip in shown.stdout and ENTRYPOINT not in shown.stdout


def test_a_real_process_leaves_it_out(layout: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1", "MMLINT_NO_CACHE": "1"}
    run = [sys.executable, "-m", "mmlint", "check"]
    forced = subprocess.run(
        [*run, "--force-paths", "--", ENTRYPOINT], cwd=layout, capture_output=True, text=True, env=env
    )
    assert (forced.returncode, forced.stdout, forced.stderr) == (0, "All checks passed (0 files scanned).\n", EXCLUDED)
    plain = subprocess.run([*run, ENTRYPOINT], cwd=layout, capture_output=True, text=True, env=env)
    assert plain.returncode == 1 and "MM005" in plain.stdout
