"""One walk per file, turned into one frozen FileFacts.

The walk is iterative and visits only the child fields that can hold code
(whitespace, parentheses, commas and operator tokens are skipped, and leaves
such as names and literals are never pushed): libcst's generic visitor costs
most of a parse on its own, this walk a tenth of it. Each stack entry carries
its context (name scope, await-deciding scope chain, the function body it
belongs to, the enclosing definitions) and its chain of ancestors, so no
leave events are needed: Python's scoping is mirrored by which context each
child is pushed with (decorators, defaults, base classes and a
comprehension's first iterable belong to the enclosing scope).

Positions are computed once, after the walk, for the nodes that become facts
(mmlint.facts.positions); the IR of each async def is built last, when every
scope's bindings are known (a binding may follow its use).
"""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from sys import intern
from typing import Any

import libcst as cst

from mmlint.core.diagnostics import Owner, Span, qualname
from mmlint.core.twins import TwinPair
from mmlint.facts import model
from mmlint.facts.anchors import Anchor, python_tree_of
from mmlint.facts.ir import has_suspension_point
from mmlint.facts.ir_builder import BodyBuilder, Frame
from mmlint.facts.light import LightFields, light_fields
from mmlint.facts.model import (
    CLS,
    DOTTED,
    NAME,
    SELF,
    SUPER,
    TASK_WRAPPERS,
    UNKNOWN,
    AsyncDef,
    CalleeRef,
    CallSite,
    FileFacts,
    ImportFact,
    ScopeKind,
)
from mmlint.facts.module_paths import (
    module_name_for,
    module_path_parts,
    relative_anchor,
)
from mmlint.facts.nfkc import with_normalised_identifiers
from mmlint.facts.positions import Range, locate, to_span
from mmlint.facts.scopes import (
    ANNOTATION_SCOPE,
    CLASS_SCOPE,
    COMPREHENSION_SCOPE,
    FUNCTION_SCOPE,
    GLOBAL_SCOPE,
    NameScope,
    bind,
    bound_in_function,
)
from mmlint.facts.stub_like import is_stub_like_body
from mmlint.facts.values import key_text
from mmlint.facts.syntax import (
    Link,
    callee_name,
    dotted_tail,
    dotted_text,
    expression_flags,
    import_head,
    is_abstract,
    is_overload,
    is_stub_body,
    needs_parens,
    opaque_decorators,
    parameters_of,
    receiver_chain,
    stored_names,
)


def collect_facts(
    module: cst.Module,
    real_path: Path,
    display_path: str,
    twins: tuple[TwinPair, ...],
    column_shift: Mapping[int, int] | None = None,
    anchors: Sequence[Anchor] | None = None,
    text: str | None = None,
    light: LightFields | None = None,
) -> FileFacts:
    """The facts of one parsed file: its call sites and async defs from
    libcst's tree (this collector), every other field from the light tier's
    reading of CPython's tree (``light``: mmlint.facts.light.light_fields,
    read here from the text when not given). Each field has that one source:
    a file this interpreter's CPython cannot parse (newer syntax) has its call
    sites and async defs, and no defs, classes or imports for the cross-file
    analysis. ``column_shift`` and ``anchors``: see mmlint.facts.positions.locate
    (``module`` parsed from a view of the file, mmlint.core.source.indentation_view;
    the statements' anchors in that view, mmlint.facts.anchors.statement_anchors,
    which spare a codegen of the whole module). ``text``: what ``module`` was
    parsed from (else its code is generated)."""
    source = module.code if text is None else text
    if light is None:
        tree = python_tree_of(source)
        if tree is not None:
            light = light_fields(source, tree, real_path, display_path, round_trip=True)
    # Python compares identifiers NFKC-normalised, and so do the facts (mmlint.facts.nfkc).
    walk = FileWalk(
        with_normalised_identifiers(module, source),
        real_path,
        twins,
        column_shift,
        anchors,
        light,
    )
    walk.run()
    call_sites, async_defs = walk.coroutine_facts()
    if light is not None:
        return replace(light.facts, call_sites=call_sites, async_defs=async_defs)
    module_name, is_package = module_name_for(real_path)
    return FileFacts(
        path=display_path,
        module=module_name,
        is_package=is_package,
        module_path=module_path_parts(real_path),
        newline=module.default_newline,
        call_sites=call_sites,
        async_defs=async_defs,
        sync_defs=(),
        imports=(),
        classes=(),
        functions=(),
        assigned_names=(),
        module_bindings=frozenset(),
    )


