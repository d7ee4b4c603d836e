"""Facts for a file the call graph reaches but the prefilter rejected
(mmlint.check.reach): no `async def`, no twin name, no mmlint comment, so it
can hold no finding, only lead to one. The stdlib `ast` parses it (several
times faster than libcst) and one iterative walk fills the FileFacts fields
the cross-file analysis reads: sync defs with their calls, imports, classes,
module-level names; call sites and async defs stay empty.

Every field it fills agrees with mmlint.facts.collect's for the same file
(tests/test_light_facts.py compares them over fixtures and real packages),
so the walk mirrors that collector's model rule for rule: which scope a
binding goes to, which frame a call belongs to, libcst's child order (an
except clause's body before its type, arguments in source order).
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from sys import intern
from typing import Any, Final, NamedTuple

from mmlint.core.diagnostics import Owner, Span, qualname
from mmlint.core.source import DecodeError, decode_source, round_trips
from mmlint.facts import model
from mmlint.facts.model import (
    CLS,
    DOTTED,
    KEYWORD_ONLY,
    NAME,
    POSITIONAL_ONLY,
    POSITIONAL_OR_KEYWORD,
    SELF,
    SUPER,
    TASK_WRAPPERS,
    UNKNOWN,
    VAR_KEYWORD,
    VAR_POSITIONAL,
    CalleeRef,
    CallRef,
    ClassInfo,
    FileFacts,
    ImportFact,
    Parameter,
    SyncDef,
    TwinAssignment,
    ValueFact,
)
from mmlint.facts.input_size import (
    EVIDENCE_NAMES,
    SIZED_NAMES,
    InputBounds,
    LengthValidators,
    arguments_by_name,
    has_bounded_input,
    cost_evidence,
)
from mmlint.facts.iterated_ast import CONSUMERS, CONSUMING_METHODS, IteratedRoots
from mmlint.facts.ray_entry import (
    deployed_by_call,
    deployment_classes,
    inherited_by_deployments,
    is_deployment_function,
    runs_per_request,
)
from mmlint.facts.once_ast import is_flag_test, is_guard, is_opt_in_flag, once_guarded_calls, opt_in_calls
from mmlint.facts.values import expr_path, lambda_name, stored_names, values_of
from mmlint.facts.module_paths import (
    module_name_for,
    module_path_parts,
    relative_anchor,
)
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
from mmlint.facts.shape_words import (
    BOUNDED_WRAPPERS,
    HANDOFF_CONSUMERS,
    NOT_IMPLEMENTED,
    OFFLOAD_HINTS,
    PROGRAM_MAIN,
    PROGRAM_RUNNER_MODULES,
    is_constant_name,
)

__all__ = ["light_facts"]

_ONLY_AST = 0x400  # PyCF_ONLY_AST
_LINE_ENDS = re.compile(r"\r\n?|\n")
_LINE_ENDS_KEPT = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")  # split after each line ending, keeping it
_ABSTRACT = ("abstractmethod", "abstractproperty")


class LightFields(NamedTuple):
    """What this tier reads of a file that may define coroutines."""

    facts: FileFacts  # every field but the call sites and the async defs
    # Where each call whose value an async def iterates where it is written
    # starts, (line, column) as its Span: mmlint.facts.iterated_ast stays the
    # one reading of that shape, and the collector looks its calls up here.
    iterated_starts: frozenset[tuple[int, int]]
    # Why the input of each call of an async def whose input is small is ("" when
    # the source fixes its size), by the call's Span (its start alone is shared
    # with a call on its value, `sha256(x).hexdigest()`): CallFact.bounded_input
    # and input_bound, of mmlint.facts.input_size, the one reading of both.
    input_bounds: Mapping[Span, str] = {}
    # The async defs with a for / while / async for in their own body, by where
    # each starts ((line, column) as its Span): the first of those loops whose
    # trip count grows with the input, described ("" when none does); and the
    # Spans of the calls inside a loop of a def that has such a loop
    # (CallFact.in_loop). This walk is the one reading of loops.
    loops: Mapping[tuple[int, int], str] = {}
    calls_in_loops: frozenset[Span] = frozenset()
    # Why each call of an async def whose positional arguments are short by
    # their names is so, by the call's Span (CallFact.short_arguments).
    short_arguments: Mapping[Span, str] = {}


def light_fields(text: str, tree: ast.Module, real_path: Path, display_path: str, round_trip: bool) -> LightFields:
    """Every field this tier fills, of a file that may define coroutines
    (``tree``: CPython's of ``text``); call sites and async defs stay empty
    (the collector, mmlint.facts.collect, fills those two)."""
    walk = _Walk(text, real_path)
    walk.run(tree, coroutines=True)
    facts = walk.facts(display_path, values_of(tree, real_path))
    facts = facts if round_trip else replace(facts, round_trips=False)
    loops, calls_in_loops = walk.coroutine_loops()
    input_bounds, short_arguments = walk.input_bounds()
    return LightFields(facts, walk.iterated_starts(), input_bounds, loops, calls_in_loops, short_arguments)


def light_facts(data: bytes, real_path: Path, display_path: str) -> FileFacts | None:
    """The facts of a file with no coroutine definition, or None when it does
    not decode or parse, or defines a coroutine after all (it is then no
    file for this tier)."""
    try:
        text = decode_source(data)
    except DecodeError:
        return None
    if "\x00" in text:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not ours to report
            tree = compile(text, display_path, "exec", flags=_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    walk = _Walk(text, real_path)
    if not walk.run(tree):
        return None
    facts = walk.facts(display_path, values_of(tree, real_path))
    return facts if round_trips(data) else replace(facts, round_trips=False)


@dataclass(eq=False)
class _Frame:
    """What one def, lambda or class body holds directly."""

    calls: list[tuple[ast.Call, NameScope, bool]] = field(default_factory=list)  # call, its scope, in a loop
    has_loop: bool = False
    unbounded_loop: str = ""
    is_generator: bool = False  # a `yield` or `yield from` of its own
    first_yield: tuple[int, int] | None = None  # where its first `yield` starts (line, column)
    # Its ifs that once_ast reads: lazy-init guards (is_guard) and opt-in flag tests (is_flag_test).
    guards: list[ast.If] = field(default_factory=list)
    globals_: set[str] = field(default_factory=set)  # names its `global` statements declare
    iterated: IteratedRoots = field(default_factory=IteratedRoots)  # mmlint.facts.iterated_ast
    # The names its assignments, loops and `with` bind: a parameter among them
    # is no longer what the callers passed (CallRef.by_arguments).
    bound: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class _Ctx:
    names: NameScope
    frame: _Frame | None
    owner: tuple[Owner, ...]
    at_module: bool  # directly at module level (no def, class, lambda or comprehension between)
    in_loop: bool  # inside a for / while of the frame's own body


@dataclass(frozen=True, slots=True)
class _PendingDef:
    node: ast.FunctionDef
    frame: _Frame
    owner: tuple[Owner, ...]
    imports_seen: int


_Stack = list[tuple[ast.AST, _Ctx]]


class _Walk:
    def __init__(self, text: str, real_path: Path) -> None:
        self.text = text
        self.real_path = real_path
        self._values: tuple[ValueFact, ...] = ()  # given to facts(): the argument facts name deployments
        self._lines: list[bytes] | None = None
        self.module_scope = NameScope(GLOBAL_SCOPE, None)
        self.imports: list[ImportFact] = []
        self.functions: list[str] = []
        self.assigned_names: list[str] = []
        self.module_bindings: set[str] = set()
        self.opt_in_flags: set[str] = set()  # module names once_ast.is_opt_in_flag accepts
        self.classes: list[ClassInfo] = []
        self.defs: list[_PendingDef] = []
        self.handed: list[tuple[str, str]] = []
        self.assigned_twins: list[tuple[str, str, str]] = []
        self.all_names: tuple[str, ...] | None = None  # the module's literal `__all__`, the last one
        # (target, (sync, async, wrapper), holding class or "" for the module)
        self.twin_assignments: list[tuple[ast.expr, tuple[str, str, str], str]] = []
        self.class_attributes: dict[str, list[str]] = {}  # class (qualified) -> ClassInfo.attributes
        # id(call) for each call that is the whole value of an expression statement (MM011).
        self.discarded: set[int] = set()
        # id(call) for each call that is a direct argument of a coroutine consumer (TASK_WRAPPERS).
        self.scheduled: set[int] = set()
        self.async_qualnames: set[str] = set()  # of the coroutine definitions (walked with ``coroutines``)
        self.coroutines: list[tuple[ast.AsyncFunctionDef, _Frame]] = []  # the same definitions
        # Calls in the module's own body: (call, its scope, imports seen before it).
        self.module_calls: list[tuple[ast.Call, NameScope, int]] = []

    def run(self, tree: ast.AST, *, coroutines: bool = False) -> bool:
        """Walk the module; False when it defines a coroutine, unless
        ``coroutines``: an async def then binds and owns as the collector's
        does, and its body is walked for what it holds (nested sync defs,
        imports, classes), its own calls kept by no def."""
        root = _Ctx(self.module_scope, None, (), True, False)
        stack: _Stack = [(tree, root)]
        while stack:
            node, ctx = stack.pop()
            kind = type(node)
            if kind is ast.AsyncFunctionDef:
                if not coroutines:
                    return False
                self._function_def(node, ctx, stack)  # type: ignore[arg-type]  # popped as ast.AST
                continue
            handler = _HANDLERS.get(kind)
            if handler is None or not handler(self, node, ctx, stack):
                _push_children(node, ctx, stack)
        return True

    # -- definitions and scopes

    def _function_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef, ctx: _Ctx, stack: _Stack) -> bool:
        bind(ctx.names, node.name)
        if ctx.at_module:
            self.module_bindings.add(node.name)
        if not ctx.owner:
            self.functions.append(node.name)
        type_params = getattr(node, "type_params", None)
        annotation_names = NameScope(ANNOTATION_SCOPE, ctx.names) if type_params else None
        header = _Ctx(annotation_names or ctx.names, ctx.frame, ctx.owner, False, False)
        body_names = NameScope(FUNCTION_SCOPE, annotation_names or ctx.names)
        kind = model.DEF if isinstance(node, ast.FunctionDef) else model.ASYNC_DEF
        owner = ctx.owner + (Owner(kind, node.name),)
        frame = _Frame()
        if isinstance(node, ast.FunctionDef):
            self.defs.append(_PendingDef(node, frame, owner, len(self.imports)))
        else:  # a coroutine's own facts are the collector's (mmlint.facts.lean)
            self.async_qualnames.add(qualname(owner))
            self.coroutines.append((node, frame))
        body = _Ctx(body_names, frame, owner, False, False)
        decorators = _Ctx(ctx.names, ctx.frame, ctx.owner, False, False)
        # Pushed last-first: decorators, type parameters, parameters, return annotation, body.
        _push_all(node.body, body, stack)
        _push(node.returns, header, stack)
        self._parameters(node.args, body_names, header, stack)
        _push_all(type_params or (), header, stack)
        _push_all(node.decorator_list, decorators, stack)
        return True

    def _parameters(self, args: ast.arguments, body_names: NameScope, outer: _Ctx, stack: _Stack) -> None:
        """Parameter names bind in the body's scope; annotations and defaults
        are evaluated where the def is (each parameter's annotation first)."""
        for param, default in reversed(_parameters_with_defaults(args)):
            bind(body_names, param.arg)
            _push(default, outer, stack)
            _push(param.annotation, outer, stack)

    def _lambda(self, node: ast.Lambda, ctx: _Ctx, stack: _Stack) -> bool:
        """A lambda is the def it abbreviates (``def <lambda@3:8>(x): return
        x + 1``, named by mmlint.facts.values.lambda_name), bound to no name."""
        body_names = NameScope(FUNCTION_SCOPE, ctx.names)
        frame = _Frame()
        owner = ctx.owner + (Owner(model.DEF, lambda_name(node)),)
        returned = ast.copy_location(ast.Return(value=node.body), node.body)
        function = ast.copy_location(
            ast.FunctionDef(name=lambda_name(node), args=node.args, body=[returned], decorator_list=[], returns=None),
            node,
        )
        self.defs.append(_PendingDef(function, frame, owner, len(self.imports)))
        stack.append((node.body, _Ctx(body_names, frame, owner, False, False)))
        self._parameters(node.args, body_names, _Ctx(ctx.names, ctx.frame, ctx.owner, False, False), stack)
        return True

    def _class_def(self, node: ast.ClassDef, ctx: _Ctx, stack: _Stack) -> bool:
        bind(ctx.names, node.name)
        if ctx.at_module:
            self.module_bindings.add(node.name)
        if all(part.kind == model.CLASS for part in ctx.owner):
            methods = tuple(s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)))
            # `Generic[T]`, `Base[int]`: the class subscripted is the base.
            bases = tuple(dotted_text(_unsubscripted(_unstarred(base))) or "" for base in node.bases)
            qual = ".".join([part.name for part in ctx.owner] + [node.name])
            decorators = tuple(dotted_text(target) or "<expr>" for target in _decorator_targets(node))
            self.classes.append(ClassInfo(qual, bases, methods, node.lineno, decorators=decorators))
        type_params = getattr(node, "type_params", None)
        annotation_names = NameScope(ANNOTATION_SCOPE, ctx.names) if type_params else None
        header = _Ctx(annotation_names or ctx.names, ctx.frame, ctx.owner, False, False)
        body_names = NameScope(CLASS_SCOPE, annotation_names or ctx.names)
        body = _Ctx(body_names, _Frame(), ctx.owner + (Owner(model.CLASS, node.name),), False, False)
        _push_all(node.body, body, stack)
        _push_all((*node.bases, *node.keywords), header, stack)
        _push_all(type_params or (), header, stack)
        _push_all(node.decorator_list, _Ctx(ctx.names, ctx.frame, ctx.owner, False, False), stack)
        return True

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp, ctx: _Ctx, stack: _Stack
    ) -> bool:
        """Element, targets, conditions and inner loops in the comprehension's
        own scope; the first iterable in the enclosing one."""
        inner = _Ctx(NameScope(COMPREHENSION_SCOPE, ctx.names), ctx.frame, ctx.owner, False, ctx.in_loop)
        order: list[tuple[ast.AST, _Ctx]] = []
        if isinstance(node, ast.DictComp):
            order += [(node.key, inner), (node.value, inner)]
        else:
            order.append((node.elt, inner))
        for index, generator in enumerate(node.generators):
            if ctx.frame is not None:
                ctx.frame.iterated.roots.append(generator.iter)
            for name in stored_names(generator.target):
                bind(inner.names, name)
            order.append((generator.target, inner))
            order.append((generator.iter, ctx if index == 0 else inner))
            order += [(condition, inner) for condition in generator.ifs]
        stack.extend(reversed(order))
        return True

    # -- bindings

    def _bind(self, ctx: _Ctx, target: ast.AST) -> list[str]:
        names = stored_names(target)
        for name in names:
            bind(ctx.names, name)
        if ctx.frame is not None:
            ctx.frame.bound.update(names)
        return names

    def _assign(self, node: ast.Assign, ctx: _Ctx, stack: _Stack) -> bool:
        if isinstance(node.value, ast.Call) and len(node.targets) == 1:
            twin = assigned_twin(node.targets[0], node.value)
            if twin is not None:
                self.assigned_twins.append(twin)
                holder = _twin_holder(ctx.owner, node.targets[0], node.value)
                if holder is not None:
                    self.twin_assignments.append((node.targets[0], twin, holder))
        if ctx.frame is not None and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
            ctx.frame.iterated.named.append((node.targets[0].id, node.value))
        for target in node.targets:
            self._class_attribute(ctx.owner, target)
            names = self._bind(ctx, target)
            if not ctx.owner:
                self.module_bindings.update(names)
                if isinstance(target, ast.Name):
                    self.assigned_names.append(target.id)
                    if is_opt_in_flag(node.value):
                        self.opt_in_flags.add(target.id)
                    if target.id == "__all__":
                        self.all_names = self._literal_all(node.value)
        return False

    def _ann_assign(self, node: ast.AnnAssign, ctx: _Ctx, stack: _Stack) -> bool:
        self._class_attribute(ctx.owner, node.target)
        names = self._bind(ctx, node.target)
        if ctx.at_module:
            self.module_bindings.update(names)
        return False

    def _binding_target(self, node: ast.AugAssign | ast.NamedExpr, ctx: _Ctx, stack: _Stack) -> bool:
        self._class_attribute(ctx.owner, node.target)
        self._bind(ctx, node.target)
        return False

    def _class_attribute(self, owner: tuple[Owner, ...], target: ast.expr) -> None:
        """As FileWalk._class_attribute (mmlint.facts.collect)."""
        depth = next((i for i, part in enumerate(owner) if part.kind != model.CLASS), len(owner))
        if depth == 0:
            return
        holder = ".".join(part.name for part in owner[:depth])
        if depth == len(owner):
            names = stored_names(target)
        else:
            elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            names = [e.attr for e in elements if _on_self(e) and isinstance(e, ast.Attribute)]
        if names:
            self.class_attributes.setdefault(holder, []).extend(names)

    def _loop(self, node: ast.For | ast.AsyncFor | ast.While, ctx: _Ctx, stack: _Stack) -> bool:
        frame = ctx.frame
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self._bind(ctx, node.target)
        if frame is not None:
            frame.has_loop = True
            if not isinstance(node, ast.While):
                frame.iterated.roots.append(node.iter)
            if not frame.unbounded_loop and not (
                isinstance(node, (ast.For, ast.AsyncFor)) and is_bounded_iterable(node.iter)
            ):
                frame.unbounded_loop = self._loop_description(node)
        _push_children(node, _Ctx(ctx.names, ctx.frame, ctx.owner, ctx.at_module, True), stack)
        return True

    def _with(self, node: ast.With | ast.AsyncWith, ctx: _Ctx, stack: _Stack) -> bool:
        # `as` targets bind and are not walked (as libcst's AsName is not).
        _push_all(node.body, ctx, stack)
        for item in reversed(node.items):
            if item.optional_vars is not None:
                self._bind(ctx, item.optional_vars)
            stack.append((item.context_expr, ctx))
        return True

    def _except_handler(self, node: ast.ExceptHandler, ctx: _Ctx, stack: _Stack) -> bool:
        if node.name is not None:
            bind(ctx.names, node.name)
        _push(node.type, ctx, stack)  # after the body, in libcst's order
        _push_all(node.body, ctx, stack)
        return True

    def _match_case(self, node: ast.AST, ctx: _Ctx, stack: _Stack) -> bool:
        # Patterns hold no calls, and their captures bind nothing in the model.
        _push(getattr(node, "guard", None), ctx, stack)
        _push_all(getattr(node, "body", ()), ctx, stack)
        return True

    def _type_parameter(self, node: ast.AST, ctx: _Ctx, stack: _Stack) -> bool:
        bind(ctx.names, getattr(node, "name", ""))
        return False

    def _type_alias(self, node: ast.AST, ctx: _Ctx, stack: _Stack) -> bool:
        name = getattr(node, "name", None)
        if isinstance(name, ast.Name):
            bind(ctx.names, name.id)
        type_params = getattr(node, "type_params", ())
        inner = (
            _Ctx(NameScope(ANNOTATION_SCOPE, ctx.names), ctx.frame, ctx.owner, False, ctx.in_loop)
            if type_params
            else ctx
        )
        _push(getattr(node, "value", None), inner, stack)
        _push_all(type_params, inner, stack)
        return True

    def _global(self, node: ast.Global, ctx: _Ctx, stack: _Stack) -> bool:
        if ctx.frame is not None:
            ctx.frame.globals_.update(node.names)
        if ctx.names.kind != GLOBAL_SCOPE:
            for name in node.names:
                ctx.names.declared[name] = self.module_scope
        return True

    def _nonlocal(self, node: ast.Nonlocal, ctx: _Ctx, stack: _Stack) -> bool:
        parent = ctx.names.parent
        if parent is not None:
            for name in node.names:
                ctx.names.declared[name] = parent
        return True

    def _import(self, node: ast.Import, ctx: _Ctx, stack: _Stack) -> bool:
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            bind(ctx.names, bound)
            if ctx.at_module:
                self.module_bindings.add(bound)
        if ctx.owner:
            return True
        for alias in node.names:
            if alias.asname is not None:
                self.imports.append(ImportFact(alias.asname, alias.name))
            else:
                head = alias.name.split(".")[0]
                self.imports.append(ImportFact(head, head))
        return True

    def _import_from(self, node: ast.ImportFrom, ctx: _Ctx, stack: _Stack) -> bool:
        if any(alias.name == "*" for alias in node.names):
            if not ctx.owner:
                self._star_import(node)
            return True
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            bind(ctx.names, bound)
            if ctx.at_module:
                self.module_bindings.add(bound)
        if ctx.owner:
            return True
        target = node.module
        anchor: tuple[str, ...] = ()
        if node.level:
            found = relative_anchor(self.real_path, node.level)
            if found is None:
                return True
            anchor = found
        for alias in node.names:
            local = alias.asname or alias.name
            self.imports.append(ImportFact(local, f"{target}.{alias.name}" if target else alias.name, anchor))
        return True

    def _star_import(self, node: ast.ImportFrom) -> None:
        """`from m import *`: an ImportFact whose local is STAR, the module as target."""
        anchor: tuple[str, ...] = ()
        if node.level:
            found = relative_anchor(self.real_path, node.level)
            if found is None:
                return
            anchor = found
        if node.module or anchor:
            self.imports.append(ImportFact(model.STAR, node.module or "", anchor))

    # -- calls

    def _expr(self, node: ast.Expr, ctx: _Ctx, stack: _Stack) -> bool:
        if type(node.value) is ast.Call:
            self.discarded.add(id(node.value))
        return False

    def _call(self, node: ast.Call, ctx: _Ctx, stack: _Stack) -> bool:
        func = node.func
        if ctx.frame is not None:
            ctx.frame.calls.append((node, ctx.names, ctx.in_loop))
        elif not ctx.owner:
            self.module_calls.append((node, ctx.names, len(self.imports)))
        if isinstance(func, ast.Attribute):
            name = func.attr
            if name in CONSUMING_METHODS and ctx.frame is not None:
                ctx.frame.iterated.consumed(node)
        elif isinstance(func, ast.Name):
            name = func.id
            if name in CONSUMERS and ctx.frame is not None:
                ctx.frame.iterated.consumed(node)
        else:
            if isinstance(func, ast.Call):  # `app.exception_handler(E)(handler)`
                self.handed.extend(handed_functions(node))
            name = ""
        if name in TASK_WRAPPERS:
            self.scheduled.update(id(value) for value in _argument_values(node) if type(value) is ast.Call)
        if name in HANDOFF_CONSUMERS:
            self.handed.extend(handed_functions(node))
        elif name == "run_until_complete" or (
            name == "run" and isinstance(func, ast.Attribute) and _name_text(func.value) in PROGRAM_RUNNER_MODULES
        ):
            self.handed.extend(handed_functions(node, PROGRAM_MAIN))
        if name:  # `lifespan=f` (FastAPI, Starlette): f runs once, at start-up and shutdown
            self.handed.extend(
                (tail, "lifespan")
                for keyword in node.keywords
                if keyword.arg == "lifespan" and (tail := dotted_tail(keyword.value))
            )
        stack.extend((child, ctx) for child in reversed(call_arguments(node)))
        stack.append((func, ctx))
        return True

    def _dict(self, node: ast.Dict, ctx: _Ctx, stack: _Stack) -> bool:
        for key, value in reversed(list(zip(node.keys, node.values))):
            stack.append((value, ctx))
            _push(key, ctx, stack)
        return True

    # -- from the walk's records to facts

    def _resolve_dotted(self, text: str, imports_seen: int) -> str:
        head, _, rest = text.partition(".")
        for fact in reversed(self.imports[:imports_seen]):
            if fact.local == head:
                target = fact.target if not fact.anchor else f".{fact.target}"
                return f"{target}.{rest}" if rest else target
        return text

    def _dotted_callee(self, call: ast.Call, imports_seen: int) -> str:
        text = dotted_text(call.func)
        if text is not None:
            return intern(self._resolve_dotted(text, imports_seen))
        if isinstance(call.func, ast.Attribute):
            return f"<expr>.{receiver_chain(call.func)}"
        return "<expr>"

    def facts(self, display_path: str, values: tuple[ValueFact, ...]) -> FileFacts:
        """The file's facts, with its ``values`` (mmlint.facts.values.values_of),
        which name the defs a call deploys (mmlint.facts.ray_entry)."""
        self._values = values
        module_name, is_package = module_name_for(self.real_path)
        return FileFacts(
            path=display_path,
            module=module_name,
            is_package=is_package,
            module_path=module_path_parts(self.real_path),
            newline=_default_newline(self.text),
            call_sites=(),
            async_defs=(),
            sync_defs=tuple(self._sync_def(pending) for pending in self.defs),
            imports=tuple(self.imports),
            classes=tuple(
                ClassInfo(
                    c.name,
                    c.bases,
                    c.methods,
                    c.line,
                    tuple(dict.fromkeys(self.class_attributes.get(c.name, ()))),
                    c.decorators,
                )
                for c in self.classes
            ),
            functions=tuple(self.functions),
            assigned_names=tuple(self.assigned_names),
            module_bindings=frozenset(self.module_bindings),
            handed_coroutines=tuple(dict.fromkeys(self.handed)),
            assigned_twins=tuple(dict.fromkeys(self.assigned_twins)),
            all_names=self.all_names,
            twin_assignments=tuple(
                TwinAssignment(sync, async_, wrapper, holder or None, target.lineno)
                for target, (sync, async_, wrapper), holder in self.twin_assignments
            ),
            module_calls=tuple(
                CallRef(
                    self._dotted_callee(call, seen), callee_ref(call.func, scope), len(call.args) + len(call.keywords)
                )
                for call, scope, seen in self.module_calls
            ),
            values=values,
        )

    def _sync_def(self, pending: _PendingDef) -> SyncDef:
        node, frame, owner = pending.node, pending.frame, pending.owner
        own_calls = [call for call, _, _ in frame.calls]
        once = once_guarded_calls(node, own_calls, frame.guards, frame.globals_)
        opt_in = opt_in_calls(node, own_calls, frame.guards, self.opt_in_flags)
        iterated = frame.iterated.calls()
        bounds = InputBounds(node, self._validators)
        evidence = _cost_evidence(node, frame)
        bounded = {id(call): _input_size(bounds, call, evidence) for call, _, _ in frame.calls}
        arguments = _arguments_of(bounds, frame, bounded)
        enclosing = owner[:-1]
        class_name = (
            ".".join(p.name for p in enclosing) if enclosing and all(p.kind == model.CLASS for p in enclosing) else None
        )
        decorators = tuple(dotted_text(target) or "<expr>" for target in _decorator_targets(node))
        # A deployment's method that runs on the replica's loop: MM005 reports its calls, so each is placed.
        placed = (class_name in self._deployments and runs_per_request(node.name, decorators)) or (
            is_deployment_function(len(owner), decorators, self.imports, node.name, self._deployed_by_call)
        )
        return SyncDef(
            name=node.name,
            qualname=qualname(owner),
            class_name=class_name,
            owner=owner,
            line=node.lineno,
            is_stub=is_stub_body(node.body),
            is_abstract=any(dotted_tail(target) in _ABSTRACT for target in _decorator_targets(node)),
            decorators=decorators,
            params=self._parameters_of(node.args, node.lineno),
            has_loop=frame.has_loop,
            unbounded_loop=frame.unbounded_loop,
            calls=tuple(
                CallRef(
                    self._dotted_callee(call, pending.imports_seen),
                    callee_ref(call.func, scope),
                    len(call.args) + len(call.keywords),
                    bool(frame.unbounded_loop) and in_loop,
                    discarded=id(call) in self.discarded,
                    scheduled=id(call) in self.scheduled,
                    span=self._call_span(call) if placed or self._droppable(call, scope, class_name, owner) else None,
                    bounded_input=bounded[id(call)][0],
                    input_bound=bounded[id(call)][1],
                    once=call in once,
                    opt_in=call in opt_in,
                    iterated=call in iterated,
                    short_arguments=arguments.get(id(call), _UNJUDGED)[0],
                    by_arguments=arguments.get(id(call), _UNJUDGED)[1],
                )
                for call, scope, in_loop in frame.calls
            ),
            is_generator=frame.is_generator,
        )

    def _droppable(self, call: ast.Call, scope: NameScope, class_name: str | None, owner: tuple[Owner, ...]) -> bool:
        """A discarded call whose callee may resolve to a scanned async def, as
        mmlint.facts.collect places them (MM011): a method through self./cls./
        super() in a class, a module-level def or import, an attribute of an
        import or a class, or an async def nested in the caller."""
        if id(call) not in self.discarded:
            return False
        ref = callee_ref(call.func, scope)
        if ref.kind in (SELF, CLS, SUPER):
            return class_name is not None
        if ref.kind in (NAME, DOTTED):
            head = ref.text.split(".", 1)[0]
            return (
                head in self.module_bindings
                and head not in self._assigned_set
                and (ref.kind == NAME or head not in self._function_set)
            )
        return ref.text.isidentifier() and f"{qualname(owner)}.<locals>.{ref.text}" in self.async_qualnames

    @functools.cached_property
    def _validators(self) -> LengthValidators:
        """The module's functions, by name, a sized call's input may be
        bounded by (input_size.LengthValidators): each defined once, at
        module level, by a plain `def`."""
        functions: dict[str, ast.FunctionDef] = {}
        twice: set[str] = set()
        for pending in self.defs:
            if len(pending.owner) == 1:
                if pending.node.name in functions:
                    twice.add(pending.node.name)
                functions[pending.node.name] = pending.node
        return LengthValidators({name: node for name, node in functions.items() if name not in twice})

    @functools.cached_property
    def _deployments(self) -> frozenset[str]:
        """The module's Ray Serve deployment classes (qualified names), once
        its imports are all read."""
        # Whose methods' calls are placed: the deployments' and their same-module bases'.
        deployments = deployment_classes(self.classes, self.imports, self._values)
        return deployments | frozenset(inherited_by_deployments(self.classes, deployments)) if deployments else deployments

    @functools.cached_property
    def _deployed_by_call(self) -> frozenset[str]:
        return deployed_by_call(self._values, self.imports)

    @functools.cached_property
    def _assigned_set(self) -> frozenset[str]:
        return frozenset(self.assigned_names)

    @functools.cached_property
    def _function_set(self) -> frozenset[str]:
        return frozenset(self.functions)

    def _if(self, node: ast.If, ctx: _Ctx, stack: _Stack) -> bool:
        if ctx.frame is not None and (is_guard(node) or is_flag_test(node)):
            ctx.frame.guards.append(node)
        return False

    def _return(self, node: ast.Return, ctx: _Ctx, stack: _Stack) -> bool:
        if node.value is not None and ctx.frame is not None:
            ctx.frame.iterated.roots.append(node.value)  # the caller iterates it
        return False

    def _yield(self, node: ast.Yield | ast.YieldFrom, ctx: _Ctx, stack: _Stack) -> bool:
        if ctx.frame is not None:
            ctx.frame.is_generator = True
            at = (node.lineno, node.col_offset)
            if ctx.frame.first_yield is None or at < ctx.frame.first_yield:
                ctx.frame.first_yield = at
            if type(node) is ast.YieldFrom:
                ctx.frame.iterated.roots.append(node.value)
        return False

    def _call_span(self, call: ast.Call) -> Span:
        """The call's range as libcst's PositionProvider places it: without
        parentheses around it (unlike its codegen), columns in characters."""
        line, end_line = call.lineno, call.end_lineno or call.lineno
        column = self._characters(line, call.col_offset)
        return Span(line, column + 1, end_line, self._characters(end_line, call.end_col_offset or 0) + 1)

    def iterated_starts(self) -> frozenset[tuple[int, int]]:
        return frozenset(
            (call.lineno, self._characters(call.lineno, call.col_offset) + 1)
            for _, frame in self.coroutines
            for call in frame.iterated.calls()
        )

    def coroutine_loops(self) -> tuple[dict[tuple[int, int], str], frozenset[Span]]:
        """LightFields.loops and LightFields.calls_in_loops."""
        loops: dict[tuple[int, int], str] = {}
        in_loops: list[Span] = []
        for node, frame in self.coroutines:
            if not frame.has_loop:
                continue
            loops[(node.lineno, self._characters(node.lineno, node.col_offset) + 1)] = frame.unbounded_loop
            if frame.unbounded_loop:
                in_loops += (self._call_span(call) for call, _, in_loop in frame.calls if in_loop)
        return loops, frozenset(in_loops)

    def input_bounds(self) -> tuple[dict[Span, str], dict[Span, str]]:
        """LightFields.input_bounds and short_arguments: the calls of async
        defs whose input is small, and those whose arguments are short by
        their names (input_size.arguments_by_name)."""
        found, short = {}, {}
        for node, frame in self.coroutines:
            bounds = InputBounds(node, self._validators)
            evidence = _cost_evidence(node, frame)
            for call, _, _ in frame.calls:
                bounded, reason = _input_size(bounds, call, evidence)
                if bounded:
                    found[self._call_span(call)] = reason
                elif _judged_by_arguments(call):
                    why, _ = arguments_by_name(call, frozenset())
                    if why:
                        short[self._call_span(call)] = why
        return found, short

    def _characters(self, line: int, offset: int) -> int:
        """How many characters the first ``offset`` bytes of ``line`` hold (ast counts UTF-8 bytes)."""
        head = self._source_lines()[line - 1][:offset]
        return offset if head.isascii() else len(head.decode("utf-8", "surrogatepass"))

    def _literal_all(self, value: ast.expr) -> tuple[str, ...] | None:
        """The names of a literal ``__all__``: a list or tuple of plain string
        literals (an implicit concatenation, which libcst keeps apart, is none)."""
        if not isinstance(value, (ast.List, ast.Tuple)):
            return None
        names: list[str] = []
        for element in value.elts:
            if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
                return None
            if self._is_concatenated(element):
                return None
            names.append(element.value)
        return tuple(names)

    def _is_concatenated(self, node: ast.Constant) -> bool:
        text = self._span_bytes(node.lineno, node.col_offset, node.end_lineno or node.lineno, node.end_col_offset or 0)
        try:
            tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.STRING]
        except (tokenize.TokenError, SyntaxError):
            return True
        return len(tokens) != 1

    def _parameters_of(self, args: ast.arguments, def_line: int) -> tuple[Parameter, ...]:
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        found = [
            self._parameter(
                param, POSITIONAL_ONLY if index < len(args.posonlyargs) else POSITIONAL_OR_KEYWORD, default, def_line
            )
            for index, (param, default) in enumerate(zip(positional, defaults))
        ]
        if args.vararg is not None:
            found.append(Parameter(args.vararg.arg, VAR_POSITIONAL, False))
        found += [self._parameter(p, KEYWORD_ONLY, d, def_line) for p, d in zip(args.kwonlyargs, args.kw_defaults)]
        if args.kwarg is not None:
            found.append(Parameter(args.kwarg.arg, VAR_KEYWORD, False))
        return tuple(found)

    def _parameter(self, param: ast.arg, kind: str, default: ast.expr | None, def_line: int) -> Parameter:
        default_text = "" if default is None else self._expression_text(default, def_line)
        annotation = "" if param.annotation is None else self._expression_text(param.annotation, def_line)
        return Parameter(param.arg, kind, default is not None, default_text, annotation)

    # -- source text, as libcst's codegen gives a node's (its own parentheses included)

    def _expression_text(self, node: ast.expr, def_line: int) -> str:
        """A parameter's default or annotation as libcst's codegen of the node
        alone gives it: a dotted name as its dotted text (parenthesised or
        not, as mmlint.facts.syntax has it), anything else as written."""
        return dotted_text(node) or self._dedented(self._segment(node), def_line)

    def _dedented(self, text: str, line: int) -> str:
        """``text`` with each continuation line stripped of the indentation of
        the block the statement on ``line`` is in: libcst keeps that apart
        from a node's own whitespace, so its codegen of the node lacks it."""
        if "\n" not in text and "\r" not in text:
            return text
        header = self._source_lines()[line - 1].decode("utf-8", "surrogatepass")
        indent = header[: len(header) - len(header.lstrip(" \t"))]
        if not indent:
            return text
        first, *rest = _LINE_ENDS_KEPT.split(text)
        return first + "".join(piece.removeprefix(indent) for piece in rest)

    def _loop_description(self, node: ast.For | ast.AsyncFor | ast.While) -> str:
        if isinstance(node, ast.While):
            return "a `while` loop"
        text = self._dedented(self._segment(node.iter), node.lineno)
        if len(text) > 40 or "\n" in text:
            text = (dotted_text(node.iter) or text.split("(", 1)[0] + "(...)")[:40]
        return f"a loop over `{text}`"

    def _source_lines(self) -> list[bytes]:
        if self._lines is None:
            encoded = self.text.encode("utf-8", "surrogatepass")
            starts = [0] + [m.end() for m in _LINE_ENDS_BYTES.finditer(encoded)]
            self._lines = [encoded[a:b] for a, b in zip(starts, [*starts[1:], len(encoded)])]
        return self._lines

    def _span_bytes(self, line: int, column: int, end_line: int, end_column: int) -> str:
        lines = self._source_lines()
        if line == end_line:
            chunk = lines[line - 1][column:end_column]
        else:
            chunk = lines[line - 1][column:] + b"".join(lines[line : end_line - 1]) + lines[end_line - 1][:end_column]
        return chunk.decode("utf-8", "surrogatepass")

    def _bounds(self, node: ast.expr) -> tuple[int, int, int, int]:
        """The node's range widened over the parentheses around it (libcst
        counts them as the node's own); a call's parentheses are not around it."""
        lines = self._source_lines()
        line, column = node.lineno, node.col_offset
        end_line, end_column = node.end_lineno or line, node.end_col_offset or column
        while True:
            before = _before(lines, line, column)
            after = _after(lines, end_line, end_column)
            if before is None or after is None or lines[before[0] - 1][before[1] : before[1] + 1] != b"(":
                return line, column, end_line, end_column
            if lines[after[0] - 1][after[1] : after[1] + 1] != b")" or _calls_or_subscripts(lines, before):
                return line, column, end_line, end_column
            line, column, end_line, end_column = before[0], before[1], after[0], after[1] + 1

    def _segment(self, node: ast.expr) -> str:
        return self._span_bytes(*self._bounds(node))


