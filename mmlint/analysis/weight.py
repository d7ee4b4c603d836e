"""Weight of code that runs on the event loop in one go, and blocking calls
reached through the call graph of scanned sync code.

One classification, read by MM003, MM004, MM005 and `audit`:

- a never-suspending async def is *heavy* when its body, an in-package sync
  function it calls, or a coroutine it awaits hollowly, reaches a known
  blocking or heavy call (``blocking_patterns``: mmlint.core.knowledge and the
  configuration), a `.result()` on a future, or a loop whose trip count grows
  with its input (not one over a literal, a constant or a literal `range`);
  *stub* when its body only satisfies an interface (``AsyncDef.is_stub_like``);
  *unknown* when nothing heavy is found but it calls something that cannot be
  resolved and is not known to be cheap (never reported on that alone);
  *light* otherwise (constants, response and exception constructors,
  container operations, attribute access). The reason names the costliest
  call (a known call over a future's result over a loop) and the chain to it;
- awaited calls, and calls handed to `create_task` / `gather` / `wait_for`,
  only create a coroutine: they never block and weigh nothing;
- a scanned sync def *blocks* when it reaches a known blocking call through
  scanned sync calls. Offloading stops a chain by construction: the function
  handed to ``to_thread`` / ``run_in_executor`` / ``submit`` is an argument, not
  a call, and a lambda's body is not its enclosing function's;
- a scanned sync def whose only known cost is a digest (or base64...) of
  an input built from its parameters (``def sha256_hex(data)``), directly or
  by passing them on to such a def (CallRef.by_arguments), costs what each
  call's arguments make it cost: nothing where they are short by their
  names (a token, an id: CallFact.short_arguments), a whole payload's digest
  anywhere else (``argument_chains``).

Both are least fixed points over the defs reachable from async defs, as the
suspension verdicts are: a cycle with nothing heavy in it is light.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Final, Literal

from mmlint.analysis.contexts import MAIN, ONCE_CONTEXTS, OVERRIDE, Contexts
from mmlint.analysis.passes import passes_until_stable
from mmlint.analysis.resolve import DefKey, SyncCall, SyncKey
from mmlint.core.diagnostics import Span
from mmlint.core.knowledge import (
    LIGHT_WHEN_SHORT,
    SIZED_BY_INPUT,
    UNKNOWN_ORIGIN,
    costs_here,
    is_type_pattern,
    reason_of,
)
from mmlint.facts.model import UNKNOWN, AsyncDef, CalleeRef, CallFact, CallRef, FileFacts, Parameter, SyncDef
from mmlint.facts.ray_entry import replica_loop_methods

if TYPE_CHECKING:
    from mmlint.analysis.suspension import SuspensionAnalysis

WeightKind = Literal["heavy", "light", "stub", "unknown"]
HEAVY: Final = "heavy"
LIGHT: Final = "light"
STUB: Final = "stub"
# Never suspends, nothing heavy found, but it calls something that cannot be
# resolved and is not known to be cheap: not reported on that alone.
UNKNOWN_WEIGHT: Final = "unknown"

# Builtins that do no more than container, string or type work.
CHEAP_BUILTINS = frozenset(
    {
        "len",
        "str",
        "int",
        "float",
        "bool",
        "bytes",
        "dict",
        "list",
        "tuple",
        "set",
        "frozenset",
        "object",
        "isinstance",
        "issubclass",
        "getattr",
        "setattr",
        "hasattr",
        "delattr",
        "id",
        "type",
        "repr",
        "hash",
        "min",
        "max",
        "abs",
        "round",
        "any",
        "all",
        "sum",
        "enumerate",
        "zip",
        "range",
        "iter",
        "next",
        "reversed",
        "sorted",
        "map",
        "filter",
        "format",
        "callable",
        "super",
        "vars",
        "divmod",
        "print",
        "slice",
        "ord",
        "chr",
    }
)
# Methods that are container, string, event or logging operations whatever
# the receiver (`.get` on a dict; `requests.get` is matched as blocking first).
CHEAP_METHODS = frozenset(
    {
        "append",
        "appendleft",
        "extend",
        "insert",
        "pop",
        "popleft",
        "popitem",
        "remove",
        "clear",
        "add",
        "discard",
        "update",
        "get",
        "setdefault",
        "keys",
        "values",
        "items",
        "copy",
        "index",
        "count",
        "startswith",
        "endswith",
        "lower",
        "upper",
        "strip",
        "lstrip",
        "rstrip",
        "split",
        "rsplit",
        "join",
        "format",
        "replace",
        "is_set",
        "set",
        "put_nowait",
        "get_nowait",
        "qsize",
        "empty",
        "full",
        "set_result",
        "set_exception",
        "done",
        "cancel",
        "cancelled",
        "create_task",
        "call_soon",
        "call_soon_threadsafe",
        "call_later",
        "create_future",
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "critical",
        "log",
        "isoformat",
        "total_seconds",
        "fromkeys",
        "model_dump",
        "decode",
        "encode",
    }
)
# Modules whose functions are arithmetic, type or small-value work.
CHEAP_MODULES = frozenset(
    {
        "math",
        "operator",
        "typing",
        "enum",
        "http",
        "uuid",
        "collections",
        "dataclasses",
        "functools",
        "itertools",
        "string",
    }
)
# Accessors: a call of one of these with no argument reads a value.
GETTER_PREFIXES = ("get_", "is_", "has_")
CHEAP_FUNCTIONS = frozenset(
    {
        "time.time",
        "time.perf_counter",
        "time.monotonic",
        "time.time_ns",
        "time.perf_counter_ns",
        "time.monotonic_ns",
        "uuid.uuid4",
        "os.getenv",
        "os.environ.get",
        "os.getpid",
        "asyncio.create_task",
        "asyncio.ensure_future",
        "asyncio.get_running_loop",
        "asyncio.get_event_loop",
        "asyncio.Event",
        "asyncio.Queue",
        "asyncio.Lock",
        "asyncio.Future",
        "asyncio.Semaphore",
        "logging.getLogger",
        "dataclasses.replace",
        "copy.copy",
        "functools.partial",
        "typing.cast",
    }
)
# Constructors by their last name: responses and exceptions.
CHEAP_CLASS_SUFFIXES = ("Response", "Error", "Exception", "Warning", "Exit", "Disconnect")


@functools.lru_cache(maxsize=1 << 16)  # the weight fixed point asks of every call every round
def is_cheap_call(dotted: str, arity: int) -> bool:
    """Whether a call outside the scanned code, by its resolved dotted name and
    its number of arguments, is known to be cheap: a cheap builtin, method or
    module function; a constructor (a CamelCase name: responses, exceptions,
    data objects; an expensive one belongs in `blocking-calls`); a response
    helper (``*_response``); a getter called with no argument (``get_*``,
    ``is_*``, ``has_*``)."""
    if dotted in CHEAP_FUNCTIONS or dotted.split(".", 1)[0] in CHEAP_MODULES:
        return True
    last = dotted.rsplit(".", 1)[-1]
    if last[:1].isupper() and not last.isupper() or last.endswith(CHEAP_CLASS_SUFFIXES):
        return True
    if last.endswith("_response") or (arity == 0 and last.startswith(GETTER_PREFIXES)):
        return True
    if "." not in dotted:
        return dotted in CHEAP_BUILTINS
    return last in CHEAP_METHODS


def matching_pattern(dotted: str, patterns: tuple[str, ...]) -> str | None:
    """The first blocking-call pattern ``dotted`` matches, or None. A
    wildcard pattern also matches the callee's attribute chain on its own:
    ``*.future.wait`` matches ``future.wait`` and ``<expr>.future.wait``."""
    exact, suffixes, combined = _compiled(patterns)
    chain = dotted[6:] if dotted.startswith("<expr>.") else f".{dotted}"
    if (
        dotted not in exact
        and not (dotted.endswith(suffixes) or chain.endswith(suffixes))
        and (combined is None or (combined.match(dotted) is None and combined.match(chain) is None))
    ):
        return None  # the common case: no pattern matches, told by a lookup, an endswith and a regex
    return next(  # which one does (an exact name may follow a wildcard that matches too)
        (
            pattern
            for pattern in patterns
            if fnmatchcase(dotted, pattern) or (pattern not in exact and fnmatchcase(chain, pattern))
        ),
        None,
    )


_WILDCARDS = "*?["


@functools.lru_cache(maxsize=16)
def _compiled(patterns: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...], re.Pattern[str] | None]:
    """The exact names; the suffixes of the ``*suffix``
    patterns (``*.read_text``, most of the defaults: an ``endswith`` decides
    them, where a regex alternation tries each at every position); one regex
    for the other wildcard patterns."""
    exact: set[str] = set()
    suffixes: list[str] = []
    wild: list[str] = []
    for pattern in patterns:
        if not any(char in pattern for char in _WILDCARDS):
            exact.add(pattern)
        elif pattern.startswith("*") and not any(char in pattern[1:] for char in _WILDCARDS):
            suffixes.append(pattern[1:])
        else:
            wild.append(fnmatch.translate(pattern))
    combined = re.compile("|".join(f"(?:{part})" for part in wild)) if wild else None
    return frozenset(exact), tuple(suffixes), combined


# Decorators that leave a function's call as it is.
_TRANSPARENT_DECORATORS = frozenset({"staticmethod", "classmethod", "abstractmethod", "override"})

_LOOP_OVER = re.compile(r"a loop over `(?P<text>.*)`")


@functools.lru_cache(maxsize=1 << 12)
def _iterable_roots(text: str) -> frozenset[str] | None:
    """The names a loop's iterable is built from (``items`` in
    ``enumerate(request.items)``; a called name is not one), or None when the
    shown text does not parse (cut short)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    return frozenset(node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and id(node) not in called)