class _Context:
    """Where a node sits: fixed for a whole scope, shared by its nodes."""

    __slots__ = ("chain", "class_node", "frame", "names", "owner")

    def __init__(
        self,
        names: NameScope,
        chain: tuple[ScopeKind, ...],
        frame: Frame | None,
        owner: tuple[Owner, ...],
        class_node: cst.ClassDef | None = None,
    ) -> None:
        self.names = names  # the name scope bindings go to
        # Scope kinds from here outward up to the one that decides whether
        # `await` is allowed (comprehensions are looked through).
        self.chain = chain
        self.frame = frame  # the function / lambda / class body this belongs to; None at module level
        self.owner = owner  # enclosing classes and defs, outermost first
        self.class_node = class_node  # the class whose body this is directly, if any

    def with_names(self, names: NameScope) -> _Context:
        return _Context(names, self.chain, self.frame, self.owner, self.class_node)


# The walk's pending nodes: each with its context and its parent's link.
_Stack = list[tuple[cst.CSTNode, _Context, "Link | None"]]


@dataclass(frozen=True)
class _PendingAsyncDef:
    node: cst.FunctionDef
    frame: Frame
    owner: tuple[Owner, ...]  # with the def itself last
    class_node: cst.ClassDef | None  # the class it is directly defined in
    imports_seen: int  # module-level imports visited before it


# Field names that never hold code.
_SKIPPED_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "trailing_whitespace",
        "comma",
        "semicolon",
        "operator",
        "dot",
        "equal",
        "colon",
        "newline",
        "asynchronous",
        "star",
        "first_colon",
        "second_colon",
        "separator",
        "trailing_comma",
        "relative",
        "leading_whitespace",
        "last_line",
        "comment",
        "posonly_ind",
        "keyword",
        "conversion",
        "start",
        "end",
        "value_whitespace",
    }
)
# Nodes with nothing below them that any fact needs.
_LEAVES = frozenset(
    {
        cst.Name,
        cst.SimpleString,
        cst.Integer,
        cst.Float,
        cst.Imaginary,
        cst.Ellipsis,
        cst.Pass,
        cst.Break,
        cst.Continue,
        cst.FormattedStringText,
        cst.ImportStar,
        cst.ParamStar,
        cst.ParamSlash,
    }
)
_FIELDS: dict[type, tuple[str, ...]] = {}


def _code_fields(node_type: type) -> tuple[str, ...]:
    names = tuple(
        f.name
        for f in dataclasses.fields(node_type)
        if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
    )
    _FIELDS[node_type] = names
    return names


def _push_fields(node: cst.CSTNode, names: tuple[str, ...], ctx: _Context, link: Link, stack: _Stack) -> None:
    """Push the given child fields of ``node`` so they are visited in order."""
    leaves = _LEAVES
    for name in reversed(names):
        value = getattr(node, name)
        if value is None:
            continue
        kind = type(value)
        if kind is tuple or kind is list:
            for child in reversed(value):
                if type(child) not in leaves:
                    stack.append((child, ctx, link))
        elif kind not in leaves and kind is not str and kind is not bool:
            stack.append((value, ctx, link))


def _push(value: cst.CSTNode | None, ctx: _Context, link: Link, stack: _Stack) -> None:
    if value is not None and type(value) not in _LEAVES:
        stack.append((value, ctx, link))