_LINE_ENDS_BYTES = re.compile(rb"\r\n?|\n")
_SPACE = b" \t\f\\\r\n"


def _before(lines: list[bytes], line: int, column: int) -> tuple[int, int] | None:
    """Where the last non-blank character before (line, column) is (comments are not looked through)."""
    while line >= 1:
        text = lines[line - 1][:column]
        stripped = text.rstrip(_SPACE)
        if stripped:
            return line, len(stripped) - 1
        line -= 1
        column = len(lines[line - 1]) if line >= 1 else 0
    return None


def _after(lines: list[bytes], line: int, column: int) -> tuple[int, int] | None:
    while line <= len(lines):
        text = lines[line - 1]
        rest = text[column:]
        stripped = rest.lstrip(_SPACE)
        if stripped and not stripped.startswith(b"#"):
            return line, column + len(rest) - len(stripped)
        line += 1
        column = 0
    return None


def _calls_or_subscripts(lines: list[bytes], paren: tuple[int, int]) -> bool:
    """The `(` at ``paren`` opens a call's arguments (a name, `)` or `]` before it), not a group."""
    found = _before(lines, paren[0], paren[1])
    if found is None:
        return False
    char = lines[found[0] - 1][found[1] : found[1] + 1]
    if char in (b")", b"]"):
        return True
    if not (char.isalnum() or char == b"_" or char >= b"\x80"):
        return False
    # `in (x)`, `not (x)`, `return (x)`, `=(x)`: a keyword before it is no callee.
    line = lines[found[0] - 1][: found[1] + 1]
    word = re.search(rb"[\w\x80-\xff]+$", line)
    return word is None or word.group(0).decode("utf-8", "replace") not in _KEYWORDS


