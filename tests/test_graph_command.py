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


def test_values_the_graph_follows() -> None:
    """fixtures/graph_values: each shape of value the graph follows, beside its twin."""
    graph = json.loads(CliRunner().invoke(cli, ["graph", str(REPO / "fixtures" / "graph_values")]).stdout)
    shapes = {node.removeprefix("shapes."): edges for node, edges in graph.items()}
    loaders = ["shapes.load_csv", "shapes.load_json", "shapes.load_yaml"]
    # Entries by their constant key, a store under a key replacing the display's; any entry for another key.
    assert (shapes["by_csv"], shapes["by_json"], shapes["by_kind"]) == (loaders[:1], loaders[1:2], loaders)
    # A binding rebound before anything reads it is gone; one read in between stays.
    assert (shapes["read"], shapes["write"]) == (loaders[1:2], [loaders[0], loaders[2]])
    assert shapes["unpacked"] == loaders[:2]  # `first, *middle, last = ...`
    # A for loop calls __iter__ and __next__; a generator's calls give what it yields; `raise E` builds E.
    assert shapes["consume"] == [
        "shapes.Batches.__init__", "shapes.Batches.__iter__", "shapes.Batches.__next__",
        "shapes.Fatal.__init__", "shapes.load_yaml", "shapes.produce",
    ]  # fmt: skip
    # A lambda is a def, passed and called through a parameter; a default is a parameter's value too.
    assert shapes["call_back"] == ["shapes.chain.<lambda1>", "shapes.load_csv"]
    assert shapes["chain.<lambda1>"] == ["shapes.load_json"]
    # A decorated def is what its decorator returns; a decorator returning the def leaves it.
    assert shapes["decorated"] == ["shapes.plain", "shapes.timed.wrapper"]
    assert shapes["timed.wrapper"] == ["shapes.measured"]
    assert shapes["nested"] == ["shapes.Outer.Inner.work"]  # a base named through its class
