"""Stub-like bodies: statements that only satisfy an interface. Looked at for
async defs only, top-level statements only (no walk of their own)."""

from __future__ import annotations

import libcst as cst

from mmlint.facts.syntax import is_stub_body

# Expressions a `return` may give and still be a stub: no work at all.
_CONSTANT_NODES = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)
_CONSTANT_NAMES = frozenset({"None", "True", "False"})


def is_stub_like_body(body: cst.BaseSuite, params: frozenset[str]) -> bool:
    """A stub body (docstring, `pass`, `...`, `raise NotImplementedError`)
    that may also `del` its own parameters and end in a constant `return`
    (a literal, `None`, `True`, `False`, an empty container)."""
    if isinstance(body, cst.SimpleStatementSuite):
        statements = list(body.body)
    else:
        statements = []
        for line in body.body:
            if not isinstance(line, cst.SimpleStatementLine):
                return False
            statements.extend(line.body)
    for statement in statements:
        if isinstance(statement, cst.Del):
            if not _deletes_only(statement.target, params):
                return False
        elif isinstance(statement, cst.Return):
            if statement.value is not None and not _is_constant(statement.value):
                return False
        elif not is_stub_body(cst.SimpleStatementSuite(body=(statement,))):
            return False
    return True


def _deletes_only(target: cst.BaseExpression, params: frozenset[str]) -> bool:
    if isinstance(target, cst.Name):
        return target.value in params
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(_deletes_only(element.value, params) for element in target.elements)
    return False


def _is_constant(value: cst.BaseExpression) -> bool:
    if isinstance(value, _CONSTANT_NODES):
        return True
    if isinstance(value, cst.Name):
        return value.value in _CONSTANT_NAMES
    if isinstance(value, cst.UnaryOperation):
        return isinstance(value.expression, (cst.Integer, cst.Float))
    if isinstance(value, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
        return not value.elements
    return False
