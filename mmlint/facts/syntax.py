"""Small questions about libcst nodes, asked by the collector and the IR
builder: dotted names, bound names, stub bodies, decorators."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from mmlint.facts.model import (
    KEYWORD_ONLY,
    POSITIONAL_ONLY,
    POSITIONAL_OR_KEYWORD,
    TASK_WRAPPERS,
    VAR_KEYWORD,
    VAR_POSITIONAL,
    Parameter,
)
from mmlint.facts.shape_words import NOT_IMPLEMENTED as _NOT_IMPLEMENTED

# An ancestor chain as the collector's walk keeps it: (node, parent's chain), None above the module.
Link = tuple[cst.CSTNode, "Link | None"]


def dotted_text(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of names, else None."""
    # Exact type tests: libcst's nodes are ABCs, whose isinstance costs several
    # times as much, and the parser builds these classes themselves.
    parts: list[str] = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def dotted_tail(expr: cst.BaseExpression) -> str:
    """The last name of ``a.b.c`` or ``c``; "" for anything else."""
    if type(expr) is cst.Name:
        return expr.value
    if type(expr) is cst.Attribute:
        return expr.attr.value
    return ""


def stored_names(target: cst.CSTNode) -> list[str]:
    """Names an assignment target binds: through tuples, lists and starred
    elements, not into attributes or subscripts."""
    if type(target) is cst.Name:
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in stored_names(element.value)]
    if type(target) is cst.StarredElement:
        return stored_names(target.value)
    return []


def import_head(alias: cst.ImportAlias) -> str | None:
    """The name an import alias binds: ``as`` name, else the first dotted part."""
    if alias.asname is not None:
        return alias.asname.name.value if isinstance(alias.asname.name, cst.Name) else None
    text = dotted_text(alias.name)
    return text.split(".")[0] if text else None


def _decorator_targets(node: cst.FunctionDef) -> Iterator[cst.BaseExpression]:
    for decorator in node.decorators:
        target = decorator.decorator
        yield target.func if isinstance(target, cst.Call) else target


def has_decorator(node: cst.FunctionDef, *names: str) -> bool:
    """A decorator whose last dotted name is one of ``names``, called or not."""
    return any(dotted_tail(target) in names for target in _decorator_targets(node))


def is_abstract(node: cst.FunctionDef) -> bool:
    return has_decorator(node, "abstractmethod", "abstractproperty")


def is_overload(node: cst.FunctionDef) -> bool:
    return has_decorator(node, "overload")


# Decorators that leave calling the coroutine function as it is.
TRANSPARENT_DECORATORS = frozenset(
    {"staticmethod", "classmethod", "abstractmethod", "abstractproperty", "override", "overload", "final", "wraps"}
)


def opaque_decorators(node: cst.FunctionDef) -> tuple[str, ...]:
    found = []
    for target in _decorator_targets(node):
        text = dotted_text(target) or "<expr>"
        if text.split(".")[-1] not in TRANSPARENT_DECORATORS:
            found.append(text)
    return tuple(found)


def _is_stub_statement(item: cst.CSTNode) -> bool:
    if isinstance(item, cst.Pass):
        return True
    if isinstance(item, cst.Expr):
        return isinstance(item.value, (cst.Ellipsis, cst.SimpleString, cst.ConcatenatedString))
    if isinstance(item, cst.Raise) and item.exc is not None:
        exc = item.exc.func if isinstance(item.exc, cst.Call) else item.exc
        return dotted_text(exc) in _NOT_IMPLEMENTED
    return False


def is_stub_body(body: cst.BaseSuite) -> bool:
    """Docstrings, `pass`, `...` and `raise NotImplementedError` only."""
    if isinstance(body, cst.SimpleStatementSuite):
        return all(_is_stub_statement(item) for item in body.body)
    for statement in body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        if not all(_is_stub_statement(item) for item in statement.body):
            return False
    return True


def parameters_of(params: cst.Parameters) -> tuple[Parameter, ...]:
    """The parameters of a def or lambda, in order, with their kinds."""
    found = [_parameter(p, POSITIONAL_ONLY) for p in params.posonly_params]
    found += [_parameter(p, POSITIONAL_OR_KEYWORD) for p in params.params]
    if isinstance(params.star_arg, cst.Param):
        found.append(Parameter(params.star_arg.name.value, VAR_POSITIONAL, False))
    found += [_parameter(p, KEYWORD_ONLY) for p in params.kwonly_params]
    if params.star_kwarg is not None:
        found.append(Parameter(params.star_kwarg.name.value, VAR_KEYWORD, False))
    return tuple(found)


