"""libcst's private API is used in one module (mmlint.facts.libcst_internals),
checked at import against what it is known to be, with the public API as the
road taken when it is not: the same facts and diagnostics, on every fixture."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from mmlint.api import check
from mmlint.check.per_file import analyse_file
from mmlint.config.settings import DEFAULT_TWINS, Budgets
from mmlint.facts import libcst_internals

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
PACKAGE = REPO / "mmlint"
OWNER = PACKAGE / "facts" / "libcst_internals.py"


def test_the_installed_libcst_is_the_one_known() -> None:
    # The range pyproject.toml allows is the range CI tests: each must pass the checks.
    assert libcst_internals.PROBLEM is None


def test_the_environment_variable_forces_the_public_api() -> None:
    script = "from mmlint.facts import libcst_internals as l; print(l.PROBLEM)"
    env = {**os.environ, libcst_internals.FORCE_PUBLIC_API: "1"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == f"{libcst_internals.FORCE_PUBLIC_API} is set"


def _outcomes() -> list[object]:
    files = sorted(FIXTURES.rglob("*.py"))
    assert len(files) > 50
    return [analyse_file(path.read_bytes(), path, str(path), DEFAULT_TWINS, Budgets()) for path in files]


def _diagnostics(monkeypatch) -> list[tuple[str, ...]]:
    monkeypatch.setenv("MMLINT_JOBS", "1")  # in this process, where the test chose the road
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    found = []
    for package in sorted(path for path in FIXTURES.iterdir() if path.is_dir()):
        report = check(cwd=package)
        found += [(package.name, d.path, d.code, str(d.span), d.message) for d in report.diagnostics]
    return found


@pytest.mark.slow  # every fixture, twice: about 4 s
def test_the_public_api_gives_the_same_facts_and_diagnostics(monkeypatch) -> None:
    private_outcomes, private_diagnostics = _outcomes(), _diagnostics(monkeypatch)
    monkeypatch.setattr(libcst_internals, "PROBLEM", "forced by the test")
    assert _outcomes() == private_outcomes
    assert _diagnostics(monkeypatch) == private_diagnostics
    assert any(code == "MM001" for _, _, code, _, _ in private_diagnostics)


def test_a_changed_codegen_state_is_noticed(monkeypatch) -> None:
    state = libcst_internals.CodegenState
    monkeypatch.setattr(state, "add_tokens", lambda self, values: None, raising=False)
    assert "methods changed: ['add_tokens']" in libcst_internals._problem()
    monkeypatch.delattr(state, "add_tokens")
    assert libcst_internals._problem() is None

    def codegen(self, state, **kwargs):
        self._codegen_impl(state, **kwargs)

    monkeypatch.setattr(cst.CSTNode, "_codegen", codegen)
    assert libcst_internals._problem() == "CSTNode._codegen does something else"


def test_a_state_that_places_nodes_differently_is_noticed(monkeypatch) -> None:
    add_token = libcst_internals.PositionState.add_token
    monkeypatch.setattr(libcst_internals.PositionState, "add_token", lambda self, value: add_token(self, value + " "))
    assert libcst_internals._problem().startswith("codegen places a ")

    def add_token_that_fails(self, value):
        raise AttributeError("no such field")

    monkeypatch.setattr(libcst_internals.PositionState, "add_token", add_token_that_fails)
    assert libcst_internals._problem() == "codegen through PositionState fails: AttributeError: no such field"


def test_the_flat_codegen_generates_what_libcsts_does(monkeypatch) -> None:
    monkeypatch.setattr(cst.CSTNode, "_codegen", libcst_internals.LIBCST_CODEGEN)  # restored afterwards
    sources, modules = [], []
    for path in sorted(FIXTURES.rglob("*.py")):
        try:
            modules.append(cst.parse_module(path.read_bytes()))
        except cst.ParserSyntaxError:  # the fixtures of files libcst cannot read
            continue
        sources.append(path.read_bytes())
    assert len(modules) > 50
    before = [module.bytes for module in modules]
    assert libcst_internals.flatten_codegen()
    assert cst.CSTNode.__dict__["_codegen"] is libcst_internals._flat_codegen
    assert libcst_internals.flatten_codegen()  # once is enough
    assert [module.bytes for module in modules] == before == sources
    elif_chain = cst.parse_module("if a:\n    pass\nelif b:\n    pass\n")
    assert elif_chain.code == "if a:\n    pass\nelif b:\n    pass\n"  # an elif's codegen takes is_elif


def test_a_flat_sum_of_800_terms_keeps_its_findings(tmp_path: Path) -> None:
    # CPython compiles it; libcst's codegen recursed past Python 3.12's fixed C stack limit.
    terms = " + ".join(["a"] * 800)
    source = f"async def f(self, a):\n    x = {terms}\n    await self.ready()\n    return self.process_and_combine_mm_data(x)\n"
    (tmp_path / "m.py").write_text(source, encoding="utf-8")
    report = check(["m.py"], cwd=tmp_path)
    assert [(d.code, d.span.line) for d in report.diagnostics] == [("MM001", 4)]


def _private_touches(path: Path) -> list[str]:
    """Imports of libcst's private modules, and uses of private codegen or
    construction hooks, in one module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("libcst._"):
            found.append(f"{path.name}:{node.lineno} imports {node.module}")
        elif isinstance(node, ast.Import):
            found += [
                f"{path.name}:{node.lineno} imports {a.name}" for a in node.names if a.name.startswith("libcst._")
            ]
        elif isinstance(node, ast.Attribute) and node.attr in ("_codegen", "_codegen_impl", "__post_init__"):
            found.append(f"{path.name}:{node.lineno} uses .{node.attr}")
    return found


def test_only_one_module_touches_libcsts_private_api() -> None:
    elsewhere = [touch for path in sorted(PACKAGE.rglob("*.py")) if path != OWNER for touch in _private_touches(path)]
    assert elsewhere == []
    assert _private_touches(OWNER)  # the check sees what it looks for
