"""The facts one parse of one file yields: one frozen FileFacts, plain data (no
CST nodes), so facts can be cached by content hash and computed in worker
processes. Every rule and `audit` read this one model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from mmlint.core.diagnostics import Owner, Span
from mmlint.core.pickling import pickles_by_fields
from mmlint.core.twins import TwinPair
from mmlint.facts.ir import Node

# Scope kinds, innermost first, as seen from a call site.
ScopeKind = Literal["module", "class", "def", "async def", "lambda", "comprehension", "generator expression"]
MODULE: Final = "module"
CLASS: Final = "class"
DEF: Final = "def"
ASYNC_DEF: Final = "async def"
LAMBDA: Final = "lambda"
COMPREHENSION: Final = "comprehension"
GENEXP: Final = "generator expression"

# Coroutine consumers, by the last name of the callee: a coroutine passed as an
# argument to one of these is scheduled or run, not dropped (MM006).
TASK_WRAPPERS = frozenset(
    {
        "create_task",
        "ensure_future",
        "gather",
        "wait_for",
        "wait",
        "shield",
        "as_completed",
        "run",
        "run_until_complete",
        "run_coroutine_threadsafe",
    }
)

# Kinds of callee reference. NAME: a bare name bound at module level (or
# imported); DOTTED: ``a.b.f`` whose first part may be a module alias or a class;
# SELF / CLS / SUPER: a method looked up along the enclosing class's MRO;
# UNKNOWN: anything else (a local variable, a subscript, a call result...).
CalleeKind = Literal["name", "dotted", "self", "cls", "super", "unknown"]
NAME: Final = "name"
DOTTED: Final = "dotted"
SELF: Final = "self"
CLS: Final = "cls"
SUPER: Final = "super"
UNKNOWN: Final = "unknown"


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class CallSite:
    """A call of either twin of a pair (references that are not calls are not sites)."""

    span: Span  # from the first character of the callee expression to the closing paren
    name_span: Span  # the twin's name token
    callee: str  # the twin's name as written
    pair: TwinPair
    is_async_twin: bool
    receiver: str  # source text before ".name" ("self", "super()", "proc") or "" for a bare name
    # The innermost scope that decides whether `await` is allowed there (comprehensions
    # are looked through): one of MODULE, CLASS, DEF, ASYNC_DEF, LAMBDA.
    deciding_scope: ScopeKind
    # The chain of scopes from the call outward until the deciding one, e.g.
    # (COMPREHENSION, DEF) for a list comprehension inside a sync def.
    scope_chain: tuple[ScopeKind, ...]
    in_genexp: bool  # a generator expression lies between the call and the deciding scope
    awaited: bool  # the call is the direct operand of `await`
    in_task_wrapper: bool  # an argument of create_task/gather/ensure_future/wait_for/...
    in_fstring: bool  # inside an f-string replacement field (one token before Python 3.12)
    in_annotation: bool  # inside an annotation, where `await` is not allowed
    callee_parenthesized: bool  # `(self.twin)(...)`: the callee is wrapped in parentheses
    needs_parens: bool  # `await` must be parenthesised here ((await x)[0], (await x).a, (await x)())
    delegation: bool  # inside the body of this pair's async twin (the base-class delegation)
    # Its coroutine is kept: assigned to a name that is awaited or wrapped in a
    # task later in the same function, or returned from a sync def (MM006).
    coroutine_kept: bool
    owner: tuple[Owner, ...]

    @property
    def awaitable(self) -> bool:
        return self.deciding_scope == ASYNC_DEF

    @property
    def comprehension_depth(self) -> int:
        """How many comprehensions (of any kind) enclose the call below its deciding scope."""
        return sum(kind in (COMPREHENSION, GENEXP) for kind in self.scope_chain)


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class CalleeRef:
    kind: CalleeKind
    text: str  # "f", "m.f", "x" (the attribute after self./cls./super().), or the source text

    def describe(self) -> str:
        if self.kind == SELF:
            return f"self.{self.text}"
        if self.kind == CLS:
            return f"cls.{self.text}"
        if self.kind == SUPER:
            return f"super().{self.text}"
        # A computed callee's path (mmlint.facts.values.expr_path), as a reader writes it.
        return self.text.replace("()", "(...)").replace("[]", "[...]")


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class AwaitFact:
    span: Span  # the `await` keyword to the end of the awaited expression
    callee: CalleeRef | None  # None: the awaited expression is not a call
    text: str  # short source text for messages: "preprocess(...)"


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class CallFact:
    """A call made directly in an async def's own body (MM005, MM010)."""

    span: Span  # the call, from the callee's first character to the closing paren
    dotted: str  # callee resolved through the file's imports: "time.sleep", "<expr>.read"
    future_result: bool  # `.result()` on a future from `.submit(...)` or concurrent.futures
    callee: CalleeRef  # what the callee refers to, for resolution inside the scanned code
    arity: int = 0  # how many arguments it is given (a zero-argument getter is cheap)
    # Where the call sits, for a rewrite to `await` (MM010): the callee's name
    # token (None when the callee is not a name or attribute), scope kinds from
    # the call out to the async def (comprehensions included), and the syntax
    # around it that an inserted `await` must respect.
    name_span: Span | None = None
    scope_chain: tuple[ScopeKind, ...] = ()
    awaited: bool = False  # the direct operand of `await`
    needs_parens: bool = False  # `await` must be parenthesised here ((await x)[0], (await x).a)
    callee_parenthesized: bool = False
    in_fstring: bool = False
    in_annotation: bool = False
    # An argument of a coroutine consumer (create_task, gather, wait_for...):
    # it only creates a coroutine, like an awaited call (never blocking).
    scheduled: bool = False
    in_loop: bool = False  # inside a loop whose trip count grows with the input (AsyncDef.unbounded_loop)
    # The whole value of an expression statement: its result, a coroutine
    # when the callee is an async def, is dropped (MM011).
    discarded: bool = False
    # Every positional argument's size is fixed by the source (a literal, a
    # constant, a constant-bounded slice: mmlint.facts.input_size.has_bounded_input)
    # or short by evidence (``input_bound``): a call whose cost grows with its
    # input is cheap here.
    bounded_input: bool = False
    # Its value is iterated where it is written (`for x in f()`, `list(f())`,
    # a local iterated later in the same body): a call of a generator
    # function runs its body only then (mmlint.facts.iterated_ast).
    iterated: bool = False
    # Why every positional argument is short though the source does not fix
    # its size ("`first_frame` is tested to be an http(s) URL", "`rid` is an
    # identifier, short by its meaning": mmlint.facts.input_size); "" when
    # not so. Set, ``bounded_input`` is too.
    input_bound: str = ""
    # Why every positional argument is short by its name's meaning, the call
    # no sized one ("`refresh_token` is a token, short by its meaning":
    # mmlint.facts.input_size.arguments_by_name); "" when not so. A call of a
    # def whose digest is as short as its arguments is cheap where this is set
    # (mmlint.analysis.weight's argument_chains).
    short_arguments: str = ""

    @property
    def in_genexp(self) -> bool:
        return GENEXP in self.scope_chain

    @property
    def comprehension_depth(self) -> int:
        return sum(kind in (COMPREHENSION, GENEXP) for kind in self.scope_chain)


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class CallRef:
    """A call made directly in a sync def's own body: what it calls, for
    chains through the call graph, and a position only where a rule may
    report on it (MM011)."""

    dotted: str
    callee: CalleeRef
    arity: int = 0
    in_loop: bool = False  # as CallFact.in_loop
    discarded: bool = False  # as CallFact.discarded
    # A direct argument of a coroutine consumer (`asyncio.run(...)`,
    # `run_coroutine_threadsafe(...)`, `create_task(...)`): it only creates a
    # coroutine, never blocking (as CallFact.scheduled, one level deep).
    scheduled: bool = False
    # The call, from the callee's first character to the closing paren: set
    # for a discarded call whose callee may be a scanned async def (MM011),
    # None for every other call (placing each would cost a codegen of its line).
    span: Span | None = None
    bounded_input: bool = False  # as CallFact.bounded_input
    # Runs once per object, not per call: inside a lazy-initialisation guard
    # (`if self._x is None: self._x = load()`) or after an early return on a
    # flag the def sets (`if self._started: return`), mmlint.facts.once_ast.
    once: bool = False
    # Runs only when an opt-in flag read from the environment at import is on
    # (`if _PROFILE:`, after `if not _PROFILE: return`), mmlint.facts.once_ast.
    opt_in: bool = False
    iterated: bool = False  # as CallFact.iterated
    input_bound: str = ""  # as CallFact.input_bound
    short_arguments: str = ""  # as CallFact.short_arguments
    # Its input is built only from the def's parameters (never assigned in
    # its body) and values short by evidence: a digest-like call
    # (``light_when_short``: ``hashlib.sha256(data.encode())`` in ``def
    # sha256_hex(data)``), or any call passing them on (``sha256_hex(key)``
    # in ``def validate_api_key(self, key)``). Such a call costs what its
    # input's size makes it cost at each caller of the def
    # (mmlint.analysis.weight's argument_chains).
    by_arguments: bool = False


