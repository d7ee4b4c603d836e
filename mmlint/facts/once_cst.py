"""Once-per-object guards in a sync def, read with libcst for the full facts
(mmlint.facts.collect): the shapes mmlint.facts.once_ast documents, which
the light facts read with the standard library's ``ast``; the two agree."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from mmlint.facts.syntax import dotted_text

_NESTED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _statements(block: cst.BaseSuite) -> Sequence[cst.BaseStatement | cst.BaseSmallStatement]:
    return block.body


def _own_nodes(nodes: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Every node of these statements, not into nested defs, lambdas or classes."""
    stack: list[cst.CSTNode] = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed([child for child in node.children if not isinstance(child, _NESTED)]))


def _object_attribute(node: cst.CSTNode) -> str | None:
    """``self.a`` / ``cls.a``, or ``getattr(self, "a", ...)``, as ``self.a``."""
    text = dotted_text(node) if isinstance(node, cst.BaseExpression) else None
    if text is not None and text.count(".") == 1 and text.split(".")[0] in ("self", "cls"):
        return text
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "getattr" and len(node.args) >= 2:
        first, second = node.args[0].value, node.args[1].value
        if isinstance(first, cst.Name) and first.value in ("self", "cls") and isinstance(second, cst.SimpleString):
            value = second.evaluated_value
            if isinstance(value, str):
                return f"{first.value}.{value}"
    return None


def _assigned(nodes: Sequence[cst.CSTNode]) -> set[str]:
    found: set[str] = set()
    for node in _own_nodes(nodes):
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [target.target for target in node.targets]
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            targets = [node.target]
        for target in targets:
            text = dotted_text(target)
            if text is not None:
                found.add(text)
    return found


def _guarded(test: cst.BaseExpression) -> cst.BaseExpression | None:
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, cst.Is) and isinstance(target.comparator, cst.Name) and target.comparator.value == "None":
            return test.left
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return test.expression
    return None


def _is_lazy_init(node: cst.If, globals_: set[str]) -> bool:
    guarded = _guarded(node.test)
    if guarded is None:
        return False
    assigned = _assigned(_statements(node.body))
    stores = any(t.split(".")[0] in ("self", "cls") and t.count(".") == 1 for t in assigned) or bool(assigned & globals_)
    if not stores:
        return False
    text = dotted_text(guarded)
    if text is not None and text in assigned:
        return True
    attribute = _object_attribute(guarded)
    return attribute is not None and attribute in assigned


def _early_return_flag(node: cst.CSTNode) -> str | None:
    if not isinstance(node, cst.If) or node.orelse is not None:
        return None
    statements = _statements(node.body)
    if len(statements) != 1:
        return None
    only = statements[0]
    small = only.body if isinstance(only, cst.SimpleStatementLine) else [only] if isinstance(only, cst.BaseSmallStatement) else []
    if len(small) != 1 or not isinstance(small[0], cst.Return):
        return None
    value = small[0].value
    if value is not None and not isinstance(value, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return None
    if isinstance(value, cst.Name) and value.value not in ("None", "True", "False"):
        return None
    return _object_attribute(node.test)


def once_guarded_calls(function: cst.FunctionDef) -> set[int]:
    """ids of the cst.Call nodes of the def's own body that run once per object."""
    body = list(_statements(function.body))
    globals_ = {item.name.value for node in _own_nodes(body) if isinstance(node, cst.Global) for item in node.names}
    found: set[int] = set()
    for index, statement in enumerate(body):
        flag = _early_return_flag(statement)
        if flag is not None and flag in _assigned(body[index + 1 :]):
            found.update(id(node) for node in _own_nodes(body[index + 1 :]) if isinstance(node, cst.Call))
            break
    for node in _own_nodes(body):
        if isinstance(node, cst.If) and _is_lazy_init(node, globals_):
            found.update(id(inner) for inner in _own_nodes(_statements(node.body)) if isinstance(inner, cst.Call))
    return found
