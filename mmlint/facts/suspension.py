"""Per-file facts for the cross-file suspension analysis (MM004-MM007, audit).

`collect_suspension` runs one more visitor over the same libcst MetadataWrapper
the collector already built, and returns plain frozen data: the module's dotted
name, its imports, classes and functions, and for every ``async def`` a small
control-flow IR of its own body whose leaves are suspension points. Everything
that needs another file (what an awaited callee is, whether it suspends) is
left to mmlint.analysis.

Only PositionProvider is used. Scopes and ancestors are tracked by the visit
itself (as in mmlint.facts.collect): libcst's ScopeProvider and
ParentNodeProvider each cost more than the parse on large modules.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from mmlint.diagnostics import Owner, Span
from mmlint.facts.model import TASK_WRAPPERS

# ---------------------------------------------------------------- references


# Kinds of callee reference. NAME: a bare name bound at module level (or
# imported); DOTTED: ``a.b.f`` whose first part may be a module alias or a class;
# SELF / CLS / SUPER: a method looked up along the enclosing class's MRO;
# UNKNOWN: anything else (a local variable, a subscript, a call result...).
NAME = "name"
DOTTED = "dotted"
SELF = "self"
CLS = "cls"
SUPER = "super"
UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class CalleeRef:
    kind: str
    text: str  # "f", "m.f", "x" (the attribute after self./cls./super().), or the source text

    def describe(self) -> str:
        if self.kind == SELF:
            return f"self.{self.text}"
        if self.kind == CLS:
            return f"cls.{self.text}"
        if self.kind == SUPER:
            return f"super().{self.text}"
        return self.text


# ---------------------------------------------------------------- the IR
# Nodes of an async def's control flow. Leaves are suspension points and exits;
# the rest is structure. Plain tuples of frozen dataclasses, so picklable.


@dataclass(frozen=True, slots=True)
class AwaitPoint:
    """`await <expr>`: suspends iff the awaited callee does (index into awaits)."""

    index: int


@dataclass(frozen=True, slots=True)
class AsyncLoopOrContext:
    """`async for` / `async with`: always a suspension point."""

    kind: str  # "async for" | "async with"


@dataclass(frozen=True, slots=True)
class Exit:
    kind: str  # "return" | "raise"


@dataclass(frozen=True, slots=True)
class Jump:
    kind: str  # "break" | "continue"


@dataclass(frozen=True, slots=True)
class Seq:
    items: tuple["Node", ...]


@dataclass(frozen=True, slots=True)
class Branch:
    """Exactly one arm runs (if/elif/else, match cases, a conditional operand);
    a missing else is an empty arm."""

    arms: tuple["Node", ...]


@dataclass(frozen=True, slots=True)
class Loop:
    """`for`/`while`: the body runs zero or more times; an ``infinite`` loop
    (``while True``) runs it at least once and leaves only through ``break``."""

    body: "Node"
    orelse: "Node"
    infinite: bool


@dataclass(frozen=True, slots=True)
class Try:
    body: "Node"
    handlers: tuple["Node", ...]
    orelse: "Node"
    finalbody: "Node"


Node = Union[AwaitPoint, AsyncLoopOrContext, Exit, Jump, Seq, Branch, Loop, Try]
EMPTY = Seq(())


# ---------------------------------------------------------------- per-def facts


@dataclass(frozen=True, slots=True)
class AwaitFact:
    span: Span  # the `await` keyword to the end of the awaited expression
    callee: CalleeRef | None  # None: the awaited expression is not a call
    text: str  # short source text for messages: "preprocess(...)"


@dataclass(frozen=True, slots=True)
class CallFact:
    """A call made directly in an async def's own body (for MM005)."""

    span: Span  # the callee expression's first character to the closing paren
    dotted: str  # callee resolved through the file's imports: "time.sleep", "<expr>.read"
    future_result: bool  # `.result()` on a future from `.submit(...)` or concurrent.futures


@dataclass(frozen=True, slots=True)
class TimeoutFact:
    """`asyncio.wait_for(<call>, t)` or `async with asyncio.timeout(t):` (MM007)."""

    kind: str  # "wait_for" | "timeout"
    span: Span
    callee: CalleeRef | None  # wait_for: the wrapped call's callee (None if not a call)
    body: "Node"  # timeout: the IR of the with-body; wait_for: EMPTY
    text: str


@dataclass(frozen=True, slots=True)
class AsyncDefInfo:
    name: str
    qualname: str  # "Class.method", "function", "outer.<locals>.inner"
    class_name: str | None  # the class it is a method of (directly in the class body)
    owner: tuple[Owner, ...]  # enclosing definitions, the function itself last (for exemptions)
    line: int  # line of the `async` keyword
    span: Span  # `async` keyword to the end of the name
    is_stub: bool  # body only docstring / pass / ... / raise NotImplementedError
    is_abstract: bool
    is_generator: bool
    # Dotted text of decorators other than the known-transparent ones
    # (staticmethod, classmethod, abstractmethod, override...): a decorator may
    # replace the coroutine with something that behaves differently.
    opaque_decorators: tuple[str, ...]
    body: Node
    awaits: tuple[AwaitFact, ...]
    calls: tuple[CallFact, ...]
    timeouts: tuple[TimeoutFact, ...]