_KEYWORDS = frozenset(
    {
        "in",
        "not",
        "and",
        "or",
        "is",
        "if",
        "else",
        "elif",
        "return",
        "yield",
        "await",
        "lambda",
        "for",
        "while",
        "assert",
        "del",
        "from",
        "import",
        "raise",
        "with",
        "as",
        "case",
        "match",
    }
)


def _default_newline(text: str) -> str:
    """libcst's default newline: the first line ending, else "\\n"."""
    found = _LINE_ENDS.search(text)
    return found.group(0) if found is not None else "\n"


# -- the walk's child order


def _push(node: ast.AST | None, ctx: _Ctx, stack: _Stack) -> None:
    if node is not None:
        stack.append((node, ctx))


def _push_all(nodes: object, ctx: _Ctx, stack: _Stack) -> None:
    stack.extend((node, ctx) for node in reversed(list(nodes)))  # type: ignore[call-overload]


# Nodes with nothing below them that any fact needs, and fields that never hold code.
_LEAVES = frozenset(
    {
        ast.Constant,
        ast.Name,
        ast.Pass,
        ast.Break,
        ast.Continue,
        ast.Load,
        ast.Store,
        ast.Del,
        ast.alias,
        *ast.operator.__subclasses__(),
        *ast.cmpop.__subclasses__(),
        *ast.unaryop.__subclasses__(),
        *ast.boolop.__subclasses__(),
    }
)
_NO_CODE = frozenset({"ctx", "op", "ops", "type_comment", "conversion", "kind", "level", "is_async"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _push_children(node: ast.AST, ctx: _Ctx, stack: _Stack) -> None:
    """Push the child nodes of ``node`` so that they are visited in field order."""
    node_type = type(node)
    names = _FIELDS.get(node_type)
    if names is None:
        names = _FIELDS[node_type] = tuple(name for name in reversed(node_type._fields) if name not in _NO_CODE)
    leaves = _LEAVES
    for name in names:
        value = getattr(node, name, None)
        if value is None:
            continue
        if type(value) is list:
            for child in reversed(value):
                if type(child) not in leaves and isinstance(child, ast.AST):
                    stack.append((child, ctx))
        elif type(value) not in leaves and isinstance(value, ast.AST):
            stack.append((value, ctx))


def call_arguments(call: ast.Call) -> list[ast.expr]:
    """A call's argument values in source order (libcst's): positional,
    starred and keyword arguments interleaved as written."""
    if not call.keywords:
        return list(call.args)
    if not call.args:
        return [keyword.value for keyword in call.keywords]
    every: list[tuple[tuple[int, int], ast.expr]] = [((arg.lineno, arg.col_offset), arg) for arg in call.args]
    every += [((keyword.lineno, keyword.col_offset), keyword.value) for keyword in call.keywords]
    every.sort(key=lambda item: item[0])
    return [value for _, value in every]


def _argument_values(call: ast.Call) -> list[ast.expr]:
    """Each argument's value, a starred one's without its star (libcst's Arg.value)."""
    return [_unstarred(value) for value in call.args] + [keyword.value for keyword in call.keywords]


def _parameters_with_defaults(args: ast.arguments) -> list[tuple[ast.arg, ast.expr | None]]:
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    every = list(zip(positional, defaults))
    if args.vararg is not None:
        every.append((args.vararg, None))
    every += list(zip(args.kwonlyargs, args.kw_defaults))
    if args.kwarg is not None:
        every.append((args.kwarg, None))
    return every


# -- small questions about ast nodes (mmlint.facts.syntax and .shapes ask them of libcst's)


def _name_text(node: ast.AST) -> str | None:
    """A name's text; libcst reads `None`, `True` and `False` as names too."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and (node.value is None or node.value is True or node.value is False):
        return repr(node.value)
    return None


def dotted_text(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    name = _name_text(node)
    if name is None:
        return None
    parts.append(name)
    return ".".join(reversed(parts))


def dotted_tail(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return _name_text(node) or ""


def _unstarred(node: ast.expr) -> ast.expr:
    return node.value if isinstance(node, ast.Starred) else node


def _unsubscripted(node: ast.expr) -> ast.expr:
    return node.value if isinstance(node, ast.Subscript) else node


def _decorator_targets(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[ast.expr]:
    return [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]


def _is_stub_statement(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr):
        value = statement.value
        return isinstance(value, ast.Constant) and (value.value is Ellipsis or isinstance(value.value, (str, bytes)))
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        exc = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return dotted_text(exc) in NOT_IMPLEMENTED
    return False


def is_stub_body(body: list[ast.stmt]) -> bool:
    return all(_is_stub_statement(statement) for statement in body)


def callee_ref(func: ast.expr, scope: NameScope) -> CalleeRef:
    if isinstance(func, ast.Name):
        return CalleeRef(UNKNOWN if bound_in_function(func.id, scope) else NAME, func.id)
    if isinstance(func, ast.Attribute):
        receiver = func.value
        if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
            return CalleeRef(SELF if receiver.id == "self" else CLS, func.attr)
        if (
            isinstance(receiver, ast.Call)
            and isinstance(receiver.func, ast.Name)
            and receiver.func.id == "super"
            and not receiver.args
            and not receiver.keywords
        ):
            return CalleeRef(SUPER, func.attr)
        text = dotted_text(func)
        if text is not None:
            head = text.split(".", 1)[0]
            return CalleeRef(UNKNOWN if bound_in_function(head, scope) else DOTTED, intern(text))
    # A computed callee by its path (`workers[].generate`, `get_session().get`):
    # what mmlint.analysis.values types it by.
    return CalleeRef(UNKNOWN, intern(expr_path(func) or "<expr>"))


def receiver_chain(func: ast.Attribute) -> str:
    parts = [func.attr]
    node = func.value
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Call):
        name = dotted_tail(node.func)
        if name:
            parts.append(f"{name}()")
    return ".".join(reversed(parts))


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    return isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict))


def is_bounded_iterable(node: ast.expr) -> bool:
    if _is_literal(node):
        if isinstance(node, ast.Dict):
            return all(key is not None for key in node.keys)
        return not any(isinstance(element, ast.Starred) for element in getattr(node, "elts", ()))
    text = dotted_text(node)
    if text is not None:
        return is_constant_name(text)
    if isinstance(node, ast.Call):
        name = dotted_tail(node.func)
        values = call_arguments(node)
        if name == "range":
            return all(
                _is_integer_or_unary(_unstarred(value)) and not isinstance(value, ast.Starred) for value in values
            )
        if name in BOUNDED_WRAPPERS and values:
            return all(is_bounded_iterable(_unstarred(arg)) for arg in node.args)
        if isinstance(node.func, ast.Attribute) and name in ("items", "keys", "values") and not values:
            return is_bounded_iterable(node.func.value)
    return False


def _is_integer_or_unary(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp):
        return True
    return isinstance(node, ast.Constant) and type(node.value) is int


def handed_functions(call: ast.Call, consumer: str = "") -> list[tuple[str, str]]:
    """The functions ``call`` hands on (by last name), each with its consumer:
    ``consumer`` when given, else the call's own name if a HANDOFF_CONSUMERS one."""
    if not consumer:
        consumer = dotted_tail(call.func.func if isinstance(call.func, ast.Call) else call.func)
        if consumer not in HANDOFF_CONSUMERS:
            return []
    found = []
    for value in call_arguments(call):
        value = _unstarred(value)
        if isinstance(value, ast.Call):
            value = value.func
        name = dotted_tail(value)
        if name:
            found.append((name, consumer))
    return found


def assigned_twin(target: ast.expr, value: ast.Call) -> tuple[str, str, str] | None:
    arguments = call_arguments(value)
    if not arguments:
        return None
    async_name = dotted_tail(target)
    wrapper = dotted_tail(value.func)
    wrapped = _unstarred(arguments[0])
    if wrapper == "partial" and len(arguments) >= 2 and dotted_tail(wrapped) in ("to_thread", "run_in_executor"):
        wrapper, wrapped = dotted_tail(wrapped), _unstarred(arguments[1])
    sync_name = dotted_tail(wrapped)
    if not async_name or not sync_name or async_name == sync_name or not wrapper:
        return None
    if sync_name not in async_name and not any(hint in wrapper.lower() for hint in OFFLOAD_HINTS):
        return None
    return sync_name, async_name, wrapper


def _twin_holder(owner: tuple[Owner, ...], target: ast.expr, value: ast.Call) -> str | None:
    """As mmlint.facts.collect._twin_holder: "" for a module-level name
    wrapping a module-level name, the class (qualified) for `self.X_async =
    wrapper(self.X)` in a method directly in its body; None otherwise."""
    arguments = call_arguments(value)
    wrapped = _unstarred(arguments[0])
    if (
        isinstance(wrapped, ast.Attribute)
        and isinstance(wrapped.value, ast.Name)
        and wrapped.value.id in ("asyncio", "functools")
    ):
        wrapped = _unstarred(arguments[1]) if len(arguments) > 1 else wrapped  # partial(asyncio.to_thread, X)
    if not owner:
        # libcst reads `None`, `True` and `False` as names too.
        return "" if isinstance(target, ast.Name) and _name_text(wrapped) is not None else None
    if len(owner) < 2 or owner[-1].kind == model.CLASS or not all(part.kind == model.CLASS for part in owner[:-1]):
        return None
    if not (_on_self(target) and _on_self(wrapped)):
        return None
    return ".".join(part.name for part in owner[:-1])


def _on_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


_Handler = Callable[[_Walk, Any, _Ctx, _Stack], bool]
_HANDLERS: dict[type, _Handler] = {
    ast.FunctionDef: _Walk._function_def,
    ast.Lambda: _Walk._lambda,
    ast.ClassDef: _Walk._class_def,
    ast.ListComp: _Walk._comprehension,
    ast.SetComp: _Walk._comprehension,
    ast.DictComp: _Walk._comprehension,
    ast.GeneratorExp: _Walk._comprehension,
    ast.Assign: _Walk._assign,
    ast.AnnAssign: _Walk._ann_assign,
    ast.AugAssign: _Walk._binding_target,
    ast.NamedExpr: _Walk._binding_target,
    ast.For: _Walk._loop,
    ast.AsyncFor: _Walk._loop,
    ast.While: _Walk._loop,
    ast.With: _Walk._with,
    ast.AsyncWith: _Walk._with,
    ast.ExceptHandler: _Walk._except_handler,
    ast.Global: _Walk._global,
    ast.Nonlocal: _Walk._nonlocal,
    ast.Import: _Walk._import,
    ast.ImportFrom: _Walk._import_from,
    ast.Call: _Walk._call,
    ast.Return: _Walk._return,
    ast.If: _Walk._if,
    ast.Yield: _Walk._yield,
    ast.YieldFrom: _Walk._yield,
    ast.Expr: _Walk._expr,
    ast.Dict: _Walk._dict,
    ast.match_case: _Walk._match_case,
}
for _name in ("TypeVar", "TypeVarTuple", "ParamSpec"):
    if hasattr(ast, _name):
        _HANDLERS[getattr(ast, _name)] = _Walk._type_parameter
if hasattr(ast, "TypeAlias"):
    _HANDLERS[ast.TypeAlias] = _Walk._type_alias


_CONTEXT_MANAGERS = frozenset({"contextmanager", "asynccontextmanager"})


def _cost_evidence(node: ast.FunctionDef | ast.AsyncFunctionDef, frame: _Frame) -> dict[int, str]:
    """input_size.cost_evidence of a def's own calls: a commit counts as
    its with-body's after the first `yield` of a `@contextmanager`."""
    if not any(isinstance(call.func, ast.Attribute) and call.func.attr in EVIDENCE_NAMES for call, _, _ in frame.calls):
        return {}
    managed = frame.first_yield is not None and any(
        dotted_tail(target) in _CONTEXT_MANAGERS for target in _decorator_targets(node)
    )
    return cost_evidence((call for call, _, _ in frame.calls), frame.first_yield if managed else None)


def _input_size(bounds: InputBounds, call: ast.Call, evidence: Mapping[int, str]) -> tuple[bool, str]:
    """(bounded_input, input_bound) of a call (CallFact, CallRef): its size
    fixed by the source, else why it is short by evidence ("" when unknown).
    A call light only by evidence (a ``sqlite3`` statement) is judged by
    ``evidence`` alone (input_size.cost_evidence), never by its input."""
    if isinstance(call.func, ast.Attribute) and call.func.attr in EVIDENCE_NAMES:
        reason = evidence.get(id(call), "")
        return bool(reason), reason
    if has_bounded_input(call):
        return True, ""
    reason = bounds.reason(call)
    return bool(reason), reason


_UNJUDGED: Final = ("", False)


def _judged_by_arguments(call: ast.Call) -> bool:
    """A call whose arguments' names may tell how short they are: not a sized
    call (InputBounds reads those) nor one light by evidence."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return bool(call.args) and name not in SIZED_NAMES and name not in EVIDENCE_NAMES


def _arguments_of(
    bounds: InputBounds, frame: _Frame, bounded: Mapping[int, tuple[bool, str]]
) -> dict[int, tuple[str, bool]]:
    """CallRef.short_arguments and by_arguments of a sync def's calls, by
    ``id`` of the call: a sized call of unknown input by InputBounds.by_arguments
    (a few per package), any other by its arguments' names (arguments_by_name)."""
    parameters = _caller_given(bounds.function.args) - frame.bound
    found: dict[int, tuple[str, bool]] = {}
    for call, _, _ in frame.calls:
        if bounded[id(call)][0] or not call.args:
            continue
        if _judged_by_arguments(call):
            judged = arguments_by_name(call, parameters)
            if judged != _UNJUDGED:
                found[id(call)] = judged
        elif bounds.by_arguments(call, parameters):
            found[id(call)] = ("", True)
    return found


def _caller_given(args: ast.arguments) -> frozenset[str]:
    """The parameters a caller's positional arguments fill (not ``self`` /
    ``cls``, nor ``*args``: a tuple of any length)."""
    return frozenset(arg.arg for arg in (*args.posonlyargs, *args.args)) - {"self", "cls"}
