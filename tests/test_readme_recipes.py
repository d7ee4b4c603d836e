"""The README's recipes, run as written on a repository in sglang's layout:
the configuration block in ``python/pyproject.toml``, the processors under
``python/sglang/srt/multimodal``, other code elsewhere in the checkout.

Each recipe is read out of the README itself (the ```toml block under
"Configuration", the `run: mmlint ...` lines of the GitHub workflows), so a
README that drifts from what works fails here."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sglang_layout import MULTIMODAL, README, REPO, make_sglang_layout


def _workflow_commands() -> list[str]:
    """Every `- run: mmlint ...` line of the README's workflow snippets."""
    return re.findall(r"^\s*- run: (mmlint .+)$", README, re.M)


@pytest.fixture
def sglang_layout(tmp_path: Path) -> Path:
    return make_sglang_layout(tmp_path / "sglang")


def _run(command: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    arguments = shlex.split(command)
    assert arguments[0] == "mmlint"
    return subprocess.run(
        [sys.executable, "-m", "mmlint", *arguments[1:], "--no-cache"],
        cwd=cwd, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "MMLINT_CACHE_DIR": str(cache), "NO_COLOR": "1", "PYTHONPATH": str(REPO)},
    )  # fmt: skip


def _json_report(command: str, cwd: Path, cache: Path) -> dict:
    result = _run(f"{command} --format json", cwd, cache)
    assert result.returncode == 1, result.stderr
    return json.loads(result.stdout)


@pytest.mark.slow
def test_the_configuration_block_works_from_python(sglang_layout: Path, tmp_path: Path) -> None:
    report = _json_report("mmlint check", sglang_layout / "python", tmp_path / "cache")
    paths = {d["path"] for d in report["diagnostics"]}
    assert paths and all(path.startswith("sglang/srt/multimodal/") for path in paths)
    codes = {d["code"] for d in report["diagnostics"]}
    # Every entry of the block acts on the package: nothing stale, nothing too few.
    assert "MM012" not in codes and "MM008" not in codes
    assert "MM001" in codes
    assert report["call_sites"] >= 20  # the block's min-call-sites


@pytest.mark.slow
def test_the_same_run_from_the_repository_root_names_the_configuration(sglang_layout: Path, tmp_path: Path) -> None:
    inside = _json_report("mmlint check", sglang_layout / "python", tmp_path / "cache")
    at_root = _json_report("mmlint check --config python/pyproject.toml", sglang_layout, tmp_path / "cache")
    # The same findings, shown relative to the root.
    assert [(f"python/{d['path']}", d["line"], d["code"]) for d in inside["diagnostics"]] == [
        (d["path"], d["line"], d["code"]) for d in at_root["diagnostics"]
    ]


@pytest.mark.parametrize("command", _workflow_commands())
def test_every_workflow_command_runs_from_the_repository_root(
    sglang_layout: Path, tmp_path: Path, command: str
) -> None:
    command = command.replace("--output mmlint.sarif", f"--output {tmp_path / 'mmlint.sarif'}")
    result = _run(command, sglang_layout, tmp_path / "cache")
    assert result.returncode == (0 if "--exit-zero" in command else 1), result.stderr
    if "--format github" in command:
        files = set(re.findall(r"^::\w+ file=([^,]+),", result.stdout, re.M))
        assert files and all(name.startswith(f"{MULTIMODAL}/") for name in files)
        assert "test/srt" not in result.stdout and "server.py" not in result.stdout
    if "--format sarif" in command:
        log = json.loads((tmp_path / "mmlint.sarif").read_text())
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
        assert uris and all(uri.startswith(f"{MULTIMODAL}/") for uri in uris)


def test_the_readme_has_the_workflow_commands_this_test_runs() -> None:
    commands = _workflow_commands()
    assert any("--format github" in c for c in commands) and any("--format sarif" in c for c in commands)


@pytest.mark.slow
def test_sarif_from_python_names_files_from_the_checkout_root(sglang_layout: Path, tmp_path: Path) -> None:
    """GitHub code scanning resolves SARIF URIs against the repository root."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(sglang_layout)], check=True)
    sarif = tmp_path / "mmlint.sarif"
    result = _run(
        f"mmlint check --format sarif --output {sarif} --exit-zero", sglang_layout / "python", tmp_path / "cache"
    )
    assert result.returncode == 0, result.stderr
    run = json.loads(sarif.read_text())["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == sglang_layout.as_uri() + "/"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert uris and all(uri.startswith(f"{MULTIMODAL}/") for uri in uris)
