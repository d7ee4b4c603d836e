"""The layers import one way: cli → api → check → rules → analysis → facts →
core, with config beside check importing only core, and fix, reporters,
audit, baseline and docs above the rules, and confirm (the pytest plugin,
which analyses through the api) between api and cli. Imports only for type annotations
(under ``if TYPE_CHECKING:``) do not count: they never run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mmlint.core.codes import RULE_NAMES
from mmlint.rules import all_rules

PACKAGE = Path(__file__).resolve().parent.parent / "mmlint"

# Lower ranks are lower layers; a module may import only its own room or lower ones.
RANK = {
    "core": 0,
    "facts": 1,
    "analysis": 2,
    "rules": 3,
    "config": 3,
    "check": 4,
    "fix": 5,
    "reporters": 5,
    "audit": 5,
    "baseline": 5,
    "docs": 5,
    "api": 6,
    "confirm": 6.5,
    "cli": 7,
    "server": 7,
    "__main__": 8,
}


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "mmlint"


def _runtime_imports(tree: ast.Module):
    """mmlint modules imported at run time (not under `if TYPE_CHECKING:`)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            skipped.update(id(child) for inner in node.body for child in ast.walk(inner))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mmlint."):
            yield node.module, node.lineno
        elif isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names if alias.name.startswith("mmlint."))


def _violations() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        room = _room(module)
        if room in ("__init__", "mmlint"):
            continue
        for imported, line in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            target = _room(imported)
            if target == room:
                continue
            if room == "config" and target != "core":
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line} config imports {imported}")
            elif RANK.get(target, 99) > RANK[room] or (target == "config" and RANK[room] < RANK["check"]):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line} {room} imports {imported}")
    return found


def _reaching_past(room: str, forbidden: str) -> list[str]:
    """Run-time imports of ``forbidden`` (a dotted prefix) by the modules of ``room``."""
    found = []
    for path in sorted((PACKAGE / room).rglob("*.py")):
        for imported, line in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if imported == forbidden or imported.startswith(forbidden + "."):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {imported}")
    return found


def test_the_command_line_reaches_the_engine_through_the_api() -> None:
    """mmlint.cli is mmlint.api's first caller: no mmlint.check module but
    through it (types for annotations, under TYPE_CHECKING, are fine)."""
    assert _reaching_past("cli", "mmlint.check") == []


def test_fix_does_not_import_the_rules() -> None:
    """A diagnostic carries its fix kind: the fixer needs no rule to look it up."""
    assert _reaching_past("fix", "mmlint.rules") == []


def _parsed_modules() -> dict[str, ast.Module]:
    return {
        ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def test_imports_run_one_way() -> None:
    assert _violations() == []


def _all_imports(module: str, tree: ast.Module, known: set[str]) -> set[str]:
    """The mmlint modules ``module`` imports, at run time or for types alike
    (``from mmlint.x import name`` counts as an import of ``mmlint.x.name``
    when that is a module, else of ``mmlint.x``)."""
    found: set[str] = set()
    package = module if module.endswith("__init__") else module.rpartition(".")[0]
    package = package.removesuffix(".__init__")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if not base.startswith("mmlint"):
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in known else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("mmlint"))
    return {name if name in known else f"{name}.__init__" for name in found} & known


def test_no_import_circle() -> None:
    """No two modules import each other, through any chain, not even for types
    only: a circle makes two files one unit that neither can be read without."""
    trees = _parsed_modules()
    known = set(trees)
    graph = {module: _all_imports(module, tree, known) - {module} for module, tree in trees.items()}
    # Tarjan's strongly connected components, iteratively.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    circles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        circles.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    assert circles == []


def test_every_room_is_ranked() -> None:
    rooms = {
        path.name if path.is_dir() else path.stem for path in PACKAGE.iterdir() if path.suffix == ".py" or path.is_dir()
    }
    rooms -= {"__init__", "__pycache__"}
    assert rooms <= set(RANK), rooms - set(RANK)


def test_the_rule_registry_and_the_code_catalogue_agree() -> None:
    assert {rule.code: rule.name for rule in all_rules()} == RULE_NAMES


@pytest.mark.parametrize(
    ("code", "level", "always_on", "baselinable"),
    [("MM001", "error", False, True), ("MM009", "warning", False, True), ("MM999", "error", True, False)],
)
def test_rules_declare_their_behaviour(code: str, level: str, always_on: bool, baselinable: bool) -> None:
    (rule,) = [rule for rule in all_rules() if rule.code == code]
    assert (rule.level, rule.always_on, rule.baselinable) == (level, always_on, baselinable)
