"""The composite GitHub Action (action.yml), its steps run here as a runner would
run them: each `run:` script in bash with the step's environment, the
`${{ ... }}` expressions a runner fills in replaced by their values, the steps
that `uses:` another action stood in for (setup-python: this interpreter in a
fresh virtualenv; upload-sarif: the test reads the file it would upload)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sglang_layout import MULTIMODAL, REPO, make_sglang_layout

yaml = pytest.importorskip("yaml")

ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
STEPS = ACTION["runs"]["steps"]
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
# What pip needs to install the project, copied so the build writes nothing into the checkout.
PROJECT_FILES = ("pyproject.toml", "README.md")


def _value(expression: str, context: dict[str, str]) -> str:
    if expression not in context:
        raise AssertionError(f"the test does not know ${{{{ {expression} }}}}")
    return context[expression]


def _run_step(step: dict, context: dict[str, str], cwd: Path, path_prefix: str) -> subprocess.CompletedProcess[str]:
    env = {
        key: EXPRESSION.sub(lambda m: _value(m.group(1), context), str(value))
        for key, value in step.get("env", {}).items()
    }
    env.update(PATH=f"{path_prefix}:/usr/bin:/bin", GITHUB_OUTPUT=context["github_output"], NO_COLOR="1",
               MMLINT_CACHE_DIR=context["runner.temp"] + "/cache")  # fmt: skip
    return subprocess.run(["bash", "-eo", "pipefail", "-c", step["run"]], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)  # fmt: skip


def _condition_holds(step: dict, context: dict[str, str]) -> bool:
    condition = step.get("if")
    if condition is None:
        return True
    match = re.fullmatch(r"inputs\.([\w-]+) == '(\w+)'", condition)
    assert match, f"the test does not know the condition {condition!r}"
    return context[f"inputs.{match.group(1)}"] == match.group(2)


def test_inputs_reach_scripts_only_through_the_environment() -> None:
    for step in STEPS:
        if "run" in step:
            assert not EXPRESSION.search(step["run"]), (
                f"{step.get('name')}: an expression inside a script can inject code"
            )
    assert {"paths", "config", "args", "sarif", "python-version"} <= set(ACTION["inputs"])
    assert ACTION["runs"]["using"] == "composite"


@pytest.mark.slow
def test_the_steps_install_mmlint_annotate_and_write_sarif(tmp_path: Path) -> None:
    action_path = tmp_path / "action"
    action_path.mkdir()
    for name in PROJECT_FILES:
        shutil.copy2(REPO / name, action_path / name)
    shutil.copytree(REPO / "mmlint", action_path / "mmlint", ignore=shutil.ignore_patterns("__pycache__"))
    checkout = make_sglang_layout(tmp_path / "checkout")
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    venv = tmp_path / "python"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)  # what setup-python provides
    github_output = tmp_path / "github-output"
    github_output.touch()
    context = {
        "github.action_path": str(action_path),
        "runner.temp": str(runner_temp),
        "steps.sarif.outputs.file": "",
        "github_output": str(github_output),
        "inputs.paths": "",
        "inputs.config": "python/pyproject.toml",
        "inputs.args": "--select MM001,MM002,MM003",
        "inputs.sarif": "true",
        "inputs.python-version": "3.11",
    }
    results = {}
    for step in STEPS:
        if not _condition_holds(step, context):
            continue
        if "uses" in step:
            assert step["uses"].split("@")[0] in ("actions/setup-python", "github/codeql-action/upload-sarif")
            continue
        result = _run_step(step, context, checkout, str(venv / "bin"))
        results[step["name"]] = result
        outputs = dict(line.split("=", 1) for line in github_output.read_text().splitlines() if "=" in line)
        context.update({f"steps.{step.get('id')}.outputs.{key}": value for key, value in outputs.items()})

    assert results["Install mmlint"].returncode == 0, results["Install mmlint"].stderr
    sarif_file = Path(context["steps.sarif.outputs.file"])
    assert sarif_file.parent == runner_temp and results["SARIF for code scanning"].returncode == 0
    log = json.loads(sarif_file.read_text())
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris and all(uri.startswith(f"{MULTIMODAL}/") for uri in uris)
    # --select reaches mmlint (MM999, a fixture that does not parse, is always reported).
    assert {r["ruleId"] for r in log["runs"][0]["results"]} == {"MM001", "MM002", "MM003", "MM999"}

    check = results["mmlint check"]
    assert check.returncode == 1  # findings fail the job
    annotated = set(re.findall(r"^::(?:error|warning) file=([^,]+),", check.stdout, re.M))
    assert annotated and all(name.startswith(f"{MULTIMODAL}/") for name in annotated)


@pytest.mark.slow
def test_a_hostile_input_is_data_not_code(tmp_path: Path) -> None:
    (check_step,) = [step for step in STEPS if step.get("name") == "mmlint check"]
    marker = tmp_path / "pwned"
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    # A stand-in mmlint that prints its arguments, one a line.
    (fake_bin / "mmlint").write_text('#!/bin/bash\nprintf "%s\\n" "$@"\n')
    os.chmod(fake_bin / "mmlint", 0o755)
    context = {"inputs.paths": f"$(touch {marker})", "inputs.config": "", "inputs.args": "; touch " + str(marker),
               "github_output": str(tmp_path / "out"), "runner.temp": str(tmp_path)}  # fmt: skip
    result = _run_step(check_step, context, tmp_path, str(fake_bin))
    assert result.returncode == 0 and not marker.exists()
    # Words split at blanks, as documented; none is run.
    assert result.stdout.splitlines()[-2:] == ["$(touch", f"{marker})"]
