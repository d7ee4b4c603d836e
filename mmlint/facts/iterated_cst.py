"""Calls whose value is iterated where they are written, read with libcst for
the full facts (mmlint.facts.collect): the shapes mmlint.facts.iterated_ast
documents, which the light facts read with the standard library's ``ast``;
the two agree."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from mmlint.facts.iterated_ast import CONSUMERS, CONSUMING_METHODS, WRAPPERS

_NESTED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _own_nodes(nodes: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    stack: list[cst.CSTNode] = [node for node in reversed(nodes) if not isinstance(node, _NESTED)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed([child for child in node.children if not isinstance(child, _NESTED)]))


def _called_name(call: cst.Call) -> tuple[str, bool]:
    if isinstance(call.func, cst.Name):
        return call.func.value, False
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value, True
    return "", False


def _positional(call: cst.Call) -> list[cst.BaseExpression]:
    return [arg.value for arg in call.args if arg.keyword is None and arg.star != "**"]


def _iterated_roots(body: Sequence[cst.CSTNode]) -> list[cst.BaseExpression]:
    roots: list[cst.BaseExpression] = []
    for node in _own_nodes(body):
        if isinstance(node, (cst.For, cst.CompFor)):
            roots.append(node.iter)
        elif isinstance(node, cst.Yield) and isinstance(node.value, cst.From):
            roots.append(node.value.item)
        elif isinstance(node, cst.Return) and node.value is not None:
            roots.append(node.value)
        elif isinstance(node, cst.Call):
            name, method = _called_name(node)
            if (not method and name in CONSUMERS) or (method and name in CONSUMING_METHODS):
                roots.extend(_positional(node))
    return roots


def is_generator_function(function: cst.FunctionDef) -> bool:
    """A `yield` or `yield from` in the def's own body."""
    return any(isinstance(node, cst.Yield) for node in _own_nodes(function.body.children))


def iterated_calls(function: cst.FunctionDef) -> set[int]:
    """ids of the cst.Call nodes of the def's own body whose value is iterated there."""
    body = list(function.body.children)
    roots = _iterated_roots(body)
    names = {root.value for root in roots if isinstance(root, cst.Name)}
    if names:
        for node in _own_nodes(body):
            if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                if node.targets[0].target.value in names:
                    roots.append(node.value)
    found: set[int] = set()
    while roots:
        root = roots.pop()
        if not isinstance(root, cst.Call) or id(root) in found:
            continue
        found.add(id(root))
        name, method = _called_name(root)
        if not method and name in WRAPPERS:
            roots.extend(_positional(root))
    return found
