"""Calls whose value is iterated where they are written, read with the
standard library's ``ast`` (mmlint.facts.light); mmlint.facts.iterated_cst
reads the same shapes with libcst for the full facts, and the two agree.

Calling a generator function only creates a generator: its body runs where
the generator is iterated. A call's value is iterated in the def's own body
when it is

- the iterable of a ``for`` or of a comprehension (``for x in gen()``);
- the operand of ``yield from``, or returned (the caller iterates it);
- an argument of a builtin that consumes an iterable (``list``, ``tuple``,
  ``set``, ``frozenset``, ``dict``, ``sorted``, ``sum``, ``any``, ``all``,
  ``min``, ``max``, ``next``) or of ``.join`` / ``.extend``;
- an argument of a lazy wrapper (``enumerate``, ``zip``, ``iter``,
  ``reversed``, ``map``, ``filter``) whose own value is iterated;
- assigned to a local name that is iterated so in the same body.

A call of a generator function in none of these places runs none of its
body there (CallRef.iterated / CallFact.iterated; mmlint.analysis.weight)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
# Builtins that iterate their argument to the end (or, `next`, one step).
CONSUMERS = frozenset({"list", "tuple", "set", "frozenset", "dict", "sorted", "sum", "any", "all", "min", "max", "next"})
CONSUMING_METHODS = frozenset({"join", "extend"})
# Builtins that wrap an iterable lazily: iterated when they are.
WRAPPERS = frozenset({"enumerate", "zip", "iter", "reversed", "map", "filter"})


def _own_nodes(nodes: list[ast.stmt]) -> Iterator[ast.AST]:
    stack: list[ast.AST] = [node for node in reversed(nodes) if not isinstance(node, _NESTED)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, _NESTED))


def _called_name(call: ast.Call) -> tuple[str, bool]:
    """The callee's last name, and whether it is a method (an attribute)."""
    if isinstance(call.func, ast.Name):
        return call.func.id, False
    if isinstance(call.func, ast.Attribute):
        return call.func.attr, True
    return "", False


def _iterated_roots(body: list[ast.stmt]) -> list[ast.expr]:
    roots: list[ast.expr] = []
    for node in _own_nodes(body):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            roots.append(node.iter)
        elif isinstance(node, (ast.YieldFrom, ast.Return)) and node.value is not None:
            roots.append(node.value)
        elif isinstance(node, ast.Call):
            name, method = _called_name(node)
            if (not method and name in CONSUMERS) or (method and name in CONSUMING_METHODS):
                roots.extend(arg.value if isinstance(arg, ast.Starred) else arg for arg in node.args)
    return roots


def is_generator_function(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A `yield` or `yield from` in the def's own body."""
    return any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in _own_nodes(function.body))


def iterated_calls(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """ids of the ast.Call nodes of the def's own body whose value is iterated there."""
    body = function.body
    roots = _iterated_roots(body)
    names = {root.id for root in roots if isinstance(root, ast.Name)}
    if names:
        for node in _own_nodes(body):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                if node.targets[0].id in names:
                    roots.append(node.value)
    found: set[int] = set()
    while roots:
        root = roots.pop()
        if not isinstance(root, ast.Call) or id(root) in found:
            continue
        found.add(id(root))
        name, method = _called_name(root)
        if not method and name in WRAPPERS:
            roots.extend(arg for arg in root.args if not isinstance(arg, ast.Starred))
    return found