@dataclass(frozen=True, slots=True)
class ClassInfo:
    name: str
    bases: tuple[str, ...]  # dotted reference text; "" for a base that is not a dotted name
    methods: tuple[str, ...]  # every name defined by def / async def in the class body
    line: int


@dataclass(frozen=True, slots=True)
class ImportFact:
    """One name an import binds. ``target`` is dotted; for a relative import it
    is relative to ``anchor``, the absolute path parts of the package directory
    the dots lead to (``()`` for an absolute import)."""

    local: str
    target: str
    anchor: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SuspensionFacts:
    module: str  # dotted module name ("pkg.sub.mod"; "pkg.sub" for a package __init__)
    is_package: bool
    path: str  # display path
    # Absolute path parts of the module, suffix dropped (the directory for a
    # package __init__): how imports find it when its parents are namespace
    # packages or lie outside the scan.
    module_path: tuple[str, ...]
    imports: tuple[ImportFact, ...]
    classes: tuple[ClassInfo, ...]
    functions: tuple[str, ...]  # module-level def / async def names
    module_names: tuple[str, ...]  # other module-level bindings (assignments), which shadow imports
    async_defs: tuple[AsyncDefInfo, ...]
    # Spans of calls whose coroutine is kept: assigned to a name awaited or
    # wrapped in a task later in the same function, or returned from a sync scope.
    kept_coroutine_calls: tuple[Span, ...]


# ---------------------------------------------------------------- helpers

TIMEOUT_CONTEXTS = frozenset({"asyncio.timeout", "asyncio.timeout_at", "async_timeout.timeout"})
FUTURE_FACTORIES = frozenset({"concurrent.futures.Future", "asyncio.run_coroutine_threadsafe"})


def module_name_for(real_path: Path) -> tuple[str, bool]:
    """The dotted module name of a file, walking up directories holding
    ``__init__.py``; and whether the file is a package ``__init__``."""
    real_path = real_path.resolve()
    is_package = real_path.stem == "__init__"
    parts: list[str] = [] if is_package else [real_path.stem]
    directory = real_path.parent
    while (directory / "__init__.py").exists() or (directory / "__init__.pyi").exists():
        parts.insert(0, directory.name)
        if directory.parent == directory:
            break
        directory = directory.parent
    if not parts:  # a lone __init__.py outside any package
        parts = [real_path.parent.name]
    return ".".join(parts), is_package


