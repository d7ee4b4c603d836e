"""One libcst visit per file, turned into plain FileFacts.

Scopes come from libcst's ScopeProvider (which knows that decorators, default
values and a comprehension's first iterable belong to the enclosing scope);
positions from PositionProvider; parents from ParentNodeProvider.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m
from libcst.metadata import (
    ClassScope,
    ComprehensionScope,
    FunctionScope,
    GlobalScope,
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    Scope,
    ScopeProvider,
)

from mmlint.diagnostics import Owner, Span
from mmlint.facts import model
from mmlint.facts.model import AsyncDefFact, CallSite, FileFacts, TwinPair

# Coroutine consumers: a twin coroutine passed to one of these is not dropped (MM006).
TASK_WRAPPERS = frozenset(
    {"create_task", "gather", "ensure_future", "wait_for", "shield", "wait", "run_coroutine_threadsafe", "run_until_complete"}
)


def collect_facts(wrapper: MetadataWrapper, display_path: str, twins: tuple[TwinPair, ...]) -> FileFacts:
    visitor = _FactVisitor(wrapper.module, display_path, twins)
    wrapper.visit(visitor)
    global_scope = next(s for s in wrapper.resolve(ScopeProvider).values() if isinstance(s, GlobalScope))
    return FileFacts(
        path=display_path,
        call_sites=tuple(visitor.call_sites),
        async_defs=tuple(visitor.async_defs),
        module_names=frozenset(a.name for a in global_scope.assignments),
    )


def _span(code_range) -> Span:
    """libcst ranges are 1-based lines, 0-based columns, end exclusive."""
    return Span(code_range.start.line, code_range.start.column + 1, code_range.end.line, code_range.end.column + 1)


@dataclass
class _Frame:
    """A function or class being visited, for own-body facts (await, yield)."""

    node: cst.CSTNode
    suspends: bool = False
    yields: bool = False
    children: list = field(default_factory=list)


class _FactVisitor(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider, ScopeProvider, ParentNodeProvider)

    def __init__(self, module: cst.Module, display_path: str, twins: tuple[TwinPair, ...]) -> None:
        super().__init__()
        self.module = module
        self.path = display_path
        self.pairs: dict[str, tuple[TwinPair, bool]] = {}
        for pair in twins:
            self.pairs.setdefault(pair.sync, (pair, False))
            self.pairs.setdefault(pair.async_, (pair, True))
        self.call_sites: list[CallSite] = []
        self.async_defs: list[AsyncDefFact] = []
        self.frames: list[_Frame] = []

    # -- own-body facts of functions -------------------------------------------------

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.frames.append(_Frame(node))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        frame = self.frames.pop()
        if node.asynchronous is not None:
            self.async_defs.append(self._async_def_fact(node, frame))

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.frames.append(_Frame(node))

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self.frames.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.frames.append(_Frame(node))

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.frames.pop()

    def _mark_suspension(self) -> None:
        if self.frames:
            self.frames[-1].suspends = True

    def visit_Await(self, node: cst.Await) -> None:
        self._mark_suspension()

    def visit_For(self, node: cst.For) -> None:
        if node.asynchronous is not None:
            self._mark_suspension()

    def visit_With(self, node: cst.With) -> None:
        if node.asynchronous is not None:
            self._mark_suspension()

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if node.asynchronous is not None:
            self._mark_suspension()

    def visit_Yield(self, node: cst.Yield) -> None:
        if self.frames:
            self.frames[-1].yields = True

    def _async_def_fact(self, node: cst.FunctionDef, frame: _Frame) -> AsyncDefFact:
        owner = self._owner(node, include_self=True)
        start = self.get_metadata(PositionProvider, node).start
        name_end = self.get_metadata(PositionProvider, node.name).end
        return AsyncDefFact(
            name=node.name.value,
            qualname=_qualname(owner),
            span=Span(start.line, start.column + 1, name_end.line, name_end.column + 1),
            owner=owner,
            suspends_locally=frame.suspends,
            is_generator=frame.yields,
            is_stub=_is_stub_body(node.body),
            is_abstract=_has_decorator(node, "abstractmethod"),
            is_overload=_has_decorator(node, "overload"),
            in_protocol=self._in_protocol_class(node),
        )

    def _in_protocol_class(self, node: cst.FunctionDef) -> bool:
        parent = self._scope(node)
        if not isinstance(parent, ClassScope):
            return False
        class_def = parent.node
        return any(_dotted_tail(_strip_subscript(base.value)) == "Protocol" for base in class_def.bases)

    # -- twin call sites ---------------------------------------------------------------

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute):
            name_node, receiver = func.attr, self.module.code_for_node(func.value)
        elif isinstance(func, cst.Name):
            name_node, receiver = func, ""
        else:
            return
        entry = self.pairs.get(name_node.value)
        if entry is None:
            return
        pair, is_async_twin = entry
        chain, deciding = self._scope_chain(node)
        owner = self._owner(node, include_self=False)
        call_range = self.get_metadata(PositionProvider, node)
        func_range = self.get_metadata(PositionProvider, func)
        parent = self.get_metadata(ParentNodeProvider, node)
        self.call_sites.append(
            CallSite(
                span=Span(func_range.start.line, func_range.start.column + 1, call_range.end.line, call_range.end.column + 1),
                name_span=_span(self.get_metadata(PositionProvider, name_node)),
                callee=name_node.value,
                pair=pair,
                is_async_twin=is_async_twin,
                receiver=receiver,
                deciding_scope=deciding,
                scope_chain=chain,
                in_genexp=model.GENEXP in chain,
                awaited=isinstance(parent, cst.Await),
                in_task_wrapper=self._in_task_wrapper(node),
                needs_parens=_needs_parens(node, parent),
                delegation=any(o.kind == model.ASYNC_DEF and o.name == pair.async_ for o in owner),
                owner=owner,
            )
        )

    def _scope(self, node: cst.CSTNode) -> Scope | None:
        return self.get_metadata(ScopeProvider, node, None)

    def _scope_chain(self, node: cst.CSTNode) -> tuple[tuple[str, ...], str]:
        """Scope kinds from the node outward, comprehensions looked through, up to the
        first scope that decides whether `await` is allowed."""
        chain: list[str] = []
        scope = self._scope(node)
        while scope is not None:
            kind = _scope_kind(scope)
            chain.append(kind)
            if kind not in (model.COMPREHENSION, model.GENEXP):
                return tuple(chain), kind
            scope = scope.parent
        return tuple(chain) or (model.MODULE,), model.MODULE

    def _owner(self, node: cst.CSTNode, *, include_self: bool) -> tuple[Owner, ...]:
        """Enclosing classes and defs, outermost first."""
        owners: list[Owner] = []
        if include_self and isinstance(node, cst.FunctionDef):
            owners.append(_owner_of(node))
        scope = self._scope(node)
        while scope is not None and not isinstance(scope, GlobalScope):
            if isinstance(scope.node, (cst.FunctionDef, cst.ClassDef)):
                owners.append(_owner_of(scope.node))
            scope = scope.parent
        return tuple(reversed(owners))

    def _in_task_wrapper(self, node: cst.CSTNode) -> bool:
        """Whether the call is an argument (at any depth within one expression) of a
        coroutine consumer such as asyncio.gather or loop.create_task."""
        child, parent = node, self.get_metadata(ParentNodeProvider, node)
        while parent is not None and not isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement, cst.Lambda)):
            if isinstance(parent, cst.Call) and child is not parent.func and _dotted_tail(parent.func) in TASK_WRAPPERS:
                return True
            child, parent = parent, self.get_metadata(ParentNodeProvider, parent, None)
        return False


def _scope_kind(scope: Scope) -> str:
    if isinstance(scope, GlobalScope):
        return model.MODULE
    if isinstance(scope, ClassScope):
        return model.CLASS
    if isinstance(scope, ComprehensionScope):
        return model.GENEXP if isinstance(scope.node, cst.GeneratorExp) else model.COMPREHENSION
    if isinstance(scope, FunctionScope):
        if isinstance(scope.node, cst.Lambda):
            return model.LAMBDA
        return model.ASYNC_DEF if scope.node.asynchronous is not None else model.DEF
    return model.MODULE


def _owner_of(node: cst.FunctionDef | cst.ClassDef) -> Owner:
    if isinstance(node, cst.ClassDef):
        return Owner(model.CLASS, node.name.value)
    return Owner(model.ASYNC_DEF if node.asynchronous is not None else model.DEF, node.name.value)


def _qualname(owner: tuple[Owner, ...]) -> str:
    parts: list[str] = []
    for index, part in enumerate(owner):
        parts.append(part.name)
        if part.kind != model.CLASS and index < len(owner) - 1:
            parts.append("<locals>")
    return ".".join(parts)


def _needs_parens(node: cst.Call, parent: cst.CSTNode | None) -> bool:
    """`await` binds looser than a trailer: `(await x())[0]`, `(await x()).a`, `(await x())()`.
    A call already in parentheses keeps them and needs no more."""
    if node.lpar:
        return False
    if isinstance(parent, (cst.Attribute, cst.Subscript)):
        return parent.value is node
    if isinstance(parent, cst.Call):
        return parent.func is node
    return False


def _dotted_tail(expr: cst.BaseExpression) -> str:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return ""


def _strip_subscript(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.value if isinstance(expr, cst.Subscript) else expr


def _has_decorator(node: cst.FunctionDef, name: str) -> bool:
    for decorator in node.decorators:
        target = decorator.decorator
        if isinstance(target, cst.Call):
            target = target.func
        if _dotted_tail(target) == name:
            return True
    return False


_STUB_STATEMENT = (
    m.Pass()
    | m.Expr(m.Ellipsis() | m.SimpleString() | m.ConcatenatedString())
    | m.Raise(exc=m.Name("NotImplementedError") | m.Call(func=m.Name("NotImplementedError")))
)


def _is_stub_body(body: cst.BaseSuite) -> bool:
    """Docstring, `pass`, `...` and `raise NotImplementedError` only."""
    if isinstance(body, cst.SimpleStatementSuite):
        small_statements = list(body.body)
    else:
        small_statements = []
        for statement in body.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                return False
            small_statements.extend(statement.body)
    return all(m.matches(small, _STUB_STATEMENT) for small in small_statements)