# Parameter kinds, as inspect names them.
POSITIONAL_ONLY = "positional-only"
POSITIONAL_OR_KEYWORD = "positional-or-keyword"
VAR_POSITIONAL = "var-positional"
KEYWORD_ONLY = "keyword-only"
VAR_KEYWORD = "var-keyword"


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    kind: str  # one of the kinds above
    has_default: bool
    default: str = ""  # the default's source text ("" when none): twins must agree on it (MM010)
    annotation: str = ""  # the annotation's source text ("" when none), for the same reason


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class TimeoutFact:
    """`asyncio.wait_for(<call>, t)` or `async with asyncio.timeout(t):` (MM007)."""

    kind: Literal["wait_for", "timeout"]
    span: Span
    callee: CalleeRef | None  # wait_for: the wrapped call's callee (None if not a call)
    body: Node  # timeout: the IR of the with-body; wait_for: EMPTY
    text: str


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class AsyncDef:
    """An `async def`: what MM003 needs locally, and its suspension IR for the
    cross-file analysis (MM004, MM007, audit). One classification, read by all."""

    name: str
    qualname: str  # "Class.method", "function", "outer.<locals>.inner"
    class_name: str | None  # the class it is a method of (directly in the class body)
    owner: tuple[Owner, ...]  # enclosing definitions, the function itself last
    span: Span  # from the `async` keyword to the end of the name
    is_stub: bool  # body only docstring / pass / ... / raise NotImplementedError
    is_abstract: bool  # @abstractmethod / @abstractproperty, any spelling
    is_overload: bool  # @overload / @typing.overload
    in_protocol: bool  # defined in a class deriving from Protocol
    is_generator: bool  # a `yield` in its own body
    # Dotted text of decorators other than the known-transparent ones
    # (staticmethod, classmethod, abstractmethod, override...): a decorator may
    # replace the coroutine with something that behaves differently.
    opaque_decorators: tuple[str, ...]
    params: tuple[Parameter, ...]
    has_loop: bool  # a `for` / `while` / `async for` statement in its own body
    body: Node
    awaits: tuple[AwaitFact, ...]
    calls: tuple[CallFact, ...]
    timeouts: tuple[TimeoutFact, ...]
    # await / async for / async with anywhere in its own body (comprehensions
    # included; nested defs, lambdas and classes not).
    has_suspension_point: bool
    # Only docstring / pass / ... / raise NotImplementedError, `del` of its
    # parameters and a constant `return`: satisfies an interface, does no work
    # (its weight is "stub"; see mmlint.analysis.weight).
    is_stub_like: bool = False
    # What the first loop whose trip count grows with the input iterates
    # ("`request.items`", "a `while` loop"); "" when every loop in its own
    # body runs over a literal, a constant or a literal `range` (or there is none).
    unbounded_loop: str = ""

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def is_interface_only(self) -> bool:
        """Not a body that runs as written: a stub, an abstract method, an
        overload, a Protocol member; or an async generator, which suspends at
        each `yield`. Neither MM003 nor the audit's verdicts judge these."""
        return self.is_stub or self.is_abstract or self.is_overload or self.in_protocol or self.is_generator

    @property
    def is_fake_async(self) -> bool:
        """Judged, and not one suspension point in its own body: what MM003
        reports and what `audit` counts as "never suspends, no suspension point"."""
        return not self.is_interface_only and not self.has_suspension_point


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class SyncDef:
    """A plain `def` (sync function or method): what twin discovery and the
    call graph through sync code need."""

    name: str
    qualname: str
    class_name: str | None  # the class it is a method of (directly in the class body)
    owner: tuple[Owner, ...]  # enclosing definitions, the function itself last
    line: int  # of the `def` keyword
    is_stub: bool
    is_abstract: bool
    decorators: tuple[str, ...]  # dotted text of every decorator ("<expr>" when not dotted)
    params: tuple[Parameter, ...]
    has_loop: bool  # a `for` / `while` statement in its own body
    calls: tuple[CallRef, ...]  # in its own body, source order
    unbounded_loop: str = ""  # as AsyncDef.unbounded_loop
    # A `yield` in its own body: calling it only creates a generator, and its
    # body runs where that is iterated (CallRef.iterated).
    is_generator: bool = False


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class ClassInfo:
    name: str  # qualified through enclosing classes: "Outer.Inner"
    bases: tuple[str, ...]  # dotted reference text; "" for a base that is not a dotted name
    methods: tuple[str, ...]  # every name defined by def / async def in the class body
    line: int
    # Other names an instance may hold: assigned in the class body (fields,
    # wrapped twins) or as ``self.X = ...`` in a method directly in the body.
    attributes: tuple[str, ...] = ()
    # Dotted text of each decorator, a call's callee for `@d(...)` ("<expr>"
    # when not dotted): a framework's decorator can make the class an entry
    # point (a Ray Serve deployment, a Ray actor: mmlint.facts.ray_entry).
    decorators: tuple[str, ...] = ()

    def defines(self, name: str) -> bool:
        """Whether an instance of this class itself may hold ``name`` (a class
        with ``__getattr__`` may hold any)."""
        return name in self.methods or name in self.attributes or "__getattr__" in self.methods