def input_loop(loop: str, params: Iterable[str], module_names: Iterable[str], is_method: bool = True) -> str:
    """``loop`` (an ``unbounded_loop`` description) when it is a loop over the
    input: a `while` loop, or a `for` loop whose iterable is built from a
    parameter or a local value (a request's body); "" for a loop only over
    ``self.`` / ``cls.`` attributes (configuration, a handful of workers) or
    module-level names (a worker map built at start-up)."""
    match = _LOOP_OVER.fullmatch(loop)
    if match is None:
        return loop
    roots = _iterable_roots(match.group("text"))
    if roots is None or not roots:
        return loop
    owned = set(module_names) - set(params)
    if is_method:
        owned |= {"self", "cls"}
    return loop if roots - owned else ""


def run_where_written(calls: tuple[CallRef, ...]) -> list[CallRef]:
    """A sync def's calls that run where they are written: not those handed
    to `asyncio.run` / `run_coroutine_threadsafe` / `create_task` and the
    like, which only create a coroutine (never blocking, they weigh nothing),
    nor those that run once per object (a lazy initialisation, a start-up
    step behind a flag: CallRef.once) or only when a deployment opts in (a
    profiler behind an environment flag: CallRef.opt_in), whose cost is not
    the request's."""
    return [call for call in calls if not call.scheduled and not call.once and not call.opt_in]