class FileWalk:
    def __init__(
        self,
        module: cst.Module,
        real_path: Path,
        twins: tuple[TwinPair, ...],
        column_shift: Mapping[int, int] | None = None,
        anchors: Sequence[Anchor] | None = None,
        light: LightFields | None = None,
    ) -> None:
        self.module = module
        # What the light tier, the one reading of these shapes, found of the
        # async defs' calls and loops (none for a file CPython cannot parse).
        self.iterated_starts = light.iterated_starts if light is not None else frozenset()
        self.input_bounds: Mapping[Span, str] = light.input_bounds if light is not None else {}
        self.short_arguments: Mapping[Span, str] = light.short_arguments if light is not None else {}
        self.loops: Mapping[tuple[int, int], str] = light.loops if light is not None else {}
        self.calls_in_loops: frozenset[Span] = light.calls_in_loops if light is not None else frozenset()
        self.column_shift = column_shift
        self.anchors = anchors
        self.real_path = real_path
        self.pairs: dict[str, tuple[TwinPair, bool]] = {}
        for pair in twins:
            self.pairs.setdefault(pair.sync, (pair, False))
            self.pairs.setdefault(pair.async_, (pair, True))
        self.module_scope = NameScope(GLOBAL_SCOPE, None)
        # The module's imports, read only to resolve the names its async defs
        # call (FileFacts.imports are the light tier's).
        self.imports: list[ImportFact] = []
        self.async_defs: list[_PendingAsyncDef] = []
        self.def_frames: list[tuple[cst.FunctionDef, Frame]] = []
        self.twin_calls: list[tuple[cst.Call, cst.Name, _Context, Link]] = []
        # id(await or async CompFor) -> its ancestor chain, itself first.
        self.links: dict[int, Link] = {}
        self.call_scopes: dict[int, NameScope] = {}  # id(call.func) -> the name scope the call is in
        # id(call) -> its scope chain and ancestor chain, for calls in a body (MM010's rewrite).
        self.call_places: dict[int, tuple[tuple[ScopeKind, ...], Link]] = {}
        # id(call) for each call in a body that is the whole value of an
        # expression statement: its result is dropped (MM011).
        self.discarded: set[int] = set()
        # id(call) for each call that is a direct argument of a coroutine
        # consumer (TASK_WRAPPERS): it only creates a coroutine.
        self.scheduled: set[int] = set()
        self.ranges: dict[int, Range] = {}  # id(node) -> range (mmlint.facts.positions.Positions)
        self.starts: dict[int, tuple[int, int]] = {}  # id(async def) -> where it starts

    # -- the walk

    def run(self) -> None:
        root = _Context(self.module_scope, (model.MODULE,), None, ())
        stack: _Stack = [(self.module, root, None)]
        handlers = _HANDLERS
        fields = _FIELDS
        while stack:
            node, ctx, parent = stack.pop()
            link = (node, parent)
            node_type = type(node)
            handler = handlers.get(node_type)
            if handler is not None and handler(self, node, ctx, link, stack):
                continue
            _push_fields(node, fields.get(node_type) or _code_fields(node_type), ctx, link, stack)

    # -- scopes and definitions

    def _function_def(self, node: cst.FunctionDef, ctx: _Context, link: Link, stack: _Stack) -> bool:
        name = node.name.value
        bind(ctx.names, name)
        annotation_names = NameScope(ANNOTATION_SCOPE, ctx.names) if node.type_parameters is not None else None
        outer = ctx.with_names(annotation_names) if annotation_names is not None else ctx
        body_names = NameScope(FUNCTION_SCOPE, annotation_names or ctx.names)
        kind: ScopeKind = model.ASYNC_DEF if node.asynchronous is not None else model.DEF
        owner = ctx.owner + (Owner(kind, name),)
        frame = Frame(node)
        self.def_frames.append((node, frame))
        if node.asynchronous is not None:
            self.async_defs.append(_PendingAsyncDef(node, frame, owner, ctx.class_node, len(self.imports)))
        body = _Context(body_names, (kind,), frame, owner)
        # Pushed last-first: decorators, type parameters, parameters, return annotation, body.
        _push(node.body, body, link, stack)
        _push(node.returns, outer, link, stack)
        self._parameters(node.params, body_names, outer, link, stack)
        _push(node.type_parameters, outer, link, stack)
        for decorator in reversed(node.decorators):
            _push(decorator, ctx, link, stack)
        return True

    def _parameters(
        self, params: cst.Parameters, body_names: NameScope, outer: _Context, link: Link, stack: _Stack
    ) -> None:
        """Parameter names bind in the body's scope; defaults and annotations
        are evaluated where the def (or lambda) is."""
        params_link = (params, link)
        every = (*params.posonly_params, *params.params, params.star_arg, *params.kwonly_params, params.star_kwarg)
        for param in reversed(every):
            if isinstance(param, cst.Param):
                bind(body_names, param.name.value)
                param_link = (param, params_link)
                _push(param.default, outer, param_link, stack)
                _push(param.annotation, outer, param_link, stack)

    def _lambda(self, node: cst.Lambda, ctx: _Context, link: Link, stack: _Stack) -> bool:
        body_names = NameScope(FUNCTION_SCOPE, ctx.names)
        body = _Context(body_names, (model.LAMBDA,), Frame(node), ctx.owner)
        _push(node.body, body, link, stack)
        self._parameters(node.params, body_names, ctx, link, stack)
        return True

    def _class_def(self, node: cst.ClassDef, ctx: _Context, link: Link, stack: _Stack) -> bool:
        name = node.name.value
        bind(ctx.names, name)
        annotation_names = NameScope(ANNOTATION_SCOPE, ctx.names) if node.type_parameters is not None else None
        header = ctx.with_names(annotation_names) if annotation_names is not None else ctx
        body_names = NameScope(CLASS_SCOPE, annotation_names or ctx.names)
        body = _Context(body_names, (model.CLASS,), Frame(node), ctx.owner + (Owner(model.CLASS, name),), node)
        _push(node.body, body, link, stack)
        for arg in reversed((*node.bases, *node.keywords)):
            _push(arg, header, link, stack)
        _push(node.type_parameters, header, link, stack)
        for decorator in reversed(node.decorators):
            _push(decorator, ctx, link, stack)
        return True

    def _comprehension(
        self,
        node: cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp,
        ctx: _Context,
        link: Link,
        stack: _Stack,
    ) -> bool:
        """The element, targets, conditions and inner loops run in the
        comprehension's own scope; the first loop's iterable in the enclosing one."""
        kind: ScopeKind = model.GENEXP if isinstance(node, cst.GeneratorExp) else model.COMPREHENSION
        inner = _Context(NameScope(COMPREHENSION_SCOPE, ctx.names), (kind, *ctx.chain), ctx.frame, ctx.owner)
        first: cst.CompFor = node.for_in
        first_link = (first, link)
        self._comp_for(first, inner, first_link)
        _push(first.inner_for_in, inner, first_link, stack)
        for condition in reversed(first.ifs):
            _push(condition, inner, first_link, stack)
        _push(first.iter, ctx, first_link, stack)
        _push(first.target, inner, first_link, stack)
        if isinstance(node, cst.DictComp):
            _push(node.value, inner, link, stack)
            _push(node.key, inner, link, stack)
        else:
            _push(node.elt, inner, link, stack)
        return True

    def _comp_for(self, node: cst.CompFor, ctx: _Context, link: Link) -> None:
        for name in stored_names(node.target):
            bind(ctx.names, name)
        if node.asynchronous is not None and ctx.frame is not None:
            ctx.frame.async_comps.append(node)
            self.links[id(node)] = link

    def _inner_comp_for(self, node: cst.CompFor, ctx: _Context, link: Link, stack: _Stack) -> bool:
        self._comp_for(node, ctx, link)
        return False

    # -- bindings

    def _bind_targets(self, ctx: _Context, target: cst.CSTNode) -> list[str]:
        names = stored_names(target)
        for name in names:
            bind(ctx.names, name)
        return names

    def _assign(self, node: cst.Assign, ctx: _Context, link: Link, stack: _Stack) -> bool:
        for target in node.targets:
            self._bind_targets(ctx, target.target)
        if ctx.owner and ctx.frame is not None:
            ctx.frame.assigns.append(node)
        return False

    def _binding_target(
        self, node: cst.AnnAssign | cst.AugAssign | cst.NamedExpr, ctx: _Context, link: Link, stack: _Stack
    ) -> bool:
        self._bind_targets(ctx, node.target)
        return False

    def _for(self, node: cst.For, ctx: _Context, link: Link, stack: _Stack) -> bool:
        self._bind_targets(ctx, node.target)  # its loop is the light walk's (LightFields.loops)
        return False

    def _as_name(self, node: cst.AsName, ctx: _Context, link: Link, stack: _Stack) -> bool:
        self._bind_targets(ctx, node.name)  # `with ... as x`, `except ... as x`
        return True

    def _type_parameter(
        self, node: cst.TypeVar | cst.TypeVarTuple | cst.ParamSpec, ctx: _Context, link: Link, stack: _Stack
    ) -> bool:
        bind(ctx.names, node.name.value)
        return False

    def _type_alias(self, node: cst.TypeAlias, ctx: _Context, link: Link, stack: _Stack) -> bool:
        bind(ctx.names, node.name.value)
        inner = ctx.with_names(NameScope(ANNOTATION_SCOPE, ctx.names)) if node.type_parameters is not None else ctx
        _push(node.value, inner, link, stack)
        _push(node.type_parameters, inner, link, stack)
        return True

    def _global(self, node: cst.Global, ctx: _Context, link: Link, stack: _Stack) -> bool:
        if ctx.names.kind != GLOBAL_SCOPE:  # at module level it changes nothing
            for item in node.names:
                ctx.names.declared[item.name.value] = self.module_scope
        return True

    def _nonlocal(self, node: cst.Nonlocal, ctx: _Context, link: Link, stack: _Stack) -> bool:
        parent = ctx.names.parent
        if parent is not None:  # at module level it is a syntax error CPython reports
            for item in node.names:
                ctx.names.declared[item.name.value] = parent
        return True

    def _import(self, node: cst.Import, ctx: _Context, link: Link, stack: _Stack) -> bool:
        for alias in node.names:
            if (bound := import_head(alias)) is not None:
                bind(ctx.names, bound)
        if ctx.owner:  # a function's or class's own binding, not the module's
            return True
        for alias in node.names:
            full = dotted_text(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.imports.append(ImportFact(alias.asname.name.value, full))
            else:
                head = full.split(".")[0]
                self.imports.append(ImportFact(head, head))
        return True

    def _import_from(self, node: cst.ImportFrom, ctx: _Context, link: Link, stack: _Stack) -> bool:
        if isinstance(node.names, cst.ImportStar):
            if not ctx.owner:
                self._star_import(node)
            return True
        for alias in node.names:
            if (bound := import_head(alias)) is not None:
                bind(ctx.names, bound)
        if ctx.owner:
            return True
        target = dotted_text(node.module) if node.module is not None else None
        anchor: tuple[str, ...] = ()
        if node.relative:
            found = relative_anchor(self.real_path, len(node.relative))
            if found is None:
                return True
            anchor = found
        for alias in node.names:
            name = alias.name.value if isinstance(alias.name, cst.Name) else dotted_text(alias.name) or ""
            local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
            self.imports.append(ImportFact(local, f"{target}.{name}" if target else name, anchor))
        return True

    def _star_import(self, node: cst.ImportFrom) -> None:
        """`from m import *`: an ImportFact whose local is STAR, the module as target."""
        target = dotted_text(node.module) if node.module is not None else ""
        anchor: tuple[str, ...] = ()
        if node.relative:
            found = relative_anchor(self.real_path, len(node.relative))
            if found is None:
                return
            anchor = found
        if target or anchor:
            self.imports.append(ImportFact(model.STAR, target or "", anchor))

    # -- what a body holds

    def _await(self, node: cst.Await, ctx: _Context, link: Link, stack: _Stack) -> bool:
        if ctx.frame is not None:
            ctx.frame.awaits.append(node)
            self.links[id(node)] = link
        return False

    def _call(self, node: cst.Call, ctx: _Context, link: Link, stack: _Stack) -> bool:
        func = node.func
        if ctx.frame is not None:
            ctx.frame.calls.append(node)
            self.call_scopes[id(func)] = ctx.names
            self.call_places[id(node)] = (ctx.chain, link)
            parent = link[1]
            if parent is not None and type(parent[0]) is cst.Expr:
                self.discarded.add(id(node))
        if type(func) is cst.Attribute:
            name_node = func.attr
        elif type(func) is cst.Name:
            name_node = func
        else:
            return False
        if name_node.value in TASK_WRAPPERS:
            self.scheduled.update(id(arg.value) for arg in node.args if type(arg.value) is cst.Call)
        if name_node.value in self.pairs:
            self.twin_calls.append((node, name_node, ctx, link))
        return False

    def _return(self, node: cst.Return, ctx: _Context, link: Link, stack: _Stack) -> bool:
        if ctx.frame is not None:
            ctx.frame.returns.append(node)
        return False

    def _yield(self, node: cst.Yield, ctx: _Context, link: Link, stack: _Stack) -> bool:
        if ctx.frame is not None:
            ctx.frame.is_generator = True
        return False

    # -- references (used by the IR builder)

    def span(self, node: cst.CSTNode) -> Span:
        return to_span(self.ranges[id(node)])

    def resolve_dotted(self, text: str, imports_seen: int | None = None) -> str:
        """Map the first part of ``a.b.c`` through this file's imports (the
        first ``imports_seen`` of them: those visited before the function)."""
        head, _, rest = text.partition(".")
        imports = self.imports if imports_seen is None else self.imports[:imports_seen]
        for fact in reversed(imports):
            if fact.local == head:
                target = fact.target if not fact.anchor else f".{fact.target}"
                return f"{target}.{rest}" if rest else target
        return text

    def dotted_callee(self, call: cst.Call, imports_seen: int | None = None) -> str:
        """The callee as dotted text resolved through the imports ("time.sleep"),
        "<expr>.name" for a method of a computed receiver, else "<expr>"."""
        text = dotted_text(call.func)
        if text is not None:
            return intern(self.resolve_dotted(text, imports_seen))
        if isinstance(call.func, cst.Attribute):
            return f"<expr>.{receiver_chain(call.func)}"
        return "<expr>"

    def callee_ref(self, func: cst.BaseExpression) -> CalleeRef:
        """What a call's callee refers to; ``func`` must be the callee of a call in a body."""
        scope = self.call_scopes.get(id(func))
        if type(func) is cst.Name:
            return CalleeRef(UNKNOWN if bound_in_function(func.value, scope) else NAME, intern(func.value))
        if type(func) is cst.Attribute:
            receiver = func.value
            attr = intern(func.attr.value)
            if type(receiver) is cst.Name and receiver.value in ("self", "cls"):
                return CalleeRef(SELF if receiver.value == "self" else CLS, attr)
            if (
                type(receiver) is cst.Call
                and type(receiver.func) is cst.Name
                and receiver.func.value == "super"
                and not receiver.args
            ):
                return CalleeRef(SUPER, attr)
            text = dotted_text(func)
            if text is not None:
                head = text.split(".", 1)[0]
                return CalleeRef(UNKNOWN if bound_in_function(head, scope) else DOTTED, intern(text))
        # As mmlint.facts.light.callee_ref: a computed callee by its path.
        return CalleeRef(UNKNOWN, intern(_expr_path(func) or "<expr>"))

    # -- from the walk's records to facts

    def _kept_coroutines(self) -> set[int]:
        """Calls whose coroutine is bound to a name that is awaited (or wrapped
        in a task) in the same function, or returned from a sync def."""
        kept: set[int] = set()
        for node, frame in self.def_frames:
            used = {a.expression.value for a in frame.awaits if isinstance(a.expression, cst.Name)}
            for call in frame.calls:
                if (dotted_text(call.func) or "").split(".")[-1] in TASK_WRAPPERS:
                    used.update(arg.value.value for arg in call.args if isinstance(arg.value, cst.Name))
            for assign in frame.assigns:
                if isinstance(assign.value, cst.Call):
                    names = {t.target.value for t in assign.targets if isinstance(t.target, cst.Name)}
                    if names & used:
                        kept.add(id(assign.value))
            if node.asynchronous is None:
                kept.update(id(r.value) for r in frame.returns if isinstance(r.value, cst.Call))
        return kept

    def _placed_nodes(self) -> list[tuple[cst.CSTNode, Link]]:
        """The nodes whose ranges become facts (of the call sites and the async
        defs), each with its ancestor chain."""
        placed: list[tuple[cst.CSTNode, Link]] = []
        for call, name_node, _ctx, link in self.twin_calls:
            placed += ((call, link), (call.func, link), (name_node, link))
        call_places = self.call_places
        for pending in self.async_defs:
            placed += ((node, self.links[id(node)]) for node in pending.frame.awaits)
            for call in pending.frame.calls:
                link = call_places[id(call)][1]
                placed.append((call, link))
                name = callee_name(call)
                if name is not None:
                    placed.append((name, link))
        return placed

    def _definitions(self) -> list[cst.FunctionDef]:
        """The defs whose start and name become facts: the async defs."""
        return [pending.node for pending in self.async_defs]

    def coroutine_facts(self) -> tuple[tuple[CallSite, ...], tuple[AsyncDef, ...]]:
        positions = locate(self.module, self._placed_nodes(), self._definitions(), self.anchors, self.column_shift)
        self.ranges, self.starts = positions.ranges, positions.starts
        kept = self._kept_coroutines()
        return (
            tuple(self._call_site(*record, kept) for record in self.twin_calls),
            tuple(self._async_def(pending) for pending in self.async_defs),
        )

    def _call_site(self, node: cst.Call, name_node: cst.Name, ctx: _Context, link: Link, kept: set[int]) -> CallSite:
        pair, is_async_twin = self.pairs[name_node.value]
        func = node.func
        parent = link[1][0] if link[1] is not None else None
        in_task_wrapper, in_fstring, in_annotation = expression_flags(node, link)
        chain = ctx.chain
        owner = ctx.owner
        call_range = self.ranges[id(node)]
        func_range = self.ranges[id(func)]
        return CallSite(
            span=Span(func_range[0], func_range[1] + 1, call_range[2], call_range[3] + 1),
            name_span=to_span(self.ranges[id(name_node)]),
            callee=name_node.value,
            pair=pair,
            is_async_twin=is_async_twin,
            receiver=self.module.code_for_node(func.value) if isinstance(func, cst.Attribute) else "",
            deciding_scope=chain[-1],
            scope_chain=chain,
            in_genexp=model.GENEXP in chain,
            awaited=isinstance(parent, cst.Await),
            in_task_wrapper=in_task_wrapper,
            in_fstring=in_fstring,
            in_annotation=in_annotation,
            callee_parenthesized=bool(func.lpar),
            needs_parens=needs_parens(node, parent),
            delegation=any(o.kind == model.ASYNC_DEF and o.name == pair.async_ for o in owner),
            coroutine_kept=id(node) in kept,
            owner=owner,
        )

    def _async_def(self, pending: _PendingAsyncDef) -> AsyncDef:
        node, frame, owner = pending.node, pending.frame, pending.owner
        class_name = _class_name(owner)
        builder = BodyBuilder(self, node, frame, pending.imports_seen)
        body = builder.build()
        def_start = self.starts[id(node)]
        name_range = self.ranges[id(node.name)]
        unbounded_loop = self.loops.get((def_start[0], def_start[1] + 1))
        class_node = pending.class_node
        params = parameters_of(node.params)
        return AsyncDef(
            name=node.name.value,
            qualname=qualname(owner),
            class_name=class_name,
            owner=owner,
            span=Span(def_start[0], def_start[1] + 1, name_range[2], name_range[3] + 1),
            is_stub=is_stub_body(node.body),
            is_abstract=is_abstract(node),
            is_overload=is_overload(node),
            in_protocol=class_node is not None
            and any(dotted_tail(_unsubscripted(base.value)) == "Protocol" for base in class_node.bases),
            is_generator=frame.is_generator,
            opaque_decorators=opaque_decorators(node),
            params=params,
            has_loop=unbounded_loop is not None,
            body=body,
            awaits=tuple(builder.awaits),
            calls=tuple(builder.calls),
            timeouts=tuple(builder.timeouts),
            has_suspension_point=has_suspension_point(body),
            is_stub_like=is_stub_like_body(node.body, frozenset(p.name for p in params)),
            unbounded_loop=unbounded_loop or "",
        )


def _class_name(owner: tuple[Owner, ...]) -> str | None:
    """The class a def (last in ``owner``) is a method of, dotted through
    enclosing classes; None for a function or a def nested in another def."""
    enclosing = owner[:-1]
    if enclosing and all(part.kind == model.CLASS for part in enclosing):
        return ".".join(part.name for part in enclosing)
    return None


def _expr_path(node: cst.BaseExpression) -> str | None:
    """As mmlint.facts.values.expr_path, of libcst's tree (a literal's
    attribute from its builtin type's instance: ``", ".join`` is ``str().join``)."""
    suffix: list[str] = []
    while True:
        kind = type(node)
        if kind is cst.Attribute:
            suffix.append("." + node.attr.value)  # type: ignore[attr-defined]
            node = node.value  # type: ignore[attr-defined]
        elif kind is cst.Call:
            suffix.append("()")
            node = node.func  # type: ignore[attr-defined]
        elif kind is cst.Subscript:
            suffix.append(f"[{_subscript_key(node)}]")  # type: ignore[arg-type]
            node = node.value  # type: ignore[attr-defined]
        elif kind is cst.Await:
            node = node.expression  # type: ignore[attr-defined]
        elif kind is cst.Name:
            return str(node.value) + "".join(reversed(suffix))  # type: ignore[attr-defined]
        elif suffix and (literal := _literal_type(node)) is not None:
            return literal + "".join(reversed(suffix))
        else:
            return None


def _literal_type(node: cst.BaseExpression) -> str | None:
    """As mmlint.facts.values's literals: the instance path of a literal's builtin type."""
    kind = type(node)
    if kind is cst.SimpleString:
        return "bytes()" if "b" in node.prefix.lower() else "str()"  # type: ignore[attr-defined]
    if kind is cst.ConcatenatedString:
        return _literal_type(node.left)  # type: ignore[attr-defined]
    if kind is cst.FormattedString:
        return "str()"
    return _NUMBERS.get(kind)


_NUMBERS: dict[type[cst.BaseExpression], str] = {cst.Integer: "int()", cst.Float: "float()", cst.Imaginary: "complex()"}


def _subscript_key(node: cst.Subscript) -> str:
    """As mmlint.facts.values.subscript_key: a constant string's or integer's repr."""
    if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        value = node.slice[0].slice.value
        if isinstance(value, (cst.SimpleString, cst.Integer)):
            return key_text(value.evaluated_value)
    return ""


def _unsubscripted(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.value if isinstance(expr, cst.Subscript) else expr


# node type -> its handler (the node's own type as first argument); True: its children are pushed already.
_HANDLERS: dict[type[cst.CSTNode], Callable[[FileWalk, Any, _Context, Link, _Stack], bool]] = {
    cst.FunctionDef: FileWalk._function_def,
    cst.Lambda: FileWalk._lambda,
    cst.ClassDef: FileWalk._class_def,
    cst.ListComp: FileWalk._comprehension,
    cst.SetComp: FileWalk._comprehension,
    cst.DictComp: FileWalk._comprehension,
    cst.GeneratorExp: FileWalk._comprehension,
    cst.CompFor: FileWalk._inner_comp_for,
    cst.Assign: FileWalk._assign,
    cst.AnnAssign: FileWalk._binding_target,
    cst.AugAssign: FileWalk._binding_target,
    cst.NamedExpr: FileWalk._binding_target,
    cst.For: FileWalk._for,
    cst.AsName: FileWalk._as_name,
    cst.TypeVar: FileWalk._type_parameter,
    cst.TypeVarTuple: FileWalk._type_parameter,
    cst.ParamSpec: FileWalk._type_parameter,
    cst.TypeAlias: FileWalk._type_alias,
    cst.Global: FileWalk._global,
    cst.Nonlocal: FileWalk._nonlocal,
    cst.Import: FileWalk._import,
    cst.ImportFrom: FileWalk._import_from,
    cst.Await: FileWalk._await,
    cst.Call: FileWalk._call,
    cst.Return: FileWalk._return,
    cst.Yield: FileWalk._yield,
}
