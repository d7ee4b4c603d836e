"""`mmlint graph`: the resolved call graph in PyCG's format, on fixtures/callgraph
(module bodies, imports and re-exports, self. dispatch over a subclass,
returned functions, nested defs, async defs, a callee outside the scan)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import CliRunner

from mmlint.cli import cli

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "callgraph"
EXPECTED = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")


def test_the_fixture_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURE)
    result = CliRunner().invoke(cli, ["graph", ".", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == EXPECTED


def test_the_edges_the_resolver_finds() -> None:
    result = CliRunner().invoke(cli, ["graph", str(FIXTURE)])
    graph = json.loads(result.stdout)
    assert graph["app.service"] == ["app.service.Base.__init__"]  # the module's own body
    assert graph["app.service.Base.run"] == ["app.service.Base.step", "app.service.Child.step"]  # dispatch
    assert "app.util.parse" in graph["app.service.Child.step"]  # a returned function, called
    assert graph["app.service.load"] == ["app.service.load.inner"]  # a nested def
    assert graph["app.service.load.inner"] == ["ext_library.fetch"]  # outside the scan, by its import
    assert graph["app.service.Base.step"] == ["app.util.helper"]  # through the package's re-export


def test_names_are_relative_to_the_scanned_root() -> None:
    graph = json.loads(CliRunner().invoke(cli, ["graph", str(FIXTURE / "app")]).stdout)
    assert "service.Base.run" in graph and "util" in graph and "" not in graph


def test_subprocess_and_output_file(tmp_path: Path) -> None:
    target = tmp_path / "graph.json"
    env = {**os.environ, "PYTHONPATH": str(REPO), "MMLINT_NO_CACHE": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "mmlint", "graph", ".", "-o", str(target)],
        cwd=FIXTURE,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(target.read_text(encoding="utf-8")) == EXPECTED


def test_a_missing_path_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["graph", str(tmp_path / "nowhere")])
    assert result.exit_code == 2
    assert "mmlint: error:" in result.stderr


def test_module_level_calls_are_facts(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "def f():\n    pass\n\n\n@f\ndef g(x=f()):\n    pass\n\n\nclass C:\n    f()\n\n\nf()\n", encoding="utf-8"
    )
    graph = json.loads(CliRunner().invoke(cli, ["graph", str(tmp_path)]).stdout)
    assert graph == {"m": ["m.f"], "m.f": [], "m.g": []}


def test_functions_passed_as_arguments_and_decorators() -> None:
    graph = json.loads(CliRunner().invoke(cli, ["graph", str(FIXTURE)]).stdout)
    assert graph["app.passing.run_each"] == ["app.passing.on_item"]  # by position and by keyword
    assert graph["app.passing.register"] == ["app.passing.startup"]  # a decorator calls what it decorates
    assert graph["app.passing"] == ["app.passing.register", "app.passing.run_each"]  # applying it is a call