def shown_callee(dotted: str) -> str:
    """A resolved callee as a reader would write it: `<expr>.get_tokenizer().encode` → `get_tokenizer().encode`."""
    return dotted[7:] if dotted.startswith("<expr>.") else dotted


@dataclass(frozen=True, slots=True)
class Step:
    """A sync def on a blocking chain."""

    name: str  # qualname
    path: str
    line: int

    def describe(self) -> str:
        return f"`{self.name}` at {self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class BlockingChain:
    steps: tuple[Step, ...]  # the called sync def first, then what it calls, ...
    call: str  # the known blocking call at the end: "requests.get"
    pattern: str = ""  # the pattern it matched

    def describe(self) -> str:
        """ "`wait_for_service` at bench.py:3 → `requests.get`"."""
        return " → ".join([*(s.describe() for s in self.steps), f"`{shown_callee(self.call)}`"])


@dataclass(frozen=True, slots=True)
class TransitiveBlocking:
    """A call, in an async def, of a scanned sync def that reaches a blocking call."""

    path: str
    span: Span
    callee: str  # the call as written: "wait_for_service", "self.poll"
    chain: BlockingChain
    enclosing: DefKey


@dataclass(frozen=True, slots=True)
class ReplicaBlocking:
    """A call that blocks a Ray Serve replica's loop, in one of its
    deployment's sync methods (mmlint.facts.ray_entry): a known blocking call
    (``chain`` None), or a call of a scanned sync def that reaches one."""

    root: SyncKey  # the deployment's method
    span: Span
    callee: str  # the call as written: "requests.get", "self.load"
    blocking: str  # the known blocking call itself, resolved: "requests.get"
    pattern: str  # the pattern it matched
    chain: BlockingChain | None


# How much a cost weighs when several compete for the reason: a known
# blocking or heavy call, a `.result()` on a future, a loop growing with the input.
KNOWN_CALL = 3
FUTURE_RESULT = 2
LOOP = 1


@dataclass(frozen=True, slots=True)
class Cost:
    """Why code is heavy: the costliest thing it reaches, and the way there."""

    rank: int
    reason: str  # "`tokenizer.encode(...)` tokenizes text", "a loop over `request.items`"
    chain: tuple[str, ...] = ()  # "`A.f` at x.py:3", ..., "`tokenizer.encode`": from the judged def's callee on

    def through(self, step: str) -> "Cost":
        return Cost(self.rank, self.reason, (step, *self.chain))


@dataclass(frozen=True, slots=True)
class Weight:
    kind: WeightKind
    reason: str  # why heavy ("`tokenizer.encode(...)` tokenizes text ..."); for UNKNOWN, the unresolved callee
    chain: tuple[str, ...] = ()  # how the def reaches its costliest call (Cost.chain)
    # For UNKNOWN: why the callee could not be typed (SyncCall.why: "`proc` is
    # a parameter with no annotation"), "" when the resolver gave no reason.
    why: str = ""


class Unresolved(str):
    """An unknown callee as written (what _call_cost returns), carrying why
    the resolver could not type it."""

    why: str

    def __new__(cls, text: str, why: str = "") -> Unresolved:
        made = super().__new__(cls, text)
        made.why = why
        return made


def _passes_long_arguments(fact: CallFact | CallRef) -> bool:
    """A call through which a def costly as its arguments are is costly:
    its arguments are not of a size the source fixes (``bounded_input``), nor
    short by their names (``short_arguments``), nor its own def's parameters
    (``by_arguments``: that def is costly so itself)."""
    if fact.bounded_input or fact.short_arguments:
        return False
    return not (isinstance(fact, CallRef) and fact.by_arguments)


def _cost_of_chain(chain: BlockingChain) -> Cost:
    """A def's Cost (as _call_cost gives it) from its blocking chain: the
    known call's reason, the way there from the def's first callee on."""
    shown = shown_callee(chain.call)
    return Cost(
        KNOWN_CALL,
        f"`{shown}(...)` {reason_of(chain.pattern)}",
        (*(step.describe() for step in chain.steps[1:]), f"`{shown}`"),
    )


def _why_unknown(call: SyncCall) -> str:
    if call.why:
        return call.why
    outside = next((name for name in call.library if not name.startswith("<")), None)
    if outside is not None:
        return f"`{outside.replace('::', '.').removesuffix('.__call__')}` is a value from outside the scanned code"
    return ""