# Where a ValueFact's name lives.
# "argument": an argument passed to a call (``holder``: the callee's path,
# ``name``: the position, "0", "1"..., or the keyword), for a parameter's values.
# "implicit": a call the syntax makes without parentheses, in the def ``holder``
# ("" at module level): ``name`` "raise" for ``raise E`` (E is constructed),
# "iter" for ``for x in c`` (``source`` ``c``: its ``__iter__``, then that one's ``__next__``).
# "decorated": a module-level sync def ``name`` is what its decorators return
# (``source`` ``d1()`` for ``@d1 @d2 def f``); the def itself is ``<def:f>``.
# "import": an import statement in the def ``holder`` binds its local ``name``,
# as a module-level one's ImportFact does (``source`` its target, ``keys``
# its anchor): ``from .io import load`` in ``f`` is ``ValueFact("import",
# "f", "load", "io.load", "f", keys=<the package directory's path parts>)``.
ValueKind = Literal["global", "attribute", "local", "return", "argument", "implicit", "decorated", "import"]


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class ValueFact:
    """Where a name's value comes from, flow-insensitively (one fact per
    assignment; a name with several is their union): mmlint.facts.values
    writes them, mmlint.analysis.values types receivers by them.

    ``source`` is an expression in a small path language: dotted names,
    ``()`` after a call, ``[]`` after a subscript (``ModelWorker()``,
    ``zmq.Context().socket()``, ``self.get_mm_processor()``, ``workers[]``);
    an annotation ``T`` is written ``T()``, an instance of ``T``."""

    kind: ValueKind
    # "" for a module global; the class (qualified) whose instances hold an
    # attribute; the def (qualname) a local or a return value belongs to.
    holder: str
    name: str  # the global, attribute or local ("" for a return value)
    source: str
    # The def (qualname) where ``source`` is evaluated ("" at module or class level).
    context: str = ""
    # The value is a container (a dict, list, set or tuple display or
    # comprehension) whose elements are ``source`` ("" when none is known).
    element: bool = False
    # That container's type, when ``element``: "list", "dict", "set", "tuple",
    # "generator" for a display or comprehension, the annotation's name
    # ("dict", "Sequence", "deque") for an annotated one.
    container: str = ""
    # When ``element``: the constant keys it is stored under, outermost first
    # (``d = {"a": [f]}``: ``("'a'", "0")``; a key's repr, "" when not constant).
    keys: tuple[str, ...] = ()