_EMPTY_MODULE = cst.Module(body=[])


def _parameter(param: cst.Param, kind: str) -> Parameter:
    default = "" if param.default is None else _expression_text(param.default)
    annotation = "" if param.annotation is None else _expression_text(param.annotation.annotation)
    return Parameter(param.name.value, kind, param.default is not None, default, annotation)


def _expression_text(node: cst.BaseExpression) -> str:
    # The common cases are leaves and dotted names; only other expressions pay for codegen.
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)) and not node.lpar:
        return node.value
    return dotted_text(node) or _EMPTY_MODULE.code_for_node(node)


def needs_parens(node: cst.Call, parent: cst.CSTNode | None) -> bool:
    """`await` binds looser than a trailer: `(await x())[0]`, `(await x()).a`, `(await x())()`.
    A call already in parentheses keeps them and needs no more."""
    if node.lpar:
        return False
    if isinstance(parent, (cst.Attribute, cst.Subscript)):
        return parent.value is node
    if isinstance(parent, cst.Call):
        return parent.func is node
    return False


def short_text(node: cst.CSTNode) -> str:
    """``f(...)`` style text of a call, for messages."""
    if isinstance(node, cst.Call):
        func = dotted_text(node.func)
        if func is None and isinstance(node.func, cst.Attribute):
            func = f"{short_text(node.func.value)}.{node.func.attr.value}"
        return f"{func or '<expr>'}({'...' if node.args else ''})"
    text = dotted_text(node) if isinstance(node, cst.BaseExpression) else None
    return text or "<expr>"


def callee_name(call: cst.Call) -> cst.Name | None:
    """The name token a call's callee ends with (``f`` in ``f()``, ``x.f()``)."""
    func = call.func
    if type(func) is cst.Attribute:
        return func.attr
    return func if type(func) is cst.Name else None


def expression_flags(call: cst.Call, link: Link) -> tuple[bool, bool, bool]:
    """(an argument of a coroutine consumer such as `asyncio.gather`, in an
    f-string, in an annotation), from the expression around a call up to its
    statement. ``link`` is the walk's ancestor chain of the call; a lambda ends
    the search for a consumer."""
    in_task_wrapper = in_fstring = in_annotation = False
    searching_wrapper = True
    child: cst.CSTNode = call
    ancestor_link = link[1]
    while ancestor_link is not None:
        ancestor = ancestor_link[0]
        if isinstance(ancestor, (cst.BaseStatement, cst.BaseSmallStatement)):
            break
        if type(ancestor) is cst.Lambda:
            searching_wrapper = False
        elif type(ancestor) is cst.FormattedString:
            in_fstring = True
        elif type(ancestor) is cst.Annotation:
            in_annotation = True
        elif (
            searching_wrapper
            and type(ancestor) is cst.Call
            and child is not ancestor.func
            and dotted_tail(ancestor.func) in TASK_WRAPPERS
        ):
            in_task_wrapper = True
            searching_wrapper = False
        child = ancestor
        ancestor_link = ancestor_link[1]
    return in_task_wrapper, in_fstring, in_annotation


def call_place_flags(call: cst.Call, link: Link) -> tuple[bool, bool, bool, bool, bool]:
    """(awaited, needs parentheses under `await`, in an f-string, in an
    annotation, an argument of a coroutine consumer): the expression around a
    call up to its statement."""
    parent = link[1][0] if link[1] is not None else None
    in_task_wrapper, in_fstring, in_annotation = expression_flags(call, link)
    return isinstance(parent, cst.Await), needs_parens(call, parent), in_fstring, in_annotation, in_task_wrapper


def receiver_chain(func: cst.Attribute) -> str:
    """The attribute chain of a method on a computed receiver, with the call
    it starts from: ``self.get_tokenizer().encode`` → ``get_tokenizer().encode``,
    ``"x".encode`` → ``encode``."""
    parts = [func.attr.value]
    node = func.value
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Call):
        name = dotted_tail(node.func)
        if name:
            parts.append(f"{name}()")
    return ".".join(reversed(parts))