class WeightAnalysis:
    """Weights of the never-suspending async defs and blocking chains of the
    sync defs of a scan, for one list of blocking-call patterns."""

    def __init__(self, suspension: SuspensionAnalysis, blocking_patterns: tuple[str, ...]) -> None:
        self.suspension = suspension
        self.files: dict[str, FileFacts] = suspension.files
        self.resolver = suspension.resolver
        self.patterns = tuple(p for p in blocking_patterns if not is_type_pattern(p))
        # Patterns keyed on a receiver's provenance, matched against SyncCall.library.
        self.type_patterns = tuple(p for p in blocking_patterns if is_type_pattern(p))
        # The pattern each dotted callee matches: the fixed points ask again every round.
        self._patterns_matched: dict[str, str | None] = {}
        self._sync_calls: dict[SyncKey, tuple[tuple[CallRef, SyncCall], ...]] = {}
        self._async_calls: dict[DefKey, tuple[SyncCall, ...]] = {}
        self._local_cache: dict[str, dict[str, tuple[bool, int]]] = {}
        # A callee seen from one class of one file resolves alike wherever it is called there.
        for key, info in suspension.defs.items():
            facts = self.files[key[0]]
            self._async_calls[key] = tuple(self._runs(self._resolve(facts, info, c.callee), c) for c in info.calls)
        # Sync methods that run on an event loop per request though no async def calls them.
        self.replica_roots: tuple[SyncKey, ...] = tuple(
            (path, index) for path, facts in self.files.items() for index in replica_loop_methods(facts)
        )
        self._reach_sync()
        self._callers_of = self._callers()
        # The defs costly only as their arguments are (CallRef.by_arguments):
        # through a call whose arguments are not short, the digest they reach.
        self.argument_chains: dict[SyncKey, BlockingChain] = self._argument_fixed_point()
        self.argument_heavy: dict[SyncKey, Cost] = {
            key: _cost_of_chain(chain) for key, chain in self.argument_chains.items()
        }
        # Twice: the chains of calls, then those through a def costly as its
        # arguments are (argument_chains) where nothing else blocks; in one
        # fixed point, which a caller sees first would depend on the order.
        self.chains: dict[SyncKey, BlockingChain] = self._blocking_fixed_point({}, through_arguments=False)
        if self.argument_chains:
            self.chains = self._blocking_fixed_point(self.chains, through_arguments=True)
        self.sync_unknown: dict[SyncKey, str] = {}
        self.sync_heavy: dict[SyncKey, Cost] = self._sync_weight_fixed_point({}, through_arguments=False)
        if self.argument_heavy:
            self.sync_heavy = self._sync_weight_fixed_point(self.sync_heavy, through_arguments=True)
        self.weights: dict[DefKey, Weight] = self._async_weight_fixed_point()

    def matching(self, dotted: str, bounded_input: bool = False, arity: int = 1) -> str | None:
        """matching_pattern(dotted, self.patterns), computed once per callee;
        None where the pattern's cost does not apply to this call's input
        (mmlint.core.knowledge.costs_here)."""
        found = self._pattern_of(dotted)
        return found if found is None or costs_here(found, bounded_input, arity) else None

    def typed_matching(self, call: SyncCall, bounded_input: bool = False, arity: int = 1) -> str | None:
        """The type-keyed pattern a call's typed callee matches (``matching``
        of what the receiver is, not of its name)."""
        found = self._typed_pattern(call)
        return found if found is not None and costs_here(found, bounded_input, arity) else None

    def known_pattern(self, fact: CallFact | CallRef, call: SyncCall) -> str | None:
        """The pattern a call matches by its name, else by what its callee is
        (``matching``, then ``typed_matching``), for this call's input."""
        return self.matching(fact.dotted, fact.bounded_input, fact.arity) or self.typed_matching(
            call, fact.bounded_input, fact.arity
        )

    def _typed_pattern(self, call: SyncCall) -> str | None:
        """A union matches only when each of its library values of known
        origin does: a `zmq.Socket | zmq.asyncio.Socket` may be the async one."""
        found = None
        for typed in call.library:
            pattern = self._pattern_of(typed, self.type_patterns)
            if pattern is None and not typed.startswith(UNKNOWN_ORIGIN):
                return None  # a known value of the union that is not costly
            found = found or pattern
        return found

    def _pattern_of(self, dotted: str, patterns: tuple[str, ...] | None = None) -> str | None:
        if patterns is not None:
            key = f"{dotted}\x00"
            try:
                return self._patterns_matched[key]
            except KeyError:
                found_typed = self._patterns_matched[key] = matching_pattern(dotted, patterns)
                return found_typed
        try:
            return self._patterns_matched[dotted]
        except KeyError:
            found = self._patterns_matched[dotted] = matching_pattern(dotted, self.patterns)
            return found

    # ------------------------------------------------------------ graph

    def _resolve(self, facts: FileFacts, info: AsyncDef | SyncDef, ref: CalleeRef) -> SyncCall:
        if ref.kind == UNKNOWN and ref.text.isidentifier():
            # A def nested in the calling function, called by its name.
            local = self._local_defs(facts).get(f"{info.qualname}.<locals>.{ref.text}")
            if local is not None:
                is_async, index = local
                return SyncCall((), True, True) if is_async else SyncCall(((facts.path, index),), False, True)
        method = info.name if info.class_name is not None else None
        return self.resolver.resolve_sync_call(facts, info.class_name, ref, method, info.qualname)

    def _runs(self, call: SyncCall, fact: CallFact | CallRef) -> SyncCall:
        """What a call runs where it is written: a call of a generator
        function only creates a generator, whose body runs where it is
        iterated (``for x in gen()``, ``next(it)``), so a call whose value is
        not iterated there runs none of it."""
        if fact.iterated or not call.targets or not all(self._plain_generator(t) for t in call.targets):
            return call
        return SyncCall((), False, True)

    def _plain_generator(self, key: SyncKey) -> bool:
        """A generator function whose call returns the generator itself: no
        decorator but transparent ones (a ``@contextmanager`` runs the body
        at ``with``)."""
        info = self.sync_def(key)
        return info.is_generator and all(name.rsplit(".", 1)[-1] in _TRANSPARENT_DECORATORS for name in info.decorators)

    def _local_defs(self, facts: FileFacts) -> dict[str, tuple[bool, int]]:
        found = self._local_cache.get(facts.path)
        if found is None:
            found = {info.qualname: (False, index) for index, info in enumerate(facts.sync_defs)}
            found.update({info.qualname: (True, index) for index, info in enumerate(facts.async_defs)})
            self._local_cache[facts.path] = found
        return found

    def sync_def(self, key: SyncKey) -> SyncDef:
        return self.files[key[0]].sync_defs[key[1]]

    def _reach_sync(self) -> None:
        """Resolve the calls of every sync def reachable from an async def or a replica root, once."""
        pending = [t for calls in self._async_calls.values() for call in calls for t in call.targets]
        pending += self.replica_roots
        while pending:
            key = pending.pop()
            if key in self._sync_calls:
                continue
            info = self.sync_def(key)
            facts = self.files[key[0]]
            resolved = tuple(
                (c, self._runs(self._resolve(facts, info, c.callee), c)) for c in run_where_written(info.calls)
            )
            self._sync_calls[key] = resolved
            pending.extend(t for _, call in resolved for t in call.targets if t not in self._sync_calls)

    def _step(self, key: SyncKey) -> Step:
        info = self.sync_def(key)
        return Step(info.qualname, key[0], info.line)

    # ------------------------------------------------------------ blocking

    def _callers(self) -> dict[SyncKey, list[SyncKey]]:
        """Each reached sync def's callers among them (the edges the fixed points propagate along)."""
        callers: dict[SyncKey, list[SyncKey]] = {}
        for key, calls in self._sync_calls.items():
            for target in {t for _, call in calls for t in call.targets}:
                callers.setdefault(target, []).append(key)
        return callers

    def _argument_fixed_point(self) -> dict[SyncKey, BlockingChain]:
        """Each def with a call whose input is built from its parameters
        (CallRef.by_arguments) of a digest, or of a def found so itself:
        the chain to that digest. Plain passes over the calls passing
        parameters on, until none adds a def."""
        chains: dict[SyncKey, BlockingChain] = {}
        passing_on: list[tuple[SyncKey, SyncCall]] = []
        for key, calls in self._sync_calls.items():
            for fact, call in calls:
                if not fact.by_arguments:
                    continue
                pattern = self._sized_by_arguments(fact, call)
                if pattern is not None:
                    chains.setdefault(key, BlockingChain((self._step(key),), fact.dotted, pattern))
                elif call.targets:
                    passing_on.append((key, call))
        changed = bool(chains)
        while changed:
            changed = False
            for key, call in passing_on:
                reached = None if key in chains else next((chains[t] for t in call.targets if t in chains), None)
                if reached is not None:
                    chains[key] = BlockingChain((self._step(key), *reached.steps), reached.call, reached.pattern)
                    changed = True
        return chains

    def _sized_by_arguments(self, fact: CallFact | CallRef, call: SyncCall) -> str | None:
        """The light_when_short pattern of a call whose input is built from
        its def's parameters: its cost is the callers' arguments' (None for
        any other call, which costs what it costs here)."""
        if not (isinstance(fact, CallRef) and fact.by_arguments):
            return None
        pattern = self.known_pattern(fact, call)
        return pattern if pattern in LIGHT_WHEN_SHORT else None

    def _reached(
        self,
        chains: dict[SyncKey, BlockingChain],
        call: SyncCall,
        fact: CallFact | CallRef,
        through_arguments: bool = True,
    ) -> BlockingChain | None:
        """The chain a call's targets reach: through a def costly only as its
        arguments are, only where this call's are not short (by their
        names) nor its own def's parameters (its def is such a def then)."""
        found = next((chains[t] for t in call.targets if t in chains), None)
        if found is None and through_arguments and self.argument_chains and _passes_long_arguments(fact):
            found = next((self.argument_chains[t] for t in call.targets if t in self.argument_chains), None)
        return found

    def _blocking_fixed_point(
        self, known: dict[SyncKey, BlockingChain], through_arguments: bool
    ) -> dict[SyncKey, BlockingChain]:
        chains = dict(known)

        def visit(key: SyncKey) -> bool:
            if key in chains:
                return False
            for fact, call in self._sync_calls[key]:
                pattern = self.known_pattern(fact, call)
                if pattern is not None and self._sized_by_arguments(fact, call) is not None:
                    continue  # as costly as the callers' arguments: argument_chains
                if pattern is not None:
                    own = self._own_blocking(key) if pattern in SIZED_BY_INPUT else None
                    chains[key] = own or BlockingChain((self._step(key),), fact.dotted, pattern)
                    return True
                reached = self._reached(chains, call, fact, through_arguments)
                if reached is not None:
                    chains[key] = BlockingChain((self._step(key), *reached.steps), reached.call, reached.pattern)
                    return True
            return False

        passes_until_stable(list(self._sync_calls), self._callers_of, visit)
        return chains

    def _own_blocking(self, key: SyncKey) -> BlockingChain | None:
        """The first known call a sync def makes itself whose cost does not
        depend on its input (``bcrypt.hashpw``), or None: named in the chain
        rather than an earlier one whose cost grows with an input of unknown
        size (``sha256(data)``, perhaps small)."""
        for fact, call in self._sync_calls[key]:
            pattern = self.known_pattern(fact, call)
            if pattern is None:
                continue
            if pattern not in SIZED_BY_INPUT:
                return BlockingChain((self._step(key),), fact.dotted, pattern)
        return None

    def blocking_chain(self, call: SyncCall, fact: CallFact | CallRef) -> BlockingChain | None:
        """The chain a call of scanned sync code reaches a blocking call by, if any."""
        return self._reached(self.chains, call, fact)

    def transitive_blocking(self, paths: frozenset[str] | None = None) -> list[TransitiveBlocking]:
        """Calls in async defs of scanned sync defs that reach a blocking call
        (calls that match a blocking pattern themselves are MM005's direct case;
        awaited or scheduled calls only create a coroutine)."""
        found = []
        for key in self.suspension._keys(paths):
            info = self.suspension.defs[key]
            for fact, call in zip(info.calls, self._async_calls[key]):
                if fact.awaited or fact.scheduled or fact.future_result:
                    continue
                if self.known_pattern(fact, call) is not None:
                    continue
                chain = self.blocking_chain(call, fact)
                if chain is not None:
                    found.append(TransitiveBlocking(key[0], fact.span, fact.callee.describe(), chain, key))
        return found

    def replica_blocking(self, paths: frozenset[str]) -> list[ReplicaBlocking]:
        """The calls, in the sync methods of Ray Serve deployments in
        ``paths`` that run on the replica's loop, that block it: a known
        blocking call, or a call of scanned sync code that reaches one."""
        found = []
        roots = frozenset(self.replica_roots)
        for key in self.replica_roots:
            if key[0] not in paths:
                continue
            for fact, call in self._sync_calls[key]:
                if fact.span is None:
                    continue  # not placed by the light tier: not a method it recognised
                pattern = self.known_pattern(fact, call)
                if pattern is not None:
                    found.append(ReplicaBlocking(key, fact.span, fact.callee.describe(), fact.dotted, pattern, None))
                elif any(t in roots and t[0] == key[0] and t in self.chains for t in call.targets):
                    continue  # another handle method of the file that blocks: reported there, at the cause
                elif (chain := self.blocking_chain(call, fact)) is not None:
                    found.append(
                        ReplicaBlocking(key, fact.span, fact.callee.describe(), chain.call, chain.pattern, chain)
                    )
        return found

    def heavy_steps(self, key: DefKey) -> list[tuple[CallFact, Cost]]:
        """The calls of scanned sync functions an async def makes that are
        heavy by evidence (a loop over their input, a heavy callee) without
        reaching a known blocking call (those are ``transitive_blocking``'s),
        for an async generator that never suspends: each runs between two
        `yield`s with the loop held."""
        info = self.suspension.defs[key]
        found = []
        for fact, call in zip(info.calls, self._async_calls[key]):
            if fact.awaited or fact.scheduled or fact.future_result or self._pattern_of(fact.dotted) is not None:
                continue
            if not call.targets or self.blocking_chain(call, fact) is not None:
                continue
            cost = self._call_cost(fact, call, self.sync_heavy)
            if isinstance(cost, Cost):
                found.append((fact, cost))
        return found

    def chains_of(self, key: DefKey) -> list[tuple[str, BlockingChain]]:
        """Every blocking chain an async def's own calls start, with the callee as written (audit)."""
        info = self.suspension.defs[key]
        return [
            (fact.callee.describe(), chain)
            for fact, call in zip(info.calls, self._async_calls[key])
            if not fact.awaited and (chain := self.blocking_chain(call, fact)) is not None
        ]

    # ------------------------------------------------------------ weight

    def _call_cost(
        self, fact: CallFact | CallRef, call: SyncCall, heavy: dict[SyncKey, Cost], through_arguments: bool = True
    ) -> Cost | str | None:
        """What this call costs: a Cost when heavy, None when cheap, the
        callee as written (a str) when unknown (it cannot be resolved and is
        not known to be cheap: never heavy on its own)."""
        dotted, ref, arity = fact.dotted, fact.callee, fact.arity
        pattern = self._pattern_of(dotted) or self._typed_pattern(call)
        if pattern is not None:
            if not costs_here(pattern, fact.bounded_input, arity):
                return None  # a known cost that grows with an input the source bounds
            if self._sized_by_arguments(fact, call) is not None:
                return None  # as costly as the callers' arguments: argument_heavy, at each caller
            shown = shown_callee(dotted)
            return Cost(KNOWN_CALL, f"`{shown}(...)` {reason_of(pattern)}", (f"`{shown}`",))
        if call.coroutine:
            return None  # only creates a coroutine
        if call.targets:
            costs = [heavy[t].through(self._step(t).describe()) for t in call.targets if t in heavy]
            if not costs and through_arguments and self.argument_heavy and _passes_long_arguments(fact):
                costs = [
                    self.argument_heavy[t].through(self._step(t).describe())
                    for t in call.targets
                    if t in self.argument_heavy
                ]
            if costs:
                return max(costs, key=lambda cost: cost.rank)
            if call.complete:
                unknown = next((self.sync_unknown[t] for t in call.targets if t in self.sync_unknown), None)
                return unknown
        elif call.complete:
            return None  # a scanned class with no scanned __init__
        if is_cheap_call(dotted, arity):
            return None
        if ref.kind == UNKNOWN and (ref.text == "<expr>" or "(" in ref.text or "[" in ref.text):
            return Unresolved(shown_callee(dotted) if dotted != "<expr>" else "a computed callee", _why_unknown(call))
        return Unresolved(ref.describe(), _why_unknown(call))

    def _costliest(self, loop: str, costs: Iterable[tuple[Cost | str | None, bool]]) -> tuple[Cost | None, str | None]:
        """The costliest of a body's calls and its loop, and its first unknown
        callee. ``costs``: (cost of a call, whether it sits in the loop). A
        loop over the input is heavy when it repeats a call that is not known
        to be cheap (a loop of container work is light)."""
        best = None
        unknown = None
        for cost, in_loop in costs:
            if isinstance(cost, Cost):
                if best is None or cost.rank > best.rank:
                    best = cost
            elif cost is not None and unknown is None:
                unknown = cost
            if loop and in_loop and cost is not None and (best is None or best.rank < LOOP):
                shown = cost if isinstance(cost, str) else cost.chain[0].strip("`") if cost.chain else ""
                best = Cost(LOOP, f"{loop} repeats `{shown}(...)`" if shown else loop)
        return best, unknown

    def _sync_weight_fixed_point(self, known: dict[SyncKey, Cost], through_arguments: bool) -> dict[SyncKey, Cost]:
        heavy = dict(known)

        def visit(key: SyncKey) -> bool:
            info = self.sync_def(key)
            best, unknown = self._costliest(
                self._input_loop(key[0], info.unbounded_loop, info.params, info.class_name is not None),
                (
                    (self._call_cost(fact, call, heavy, through_arguments), fact.in_loop)
                    for fact, call in self._sync_calls[key]
                ),
            )
            changed = False
            if best is not None and (key not in heavy or best.rank > heavy[key].rank):
                heavy[key] = best
                changed = True
            if unknown is not None and key not in self.sync_unknown:
                self.sync_unknown[key] = unknown
                changed = True
            return changed

        passes_until_stable(list(self._sync_calls), self._callers_of, visit)
        return heavy

    def _async_weight_fixed_point(self) -> dict[DefKey, Weight]:
        suspension = self.suspension
        never = [key for key in suspension.defs if suspension.classify(key) == "never"]
        heavy: dict[DefKey, Cost] = {}
        unknown: dict[DefKey, str] = {}
        for key in never:
            cost, first_unknown = self._own_weight(key)
            if cost is not None:
                heavy[key] = cost
            elif first_unknown is not None:
                unknown[key] = first_unknown
        changed = True
        while changed:
            changed = False
            for key in never:
                if key in heavy:
                    continue
                cost = self._awaited_weight(key, heavy)
                if cost is not None:
                    heavy[key] = cost
                    changed = True
        weights = {}
        for key in never:
            info: AsyncDef = suspension.defs[key]
            if key in heavy:
                weights[key] = Weight(HEAVY, heavy[key].reason, heavy[key].chain)
            elif info.is_stub_like and info.is_fake_async:
                weights[key] = Weight(STUB, "")
            elif key in unknown:
                weights[key] = Weight(UNKNOWN_WEIGHT, unknown[key], why=getattr(unknown[key], "why", ""))
            else:
                weights[key] = Weight(LIGHT, "")
        return weights

    def _own_weight(self, key: DefKey) -> tuple[Cost | None, str | None]:
        info = self.suspension.defs[key]
        costs: list[tuple[Cost | str | None, bool]] = []
        for fact, call in zip(info.calls, self._async_calls[key]):
            if fact.awaited or fact.scheduled:
                continue  # only creates a coroutine (its weight is the awaited def's)
            if fact.future_result:
                shown = shown_callee(fact.dotted)
                costs.append((Cost(FUTURE_RESULT, f"`{shown}()` waits for a future", (f"`{shown}`",)), fact.in_loop))
                continue
            costs.append((self._call_cost(fact, call, self.sync_heavy), fact.in_loop))
        return self._costliest(
            self._input_loop(key[0], info.unbounded_loop, info.params, info.class_name is not None), costs
        )

    def _input_loop(self, path: str, loop: str, params: tuple[Parameter, ...], is_method: bool) -> str:
        """input_loop for a def of ``path``: its parameters, the module's own names."""
        if not loop:
            return ""
        facts = self.files[path]
        module_names = (*facts.assigned_names, *(fact.local for fact in facts.imports))
        return input_loop(loop, (param.name for param in params), module_names, is_method)

    def _awaited_weight(self, key: DefKey, heavy: dict[DefKey, Cost]) -> Cost | None:
        info = self.suspension.defs[key]
        for index in range(len(info.awaits)):
            for target in self.suspension.resolution(key, index).targets:
                if target in heavy:
                    callee = self.suspension.defs[target]
                    return heavy[target].through(f"`{callee.qualname}` at {target[0]}:{callee.line}")
        return None

    def weight(self, key: DefKey) -> Weight | None:
        """The weight of a never-suspending judged async def; None for any other."""
        return self.weights.get(key)

    @functools.cached_property
    def contexts(self) -> Contexts:
        return Contexts(self.files, self.resolver)

    @functools.cached_property
    def once_only(self) -> frozenset[DefKey]:
        """The async defs that run only once per process or per actor: a
        start-up or shutdown hook, an actor's lifecycle hook, a program's
        main coroutine that nothing else awaits or schedules
        (contexts.ONCE_CONTEXTS), and a def with no context of its own that
        is awaited only from those, outside their loops (every await of it
        resolved, and its name never handed on or called without `await`
        anywhere). What runs there, outside its loops, is not the loop's
        per-request cost."""
        defs = self.suspension.defs
        contexts = self.contexts
        own = {key: contexts.of(key, info) for key, info in defs.items()}
        once = {key for key, context in own.items() if context in ONCE_CONTEXTS and context != MAIN}
        # `asyncio.run(process(...))` in a script, while routes await `process`:
        # a main is once only when its other callers are.
        mains = {key for key, context in own.items() if context == MAIN}
        if not once and not mains:
            return frozenset()
        awaited_by: dict[DefKey, set[DefKey]] = {key: set() for key in mains}
        # Names used other than by a resolved await, by file: scheduled, called
        # without `await` (async code), awaited unresolved.
        scheduled_in: dict[str, set[str]] = {path: set() for path in self.files}
        for key, info in defs.items():
            # An await repeated by a loop over the input runs per item, not once.
            looped = {_end(call.span) for call in info.calls if call.awaited and call.in_loop}
            for index, fact in enumerate(info.awaits):
                resolution = self.suspension.resolution(key, index)
                caller = _REPEATED if _end(fact.span) in looped else key
                for target in resolution.targets:
                    awaited_by.setdefault(target, set()).add(caller)
                if not resolution.fully_resolved and fact.callee is not None:
                    scheduled_in[key[0]].add(fact.callee.text.rsplit(".", 1)[-1])
        # A call through a library module's import (`asyncio.run`,
        # `subprocess.run`) runs no scanned def, whatever its last name.
        packages = self.resolver.values.scanned_packages()
        for path, facts in self.files.items():
            library = _library_names(facts, packages)
            for info in facts.async_defs:
                scheduled_in[path].update(
                    call.callee.text.rsplit(".", 1)[-1]
                    for call in info.calls
                    if not call.awaited and call.callee.text.split(".", 1)[0] not in library
                )
        scheduled = set().union(*scheduled_in.values())
        # Also handed on, or called from sync code (a runner's argument among
        # them: a main's own hand-off).
        elsewhere = scheduled | {name for facts in self.files.values() for name, _ in facts.handed_coroutines}
        for facts in self.files.values():
            library = _library_names(facts, packages)
            for sync in facts.sync_defs:
                elsewhere.update(
                    call.callee.text.rsplit(".", 1)[-1]
                    for call in sync.calls
                    if call.callee.text.split(".", 1)[0] not in library
                )
        changed = True
        while changed:
            changed = False
            for key, callers in awaited_by.items():
                if key in once:
                    continue
                if key in mains:
                    # A nested def is named only in its own file: another file's
                    # `create_task(serve())` is another `serve`.
                    nested = "<locals>" in defs[key].qualname
                    if defs[key].name in (scheduled_in[key[0]] if nested else scheduled):
                        continue
                # An override runs where its base's awaits dispatch to it, and
                # those resolve to it: its callers decide, as any def's do.
                elif own.get(key, "") not in ("", OVERRIDE) or defs[key].name in elsewhere:
                    continue
                if callers <= once:
                    once.add(key)
                    changed = True
        return frozenset(once)

    @functools.cached_property
    def _awaits_by_root(self) -> dict[DefKey, list[tuple[str, Span]]]:
        """Hollow awaits by the coroutine at the end of their chain (MM003's root)."""
        by_line = {(key[0], info.line): key for key, info in self.suspension.defs.items()}
        found: dict[DefKey, list[tuple[str, Span]]] = {}
        for hollow in self.suspension.hollow_awaits():
            if hollow.ends_in_cycle:
                continue
            root = by_line[(hollow.chain[-1].path, hollow.chain[-1].line)]
            found.setdefault(root, []).append((hollow.path, hollow.span))
        return found

    def awaiting_sites(self, root: DefKey) -> list[tuple[str, Span]]:
        """Every await, anywhere in the scan, whose hollow chain ends at ``root``."""
        return self._awaits_by_root.get(root, [])


# Stands for a caller that repeats an await in a loop: never once (once_only).
_REPEATED: DefKey = ("", -1)


def _library_names(facts: FileFacts, packages: frozenset[str]) -> frozenset[str]:
    """The names a module's absolute imports bind to a library (a module or
    member outside the scanned packages), less those its own assignments rebind."""
    return frozenset(
        fact.local for fact in facts.imports if not fact.anchor and fact.target.split(".", 1)[0] not in packages
    ) - set(facts.assigned_names)


def _end(span: Span) -> tuple[int, int]:
    """Where a span ends: an `await f(...)` and its call `f(...)` end alike."""
    return span.end_line, span.end_column