# ImportFact.local of `from m import *`: its target is the module m.
STAR = "*"


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class ImportFact:
    """One name a module-level import binds (``local`` STAR for a star import,
    which binds the module's public names). ``target`` is dotted; for a
    relative import it is relative to ``anchor``, the absolute path parts of
    the package directory the dots lead to (``()`` for an absolute import)."""

    local: str
    target: str
    anchor: tuple[str, ...] = ()


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class TwinAssignment:
    """An async twin defined by assignment through an offloading wrapper:
    ``X_async = make_async(X, ...)`` at module level, or ``self.X_async =
    wrapper(self.X)`` in a method (MM010). The wrapper runs ``X`` with the
    arguments it is given, off the loop."""

    sync: str
    async_: str
    wrapper: str  # the wrapper's last name: "make_async", "to_thread"
    class_name: str | None  # the class whose instances hold it (qualified); None at module level
    line: int  # of the assignment's target


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class FileFacts:
    path: str  # display path (relative posix when under the cwd, else absolute)
    module: str  # dotted module name ("pkg.sub.mod"; "pkg.sub" for a package __init__)
    is_package: bool
    # Absolute path parts of the module, suffix dropped (the directory for a
    # package __init__): how imports find it when its parents are namespace
    # packages or lie outside the scan.
    module_path: tuple[str, ...]
    newline: str  # the file's line ending, as libcst detected it
    call_sites: tuple[CallSite, ...]
    async_defs: tuple[AsyncDef, ...]
    sync_defs: tuple[SyncDef, ...]
    imports: tuple[ImportFact, ...]
    classes: tuple[ClassInfo, ...]
    functions: tuple[str, ...]  # module-level def / async def names
    # Module-level assignment targets, which shadow imports in resolution.
    assigned_names: tuple[str, ...]
    # Every name bound at module level by def, class, import or assignment (the
    # bare-function fix needs the async twin reachable by name).
    module_bindings: frozenset[str]
    # Decoding the bytes and encoding the text back gives the same bytes (not
    # so for some UTF-7 spellings): text edits can then leave every other byte alone.
    round_trips: bool = True
    # Functions handed, by reference or as a coroutine, to something that runs
    # them as coroutines: (last name of the function, last name of the
    # consumer), e.g. ("on_error", "add_exception_handler"),
    # ("heartbeat", "run_coroutine_threadsafe"). Read for MM003's advice.
    handed_coroutines: tuple[tuple[str, str], ...] = ()
    # Twins defined by assignment: (sync name, async name, wrapper) for
    # `X_async = make_async(X, ...)` and `self.X_async = wrapper(self.X)`.
    assigned_twins: tuple[tuple[str, str, str], ...] = ()
    # The module's literal `__all__` (a list or tuple of string literals; an
    # `__all__ +=` is ignored), None when absent or not literal: what a star
    # import of the module binds.
    all_names: tuple[str, ...] | None = None
    # The assigned twins above that MM010 can wire: at module level, or on
    # `self` in a method directly in a class body, with where each is.
    twin_assignments: tuple[TwinAssignment, ...] = ()
    # Where names' values come from (mmlint.facts.values): module globals,
    # instance attributes, locals and return values that a receiver's type
    # can be read from.
    values: tuple[ValueFact, ...] = ()
    # Calls made directly in the module's own body (decorators, defaults and
    # base classes of its top-level defs and classes included; not in a def,
    # lambda or class body), source order: `mmlint graph`'s edges of "<module>".
    module_calls: tuple[CallRef, ...] = ()