def dotted_text(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of names, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = dotted_text(node.value)
        return None if inner is None else f"{inner}.{node.attr.value}"
    return None


def relative_anchor(real_path: Path, level: int) -> tuple[str, ...] | None:
    """The absolute path parts of the package ``from <level dots> import``
    starts from: the file's directory, then one up per extra dot."""
    directory = real_path.resolve().parent
    for _ in range(level - 1):
        if directory.parent == directory:
            return None
        directory = directory.parent
    return directory.parts


def _is_stub_body(body: cst.BaseSuite) -> bool:
    if not isinstance(body, cst.IndentedBlock):
        statements = [body]
    else:
        statements = list(body.body)
    for index, stmt in enumerate(statements):
        if isinstance(stmt, cst.SimpleStatementLine):
            small = stmt.body
        elif isinstance(stmt, cst.SimpleStatementSuite):
            small = stmt.body
        else:
            return False
        for item in small:
            if isinstance(item, cst.Pass):
                continue
            if isinstance(item, cst.Expr) and isinstance(item.value, cst.Ellipsis):
                continue
            if isinstance(item, cst.Expr) and isinstance(item.value, (cst.SimpleString, cst.ConcatenatedString)) and index == 0:
                continue
            if isinstance(item, cst.Raise) and item.exc is not None:
                exc = item.exc.func if isinstance(item.exc, cst.Call) else item.exc
                if dotted_text(exc) in ("NotImplementedError", "builtins.NotImplementedError"):
                    continue
            return False
    return True


# Decorators that leave calling the coroutine function as it is.
TRANSPARENT_DECORATORS = frozenset(
    {"staticmethod", "classmethod", "abstractmethod", "override", "overload", "final", "wraps"}
)


def _opaque_decorators(node: cst.FunctionDef) -> tuple[str, ...]:
    found = []
    for decorator in node.decorators:
        expression = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        text = dotted_text(expression) or "<expr>"
        if text.split(".")[-1] not in TRANSPARENT_DECORATORS:
            found.append(text)
    return tuple(found)


def _is_abstract(node: cst.FunctionDef) -> bool:
    for decorator in node.decorators:
        text = dotted_text(decorator.decorator)
        if text and text.split(".")[-1] in ("abstractmethod", "abstractproperty"):
            return True
    return False


# ---------------------------------------------------------------- name scopes
# Whether a callee's head name is bound inside a function decides between a
# reference to a module-level definition and UNKNOWN. The model below follows
# libcst's ScopeProvider, which this module used before, rule for rule, so the
# answers stay the same: class bodies are invisible to the scopes nested in
# them, comprehensions and PEP 695 annotation scopes are scopes of their own,
# `global` / `nonlocal` redirect a name's bindings, and a name found nowhere
# but in builtins counts as bound (it is no module-level definition either).
# A binding anywhere in a scope counts, even one textually after the use.

GLOBAL_SCOPE = "global"
FUNCTION_SCOPE = "function"  # def and lambda
CLASS_SCOPE = "class"
COMPREHENSION_SCOPE = "comprehension"
ANNOTATION_SCOPE = "annotation"  # PEP 695 type parameters and `type X = ...`


@dataclass(eq=False)
class _Scope:
    kind: str
    parent: "_Scope | None"  # None for the module
    bound: set[str] = field(default_factory=set)
    # `global x` / `nonlocal x` in this scope: the scope x's bindings go to.
    declared: dict[str, "_Scope"] = field(default_factory=dict)

    def visible_from(self, user: "_Scope") -> bool:
        """A class body's names are seen only by its own type-parameter scopes."""
        if self.kind != CLASS_SCOPE:
            return True
        return user.kind == ANNOTATION_SCOPE and user.parent is self


def _first_visible(start: _Scope, user: _Scope) -> _Scope:
    scope = start
    while not scope.visible_from(user):
        assert scope.parent is not None  # the module scope is always visible
        scope = scope.parent
    return scope


def _bind(scope: _Scope, name: str) -> None:
    """Record a binding of ``name`` made in ``scope``."""
    target = scope
    while name in target.declared:
        target = _first_visible(target.declared[name], target)
    target.bound.add(name)


_BUILTINS = object()  # marker: the name resolves to a builtin


def _binding_scope(user: _Scope, name: str) -> "_Scope | object | None":
    """The scope whose bindings a use of ``name`` in ``user`` sees (or
    _BUILTINS, or None when the name is bound nowhere)."""
    scope = user
    while True:
        if scope.kind == GLOBAL_SCOPE:
            if name in scope.bound:
                return scope
            return _BUILTINS if hasattr(builtins, name) else None
        if name in scope.declared:
            scope = _first_visible(scope.declared[name], user)
            continue
        if name in scope.bound:
            return scope
        assert scope.parent is not None
        scope = _first_visible(scope.parent, user)


def _stored_names(target: cst.CSTNode) -> list[str]:
    """Names an assignment target binds: through tuples, lists and starred
    elements, not into attributes or subscripts."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Attribute, cst.Subscript)):
        return []
    return [name for child in target.children for name in _stored_names(child)]


def _import_head(alias: cst.ImportAlias) -> str | None:
    """The name an import alias binds: ``as`` name, else the first dotted part."""
    if alias.asname is not None:
        return alias.asname.name.value if isinstance(alias.asname.name, cst.Name) else None
    text = dotted_text(alias.name)
    return text.split(".")[0] if text else None


@dataclass
class _Frame:
    """What one scope's own body holds, recorded during the single visit.
    Lambdas and classes get a frame too, so their contents are not
    attributed to the enclosing function."""

    node: cst.CSTNode
    awaits: list[cst.Await] = field(default_factory=list)
    async_comps: list[cst.CompFor] = field(default_factory=list)
    calls: list[cst.Call] = field(default_factory=list)
    assigns: list[cst.Assign] = field(default_factory=list)
    returns: list[cst.Return] = field(default_factory=list)
    is_generator: bool = False


@dataclass(frozen=True)
class _PendingAsyncDef:
    """An async def whose IR is built once the whole module has been visited,
    when every scope's bindings are known."""

    node: cst.FunctionDef
    frame: _Frame
    stack: tuple[tuple[str, str], ...]  # the enclosing definitions at the def
    imports_seen: int  # module-level imports visited before the def ended


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: str, is_package: bool, real_path: Path) -> None:
        super().__init__()
        self.module = module
        self.is_package = is_package
        self.real_path = real_path
        self.imports: list[ImportFact] = []
        self.classes: list[ClassInfo] = []
        self.functions: list[str] = []
        self.module_names: list[str] = []
        self.async_defs: list[AsyncDefInfo] = []
        self.pending: list[_PendingAsyncDef] = []
        self.kept: list[Span] = []
        self.stack: list[tuple[str, str]] = []  # ("class" | "def" | "async def", name)
        self.frames: list[_Frame] = []
        # The nodes being visited, outermost first; snapshots of it locate each
        # suspension point in its function.
        self.ancestors: list[cst.CSTNode] = []
        self.paths: dict[int, tuple[cst.CSTNode, ...]] = {}  # id(await or async CompFor) -> ancestors, itself last
        self.module_scope = _Scope(GLOBAL_SCOPE, None)
        self.scopes: list[_Scope] = [self.module_scope]
        self.comprehensions: list[_Scope] = []
        self.owned_scopes: dict[int, tuple[_Scope | None, _Scope]] = {}  # id(def node) -> (type-param scope, body scope)
        self.call_scopes: dict[int, _Scope] = {}  # id(call.func) -> the scope the call is in

    # -- positions

    def span(self, node: cst.CSTNode) -> Span:
        code_range = self.get_metadata(PositionProvider, node)
        return Span(code_range.start.line, code_range.start.column + 1, code_range.end.line, code_range.end.column + 1)

    # -- the ancestor stack

    # CSTVisitor's own dispatch, inlined: these run for every node, and a
    # super() call each way would make the visit noticeably slower.
    def on_visit(self, node: cst.CSTNode) -> bool:
        self.ancestors.append(node)
        visit = getattr(self, f"visit_{type(node).__name__}", None)
        return visit is None or visit(node) is not False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        leave = getattr(self, f"leave_{type(original_node).__name__}", None)
        if leave is not None:
            leave(original_node)
        self.ancestors.pop()

    # -- name scopes (see _Scope). Python evaluates decorators, defaults,
    # annotations, base classes and a comprehension's first iterable in the
    # enclosing scope; the per-attribute hooks enter a scope only around the
    # parts that run inside it.

    @property
    def scope(self) -> _Scope:
        return self.scopes[-1]

    def _enter(self, scope: _Scope) -> None:
        self.scopes.append(scope)

    def _exit(self, node: cst.CSTNode | None = None) -> None:
        self.scopes.pop()

    def _bind(self, name: str) -> None:
        _bind(self.scope, name)

    def _bind_target(self, target: cst.CSTNode) -> None:
        for name in _stored_names(target):
            _bind(self.scope, name)

    def _own_scopes(self, node: cst.CSTNode, body_kind: str, type_parameters: cst.TypeParameters | None) -> _Scope | None:
        """Create the scopes a def / lambda / class / type alias opens."""
        annotation = _Scope(ANNOTATION_SCOPE, self.scope) if type_parameters is not None else None
        self.owned_scopes[id(node)] = (annotation, _Scope(body_kind, annotation or self.scope))
        return annotation

    def _enter_body_scope(self, node: cst.CSTNode) -> None:
        self._enter(self.owned_scopes[id(node)][1])

    def _enter_annotation_scope(self, node: cst.CSTNode) -> None:
        self._enter(self.owned_scopes[id(node)][0] or self.scope)

    visit_FunctionDef_params = visit_FunctionDef_body = _enter_body_scope
    leave_FunctionDef_params = leave_FunctionDef_body = _exit
    visit_Lambda_params = visit_Lambda_body = _enter_body_scope
    leave_Lambda_params = leave_Lambda_body = _exit
    visit_ClassDef_type_parameters = visit_ClassDef_bases = visit_ClassDef_keywords = _enter_annotation_scope
    leave_ClassDef_type_parameters = leave_ClassDef_bases = leave_ClassDef_keywords = _exit
    visit_ClassDef_body = _enter_body_scope
    leave_ClassDef_body = _exit
    visit_TypeAlias_type_parameters = visit_TypeAlias_value = _enter_annotation_scope
    leave_TypeAlias_type_parameters = leave_TypeAlias_value = _exit

    def visit_Param(self, node: cst.Param) -> None:
        self._bind(node.name.value)

    def _enter_enclosing_scope(self, node: cst.Param) -> None:
        parent = self.scope.parent
        self._enter(parent if parent is not None else self.scope)

    visit_Param_annotation = visit_Param_default = _enter_enclosing_scope
    leave_Param_annotation = leave_Param_default = _exit

    def visit_TypeAlias(self, node: cst.TypeAlias) -> None:
        self._bind(node.name.value)
        self._own_scopes(node, ANNOTATION_SCOPE, node.type_parameters)

    def leave_TypeAlias(self, original_node: cst.TypeAlias) -> None:
        del self.owned_scopes[id(original_node)]

    def _bind_type_parameter(self, node: cst.TypeVar | cst.TypeVarTuple | cst.ParamSpec) -> None:
        self._bind(node.name.value)

    visit_TypeVar = visit_TypeVarTuple = visit_ParamSpec = _bind_type_parameter

    # Comprehensions: the element, targets, conditions and inner loops run in
    # the comprehension's scope; the first loop's iterable in the enclosing one.
    def _open_comprehension(self, node: cst.CSTNode) -> None:
        self.comprehensions.append(_Scope(COMPREHENSION_SCOPE, self.scope))

    def _close_comprehension(self, original_node: cst.CSTNode) -> None:
        self.comprehensions.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _open_comprehension
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _close_comprehension

    def _enter_comprehension_scope(self, node: cst.CSTNode) -> None:
        self._enter(self.comprehensions[-1])

    visit_ListComp_elt = visit_SetComp_elt = visit_GeneratorExp_elt = _enter_comprehension_scope
    visit_DictComp_key = visit_DictComp_value = _enter_comprehension_scope
    visit_CompFor_ifs = visit_CompFor_inner_for_in = _enter_comprehension_scope
    leave_ListComp_elt = leave_SetComp_elt = leave_GeneratorExp_elt = _exit
    leave_DictComp_key = leave_DictComp_value = _exit
    leave_CompFor_target = leave_CompFor_ifs = leave_CompFor_inner_for_in = _exit

    def visit_CompFor_target(self, node: cst.CompFor) -> None:
        self._enter_comprehension_scope(node)
        self._bind_target(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        if self.scope.kind != GLOBAL_SCOPE:  # at module level it changes nothing
            for item in node.names:
                self.scope.declared[item.name.value] = self.module_scope

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        parent = self.scope.parent
        if parent is not None:  # at module level it is a syntax error CPython reports
            for item in node.names:
                self.scope.declared[item.name.value] = parent

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind_target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind_target(node.name)  # `with ... as x`, `except ... as x`, `import ... as x`

    # -- imports and module-level definitions

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if (bound := _import_head(alias)) is not None:
                self._bind(bound)
        if self.stack:  # a function's or class's own binding, not the module's
            return
        for alias in node.names:
            full = dotted_text(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.imports.append(ImportFact(alias.asname.name.value, full))
            else:
                head = full.split(".")[0]
                self.imports.append(ImportFact(head, head))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if (bound := _import_head(alias)) is not None:
                    self._bind(bound)
        if self.stack:
            return
        target = dotted_text(node.module) if node.module is not None else None
        level = len(node.relative)
        anchor: tuple[str, ...] = ()
        if level:
            found = relative_anchor(self.real_path, level)
            if found is None:
                return
            anchor = found
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = alias.name.value if isinstance(alias.name, cst.Name) else dotted_text(alias.name) or ""
            local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
            self.imports.append(ImportFact(local, f"{target}.{name}" if target else name, anchor))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._bind(node.name.value)
        self._own_scopes(node, CLASS_SCOPE, node.type_parameters)
        if not any(kind != "class" for kind, _ in self.stack):
            methods = tuple(
                stmt.name.value
                for stmt in (node.body.body if isinstance(node.body, cst.IndentedBlock) else ())
                if isinstance(stmt, cst.FunctionDef)
            )
            bases = tuple(dotted_text(arg.value) or "" for arg in node.bases if arg.keyword is None)
            qual = ".".join([name for _, name in self.stack] + [node.name.value])
            self.classes.append(ClassInfo(qual, bases, methods, self.span(node.name).line))
        self.stack.append(("class", node.name.value))
        self.frames.append(_Frame(node))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.stack.pop()
        self.frames.pop()
        del self.owned_scopes[id(original_node)]

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._own_scopes(node, FUNCTION_SCOPE, None)
        self.frames.append(_Frame(node))

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.frames.pop()
        del self.owned_scopes[id(original_node)]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._bind(node.name.value)
        # Decorators, defaults and annotations see the type parameters, if any.
        self._enter(self._own_scopes(node, FUNCTION_SCOPE, node.type_parameters) or self.scope)
        if not self.stack:
            self.functions.append(node.name.value)
        self.stack.append(("async def" if node.asynchronous is not None else "def", node.name.value))
        self.frames.append(_Frame(node))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        frame = self.frames.pop()
        self.stack.pop()
        self._exit()
        del self.owned_scopes[id(original_node)]
        if original_node.asynchronous is not None:
            self.pending.append(_PendingAsyncDef(original_node, frame, tuple(self.stack), len(self.imports)))
        self._track_kept_coroutines(original_node, frame)

    def leave_Module(self, original_node: cst.Module) -> None:
        # Bindings may follow their use, so the IR waits for the whole module.
        self.async_defs = [self._async_def(pending) for pending in self.pending]

    # -- what each scope's own body holds

    def _frame(self) -> _Frame | None:
        return self.frames[-1] if self.frames else None

    def visit_Await(self, node: cst.Await) -> None:
        if (frame := self._frame()) is not None:
            frame.awaits.append(node)
            self.paths[id(node)] = tuple(self.ancestors)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if node.asynchronous is not None and (frame := self._frame()) is not None:
            frame.async_comps.append(node)
            self.paths[id(node)] = tuple(self.ancestors)

    def visit_Call(self, node: cst.Call) -> None:
        self.call_scopes[id(node.func)] = self.scope
        if (frame := self._frame()) is not None:
            frame.calls.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind_target(target.target)
        if not self.stack:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.module_names.append(target.target.value)
        elif (frame := self._frame()) is not None:
            frame.assigns.append(node)

    def visit_Return(self, node: cst.Return) -> None:
        if (frame := self._frame()) is not None:
            frame.returns.append(node)

    def visit_Yield(self, node: cst.Yield) -> None:
        if (frame := self._frame()) is not None:
            frame.is_generator = True

    # -- one async def

    @staticmethod
    def _qualname(stack: tuple[tuple[str, str], ...], name: str) -> str:
        parts: list[str] = []
        for kind, owner in stack:
            parts.append(owner)
            if kind != "class":
                parts.append("<locals>")
        return ".".join(parts + [name])

    def _async_def(self, pending: _PendingAsyncDef) -> AsyncDefInfo:
        node, frame, stack = pending.node, pending.frame, pending.stack
        class_name = None
        if stack and stack[-1][0] == "class" and not any(kind != "class" for kind, _ in stack):
            class_name = ".".join(name for _, name in stack)
        builder = _BodyBuilder(self, node, frame, pending.imports_seen)
        body = builder.block(node.body)
        builder.finish()
        def_range = self.get_metadata(PositionProvider, node)
        name_range = self.span(node.name)
        span = Span(def_range.start.line, def_range.start.column + 1, name_range.end_line, name_range.end_column)
        return AsyncDefInfo(
            name=node.name.value,
            qualname=self._qualname(stack, node.name.value),
            class_name=class_name,
            owner=tuple(Owner(kind, name) for kind, name in stack) + (Owner("async def", node.name.value),),
            line=def_range.start.line,
            span=span,
            is_stub=_is_stub_body(node.body),
            is_abstract=_is_abstract(node),
            is_generator=frame.is_generator,
            opaque_decorators=_opaque_decorators(node),
            body=body,
            awaits=tuple(builder.awaits),
            calls=tuple(builder.calls),
            timeouts=tuple(builder.timeouts),
        )

    def _track_kept_coroutines(self, node: cst.FunctionDef, frame: _Frame) -> None:
        """Record calls whose coroutine is bound to a name that is awaited (or
        wrapped in a task) in the same function, or returned from a sync def."""
        used: set[str] = {a.expression.value for a in frame.awaits if isinstance(a.expression, cst.Name)}
        for call in frame.calls:
            if (dotted_text(call.func) or "").split(".")[-1] in TASK_WRAPPERS:
                used.update(arg.value.value for arg in call.args if isinstance(arg.value, cst.Name))
        for assign in frame.assigns:
            if isinstance(assign.value, cst.Call):
                names = {t.target.value for t in assign.targets if isinstance(t.target, cst.Name)}
                if names & used:
                    self.kept.append(self.span(assign.value))
        if node.asynchronous is None:
            self.kept.extend(self.span(r.value) for r in frame.returns if isinstance(r.value, cst.Call))

    # -- references

    def resolve_dotted(self, text: str, imports_seen: int | None = None) -> str:
        """Map the first part of ``a.b.c`` through this file's imports (the
        first ``imports_seen`` of them: those visited before the function ended)."""
        head, _, rest = text.partition(".")
        imports = self.imports if imports_seen is None else self.imports[:imports_seen]
        for fact in reversed(imports):
            if fact.local == head:
                target = fact.target if not fact.anchor else f".{fact.target}"
                return f"{target}.{rest}" if rest else target
        return text

    def callee_ref(self, func: cst.BaseExpression) -> CalleeRef:
        """What a call's callee refers to; ``func`` must be the callee of a
        call visited by this collector."""
        scope = self.call_scopes.get(id(func))
        if isinstance(func, cst.Name):
            if self._bound_in_function(func.value, scope):
                return CalleeRef(UNKNOWN, func.value)
            return CalleeRef(NAME, func.value)
        if isinstance(func, cst.Attribute):
            receiver = func.value
            attr = func.attr.value
            if isinstance(receiver, cst.Name) and receiver.value in ("self", "cls"):
                return CalleeRef(SELF if receiver.value == "self" else CLS, attr)
            if (
                isinstance(receiver, cst.Call)
                and isinstance(receiver.func, cst.Name)
                and receiver.func.value == "super"
                and not receiver.args
            ):
                return CalleeRef(SUPER, attr)
            text = dotted_text(func)
            if text is not None:
                head = func
                while isinstance(head, cst.Attribute):
                    head = head.value
                if isinstance(head, cst.Name) and self._bound_in_function(head.value, scope):
                    return CalleeRef(UNKNOWN, text)
                return CalleeRef(DOTTED, text)
        return CalleeRef(UNKNOWN, "<expr>")

    @staticmethod
    def _bound_in_function(name: str, scope: _Scope | None) -> bool:
        """A name bound in a function scope (a local, a parameter), or only a
        builtin, cannot be resolved to a module-level definition."""
        if scope is None or scope.kind == GLOBAL_SCOPE:
            return False
        found = _binding_scope(scope, name)
        return found is _BUILTINS or (isinstance(found, _Scope) and found.kind != GLOBAL_SCOPE)


def _short(node: cst.CSTNode) -> str:
    """``f(...)`` style text of a call, for messages."""
    if isinstance(node, cst.Call):
        func = dotted_text(node.func)
        if func is None and isinstance(node.func, cst.Attribute):
            func = f"{_short(node.func.value)}.{node.func.attr.value}"
        return f"{func or '<expr>'}({'...' if node.args else ''})"
    text = dotted_text(node) if isinstance(node, cst.BaseExpression) else None
    return text or "<expr>"


class _BodyBuilder:
    """Builds the IR of one async def's own body from the suspension points the
    visit recorded for it: only subtrees that hold one are descended into."""

    def __init__(self, collector: _Collector, func: cst.FunctionDef, frame: _Frame, imports_seen: int) -> None:
        self.c = collector
        self.func = func
        self.frame = frame
        self.imports_seen = imports_seen
        self.awaits: list[AwaitFact] = []
        self.calls: list[CallFact] = []
        self.timeouts: list[TimeoutFact] = []
        # Every node on the path from a suspension point up to the function.
        self.marked: set[int] = set()
        for point in (*frame.awaits, *frame.async_comps):
            for node in reversed(self.c.paths[id(point)]):
                if node is func or id(node) in self.marked:
                    break
                self.marked.add(id(node))
        self.future_names = {
            t.target.value
            for a in frame.assigns
            if isinstance(a.value, cst.Call) and self._makes_future(a.value)
            for t in a.targets
            if isinstance(t.target, cst.Name)
        }

    def finish(self) -> None:
        """Direct calls (MM005) and wait_for timeouts (MM007), in source order."""
        for call in self.frame.calls:
            self._call(call)

    # -- statements

    def block(self, suite: cst.BaseSuite | None) -> Node:
        if suite is None:
            return EMPTY
        if isinstance(suite, cst.IndentedBlock):
            return Seq(tuple(self.statement(stmt) for stmt in suite.body))
        assert isinstance(suite, cst.SimpleStatementSuite)
        return Seq(tuple(self.small(stmt) for stmt in suite.body))

    def statement(self, stmt: cst.CSTNode) -> Node:
        if isinstance(stmt, cst.SimpleStatementLine):
            return Seq(tuple(self.small(item) for item in stmt.body))
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return EMPTY  # their bodies are not this function's; decorators hold no awaits worth modelling
        if isinstance(stmt, cst.If):
            orelse = stmt.orelse
            if isinstance(orelse, cst.If):
                other = self.statement(orelse)
            elif isinstance(orelse, cst.Else):
                other = self.block(orelse.body)
            else:
                other = EMPTY
            return Seq((self.expr(stmt.test), Branch((self.block(stmt.body), other))))
        if isinstance(stmt, cst.For):
            head = [self.expr(stmt.iter)]
            if stmt.asynchronous is not None:
                head.append(AsyncLoopOrContext("async for"))
            body = self.block(stmt.body)
            orelse = self.block(stmt.orelse.body) if stmt.orelse else EMPTY
            return Seq((*head, Loop(body, orelse, infinite=False)))
        if isinstance(stmt, cst.While):
            infinite = isinstance(stmt.test, cst.Name) and stmt.test.value == "True"
            test = self.expr(stmt.test)
            body = self.block(stmt.body)
            orelse = self.block(stmt.orelse.body) if stmt.orelse else EMPTY
            return Seq((test, Loop(Seq((body, test)), orelse, infinite=infinite)))
        if isinstance(stmt, cst.With):
            parts: list[Node] = []
            for item in stmt.items:
                parts.append(self.expr(item.item))
                if stmt.asynchronous is not None:
                    parts.append(AsyncLoopOrContext("async with"))
            body = self.block(stmt.body)
            if stmt.asynchronous is not None:
                self._timeout_context(stmt, body)
            return Seq((*parts, body))
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            body = self.block(stmt.body)
            handlers = tuple(Seq((self.expr(h.type), self.block(h.body))) for h in stmt.handlers)
            orelse = self.block(stmt.orelse.body) if stmt.orelse else EMPTY
            finalbody = self.block(stmt.finalbody.body) if stmt.finalbody else EMPTY
            return Try(body, handlers, orelse, finalbody)
        if isinstance(stmt, cst.Match):
            subject = self.expr(stmt.subject)
            arms: list[Node] = []
            irrefutable = False
            for case in stmt.cases:
                arms.append(Seq((self.expr(case.guard), self.block(case.body))))
                if case.guard is None and isinstance(case.pattern, cst.MatchAs) and case.pattern.pattern is None:
                    irrefutable = True
            if not irrefutable:
                arms.append(EMPTY)
            return Seq((subject, Branch(tuple(arms))))
        return EMPTY

    def small(self, item: cst.CSTNode) -> Node:
        if isinstance(item, cst.Return):
            return Seq((self.expr(item.value), Exit("return")))
        if isinstance(item, cst.Raise):
            return Seq((self.expr(item.exc), self.expr(item.cause), Exit("raise")))
        if isinstance(item, (cst.Break, cst.Continue)):
            return Jump("break" if isinstance(item, cst.Break) else "continue")
        return self.expr(item)

    # -- expressions

    def expr(self, node: cst.CSTNode | None) -> Node:
        """The suspension points of an expression (or simple statement), in
        source order; those under a conditional operand become optional."""
        if node is None or id(node) not in self.marked:
            return EMPTY
        found: list[Node] = []
        self._collect(node, node, found)
        return Seq(tuple(found))

    def _collect(self, node: cst.CSTNode, root: cst.CSTNode, found: list[Node]) -> None:
        point: Node | None = None
        if isinstance(node, cst.Await):
            point = self._await(node)
        elif isinstance(node, cst.CompFor) and node.asynchronous is not None:
            point = AsyncLoopOrContext("async for")
        for child in node.children:
            if id(child) in self.marked:
                self._collect(child, root, found)
        if point is not None:  # the awaited expression is evaluated first
            found.append(Branch((point, EMPTY)) if self._conditional(node, root) else point)

    def _conditional(self, item: cst.CSTNode, stop: cst.CSTNode) -> bool:
        """Whether ``item`` runs only on some evaluations of ``stop``: the right
        operand of and/or, a branch of ``x if c else y``, or a comprehension
        element past the first iterable."""
        path = self.c.paths[id(item)]  # item's ancestors, item last
        depth = len(path) - 1
        child = item
        while child is not stop:
            depth -= 1
            parent = path[depth]
            if isinstance(parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                # The element runs once per item, zero or more times; the first
                # `for` clause's iterable (and its first `async for` step) runs once.
                if child is not parent.for_in:
                    return True
            elif isinstance(parent, cst.CompFor):
                if child is not parent.iter:
                    return True  # the target, the conditions, an inner `for`
            elif isinstance(parent, cst.BooleanOperation) and child is parent.right:
                return True
            elif isinstance(parent, cst.IfExp) and child is not parent.test:
                return True
            child = parent
        return False

    def _await(self, node: cst.Await) -> AwaitPoint:
        callee = self.c.callee_ref(node.expression.func) if isinstance(node.expression, cst.Call) else None
        self.awaits.append(AwaitFact(self.c.span(node), callee, _short(node.expression)))
        return AwaitPoint(len(self.awaits) - 1)

    def _call(self, node: cst.Call) -> None:
        text = dotted_text(node.func)
        if text is not None:
            dotted = self.c.resolve_dotted(text, self.imports_seen)
        elif isinstance(node.func, cst.Attribute):
            dotted = f"<expr>.{node.func.attr.value}"
        else:
            dotted = "<expr>"
        future_result = False
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "result" and not node.args:
            receiver = node.func.value
            if isinstance(receiver, cst.Name) and receiver.value in self.future_names:
                future_result = True
            elif isinstance(receiver, cst.Call) and self._makes_future(receiver):
                future_result = True
        self.calls.append(CallFact(self.c.span(node), dotted, future_result))
        if dotted == "asyncio.wait_for" and node.args:
            wrapped = node.args[0].value
            callee = self.c.callee_ref(wrapped.func) if isinstance(wrapped, cst.Call) else None
            self.timeouts.append(TimeoutFact("wait_for", self.c.span(node), callee, EMPTY, _short(wrapped)))

    def _makes_future(self, call: cst.Call) -> bool:
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "submit":
            return True
        text = dotted_text(call.func)
        return text is not None and self.c.resolve_dotted(text, self.imports_seen) in FUTURE_FACTORIES

    def _timeout_context(self, stmt: cst.With, body: Node) -> None:
        for item in stmt.items:
            if isinstance(item.item, cst.Call):
                text = dotted_text(item.item.func)
                if text is not None and self.c.resolve_dotted(text, self.imports_seen) in TIMEOUT_CONTEXTS:
                    self.timeouts.append(TimeoutFact("timeout", self.c.span(item.item), None, body, _short(item.item)))


def _module_path(real_path: Path) -> tuple[str, ...]:
    resolved = real_path.resolve()
    if resolved.stem == "__init__":
        return resolved.parent.parts
    return resolved.parent.parts + (resolved.stem,)


def collect_suspension(wrapper: MetadataWrapper, real_path: Path, display_path: str) -> SuspensionFacts:
    """Collect the suspension facts of one parsed file."""
    module, is_package = module_name_for(real_path)
    collector = _Collector(module, is_package, real_path)
    wrapper.visit(collector)
    return SuspensionFacts(
        module=module,
        is_package=is_package,
        path=display_path,
        module_path=_module_path(real_path),
        imports=tuple(collector.imports),
        classes=tuple(collector.classes),
        functions=tuple(collector.functions),
        module_names=tuple(collector.module_names),
        async_defs=tuple(collector.async_defs),
        kept_coroutine_calls=tuple(collector.kept),
    )


__all__ = [
    "AsyncDefInfo",
    "AwaitFact",
    "CallFact",
    "CalleeRef",
    "ClassInfo",
    "ImportFact",
    "SuspensionFacts",
    "TimeoutFact",
    "collect_suspension",
    "module_name_for",
]
