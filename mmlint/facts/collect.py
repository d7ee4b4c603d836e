"""One libcst visit per file, turned into plain FileFacts.

Positions come from libcst's PositionProvider. Scopes are tracked in the same
visit with libcst's per-attribute hooks (`visit_FunctionDef_body`, ...), which
mirror Python's scoping exactly: decorators, default values, base classes and
a comprehension's first iterable belong to the enclosing scope. That costs
nothing extra, where ScopeProvider and ParentNodeProvider each cost more than
the parse itself on large processor modules (benchmarks/scan.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m
from libcst.metadata import MetadataWrapper, PositionProvider

from mmlint.diagnostics import Owner, Span
from mmlint.facts import model
from mmlint.facts.model import TASK_WRAPPERS, AsyncDefFact, CallSite, FileFacts, TwinPair



def collect_facts(wrapper: MetadataWrapper, display_path: str, twins: tuple[TwinPair, ...]) -> FileFacts:
    visitor = FactVisitor(wrapper.module, display_path, twins)
    wrapper.visit(visitor)
    return visitor.facts()


def _span(code_range) -> Span:
    """libcst ranges are 1-based lines, 0-based columns, end exclusive."""
    return Span(code_range.start.line, code_range.start.column + 1, code_range.end.line, code_range.end.column + 1)


@dataclass(eq=False)
class _Scope:
    kind: str  # model.MODULE, CLASS, DEF, ASYNC_DEF, LAMBDA, COMPREHENSION, GENEXP
    node: object = None  # the def/lambda/class node, or a comprehension's _Comprehension
    suspends: bool = False  # await / async for / async with in its own body
    yields: bool = False


@dataclass(eq=False)
class _Comprehension:
    kind: str  # model.COMPREHENSION or model.GENEXP
    depth: int = field(default=0)  # CompFor nesting below it, to tell the first iterable apart


class FactVisitor(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

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
        self.module_names: set[str] = set()
        self.scopes: list[_Scope] = [_Scope(model.MODULE, module)]
        self.comprehensions: list[_Comprehension] = []
        self.ancestors: list[cst.CSTNode] = []  # the nodes being visited, outermost first

    def facts(self) -> FileFacts:
        return FileFacts(
            path=self.path,
            call_sites=tuple(self.call_sites),
            async_defs=tuple(self.async_defs),
            module_names=frozenset(self.module_names),
            newline=self.module.default_newline,
        )

    # -- the ancestor stack -----------------------------------------------------------

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.ancestors.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self.ancestors.pop()

    # -- scopes -------------------------------------------------------------------------

    def _push(self, kind: str, node: cst.CSTNode | None = None) -> None:
        self.scopes.append(_Scope(kind, node))

    def _pop(self) -> _Scope:
        return self.scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._bind_at_module_level(node.name.value)

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self._push(model.ASYNC_DEF if node.asynchronous is not None else model.DEF, node)

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        scope = self._pop()
        if node.asynchronous is not None:
            self.async_defs.append(self._async_def_fact(node, scope))

    def visit_Lambda_body(self, node: cst.Lambda) -> None:
        self._push(model.LAMBDA, node)

    def leave_Lambda_body(self, node: cst.Lambda) -> None:
        self._pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._bind_at_module_level(node.name.value)

    def visit_ClassDef_body(self, node: cst.ClassDef) -> None:
        self._push(model.CLASS, node)

    def leave_ClassDef_body(self, node: cst.ClassDef) -> None:
        self._pop()

    # Comprehensions: the element, targets, conditions and inner loops run in the
    # comprehension's scope; the first loop's iterable in the enclosing one.
    def _enter_comprehension(self, kind: str) -> None:
        self.comprehensions.append(_Comprehension(kind))

    def _leave_comprehension(self) -> None:
        self.comprehensions.pop()

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._enter_comprehension(model.COMPREHENSION)

    def leave_ListComp(self, node: cst.ListComp) -> None:
        self._leave_comprehension()

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._enter_comprehension(model.COMPREHENSION)

    def leave_SetComp(self, node: cst.SetComp) -> None:
        self._leave_comprehension()

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._enter_comprehension(model.COMPREHENSION)

    def leave_DictComp(self, node: cst.DictComp) -> None:
        self._leave_comprehension()

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._enter_comprehension(model.GENEXP)

    def leave_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._leave_comprehension()

    def _push_comprehension_scope(self, node: cst.CSTNode) -> None:
        # The scope's node is the comprehension's record, shared by its inner
        # loops, so that one comprehension counts once in a scope chain.
        comprehension = self.comprehensions[-1]
        self.scopes.append(_Scope(comprehension.kind, comprehension))

    visit_ListComp_elt = visit_SetComp_elt = visit_GeneratorExp_elt = _push_comprehension_scope
    visit_DictComp_key = visit_DictComp_value = _push_comprehension_scope
    visit_CompFor_target = visit_CompFor_ifs = visit_CompFor_inner_for_in = _push_comprehension_scope

    def _pop_comprehension_scope(self, node: cst.CSTNode) -> None:
        self._pop()

    leave_ListComp_elt = leave_SetComp_elt = leave_GeneratorExp_elt = _pop_comprehension_scope
    leave_DictComp_key = leave_DictComp_value = _pop_comprehension_scope
    leave_CompFor_target = leave_CompFor_ifs = leave_CompFor_inner_for_in = _pop_comprehension_scope

    # -- own-body facts of functions ----------------------------------------------------

    def _function_scope(self) -> _Scope | None:
        """The innermost def/lambda/class/module scope (comprehensions belong to it)."""
        for scope in reversed(self.scopes):
            if scope.kind not in (model.COMPREHENSION, model.GENEXP):
                return scope
        return None

    def _mark_suspension(self) -> None:
        scope = self._function_scope()
        if scope is not None:
            scope.suspends = True

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
        scope = self._function_scope()
        if scope is not None:
            scope.yields = True

    def _async_def_fact(self, node: cst.FunctionDef, scope: _Scope) -> AsyncDefFact:
        owner = self._owner() + (Owner(model.ASYNC_DEF, node.name.value),)
        start = self.get_metadata(PositionProvider, node).start
        name_end = self.get_metadata(PositionProvider, node.name).end
        return AsyncDefFact(
            name=node.name.value,
            qualname=_qualname(owner),
            span=Span(start.line, start.column + 1, name_end.line, name_end.column + 1),
            owner=owner,
            suspends_locally=scope.suspends,
            is_generator=scope.yields,
            is_stub=_is_stub_body(node.body),
            is_abstract=_has_decorator(node, "abstractmethod"),
            is_overload=_has_decorator(node, "overload"),
            in_protocol=self._in_protocol_class(),
        )

    def _in_protocol_class(self) -> bool:
        """Whether the function being left sits directly in a Protocol class body."""
        enclosing = self.scopes[-1]
        if enclosing.kind != model.CLASS or not isinstance(enclosing.node, cst.ClassDef):
            return False
        return any(_dotted_tail(_strip_subscript(base.value)) == "Protocol" for base in enclosing.node.bases)

    def _owner(self) -> tuple[Owner, ...]:
        """Enclosing classes and defs, outermost first."""
        return tuple(
            Owner(scope.kind, scope.node.name.value)
            for scope in self.scopes
            if scope.kind in (model.CLASS, model.DEF, model.ASYNC_DEF)
            and isinstance(scope.node, (cst.ClassDef, cst.FunctionDef))
        )

    # -- names bound at module level (for the bare-function fix) --------------------------

    def _bind_at_module_level(self, name: str) -> None:
        if len(self.scopes) == 1:
            self.module_names.add(name)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is not None and isinstance(node.asname.name, cst.Name):
            self._bind_at_module_level(node.asname.name.value)
        else:
            self._bind_at_module_level(_dotted_head(node.name))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        for name in _bound_names(node.target):
            self._bind_at_module_level(name)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        for name in _bound_names(node.target):
            self._bind_at_module_level(name)

    # -- twin call sites ------------------------------------------------------------------

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
        chain = self._scope_chain()
        owner = self._owner()
        call_range = self.get_metadata(PositionProvider, node)
        func_range = self.get_metadata(PositionProvider, func)
        parent = self.ancestors[-2] if len(self.ancestors) >= 2 else None
        self.call_sites.append(
            CallSite(
                span=Span(func_range.start.line, func_range.start.column + 1, call_range.end.line, call_range.end.column + 1),
                name_span=_span(self.get_metadata(PositionProvider, name_node)),
                callee=name_node.value,
                pair=pair,
                is_async_twin=is_async_twin,
                receiver=receiver,
                deciding_scope=chain[-1],
                scope_chain=chain,
                in_genexp=model.GENEXP in chain,
                awaited=isinstance(parent, cst.Await),
                in_task_wrapper=self._in_task_wrapper(node),
                in_fstring=self._in_fstring(),
                in_annotation=any(isinstance(a, cst.Annotation) for a in self._expression_ancestors()),
                callee_parenthesized=bool(func.lpar),
                needs_parens=_needs_parens(node, parent),
                delegation=any(o.kind == model.ASYNC_DEF and o.name == pair.async_ for o in owner),
                owner=owner,
            )
        )

    def _scope_chain(self) -> tuple[str, ...]:
        """Scope kinds from the call outward, comprehensions looked through, up to the
        first scope that decides whether `await` is allowed there."""
        chain: list[str] = []
        previous = None
        for scope in reversed(self.scopes):
            if scope.kind in (model.COMPREHENSION, model.GENEXP) and scope.node is previous:
                continue  # the inner loops of one comprehension are one scope
            previous = scope.node
            chain.append(scope.kind)
            if scope.kind not in (model.COMPREHENSION, model.GENEXP):
                break
        return tuple(chain)

    def _expression_ancestors(self):
        """Ancestors of the node being visited, innermost first, up to its statement."""
        for ancestor in reversed(self.ancestors[:-1]):
            if isinstance(ancestor, (cst.BaseStatement, cst.BaseSmallStatement)):
                return
            yield ancestor

    def _in_task_wrapper(self, node: cst.Call) -> bool:
        """An argument (at any depth within one expression) of a coroutine consumer
        such as asyncio.gather or loop.create_task; a lambda ends the search."""
        child: cst.CSTNode = node
        for ancestor in self._expression_ancestors():
            if isinstance(ancestor, cst.Lambda):
                return False
            if isinstance(ancestor, cst.Call) and child is not ancestor.func and _dotted_tail(ancestor.func) in TASK_WRAPPERS:
                return True
            child = ancestor
        return False

    def _in_fstring(self) -> bool:
        return any(isinstance(a, cst.FormattedString) for a in self._expression_ancestors())


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


def _dotted_head(expr: cst.BaseExpression) -> str:
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else ""


def _bound_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _bound_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _bound_names(target.value)
    return []


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
