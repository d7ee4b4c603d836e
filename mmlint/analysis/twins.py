"""Twin discovery and the calls MM010 reports.

A twin pair is a sync ``def X`` and an ``async def`` named by one of the
patterns (``{name}_async``, ``async_{name}``, ``a{name}``) that one receiver
reaches: both members along one class's MRO, or both at module level in one
module (or both reachable through one module's namespace, by imports).
Names alone are not enough (``str.encode`` is no twin of a package's
``async_encode``): a call is a twin call only when its callee resolves, inside
the scanned code, to the sync member. Lookups go by name through indexes built
once, so the cost grows with the calls, not calls times defs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mmlint.analysis.flow import ALWAYS, SOME, Judgement
from mmlint.analysis.resolve import (
    ClassKey,
    ClassSymbol,
    DefKey,
    ModuleSymbol,
    Resolver,
)
from mmlint.facts.model import (
    ASYNC_DEF,
    CLS,
    KEYWORD_ONLY,
    POSITIONAL_ONLY,
    POSITIONAL_OR_KEYWORD,
    SELF,
    SUPER,
    UNKNOWN,
    VAR_KEYWORD,
    VAR_POSITIONAL,
    AsyncDef,
    CallFact,
    FileFacts,
    Parameter,
    SyncDef,
)

if TYPE_CHECKING:
    from mmlint.analysis import SuspensionAnalysis

SyncKey = tuple[str, int]  # (display path, index into FileFacts.sync_defs)
_RECEIVERS = {SELF: "self", CLS: "cls", SUPER: "super()"}


@dataclass(frozen=True, slots=True)
class Twin:
    """One discovered pair: the sync def and the async def a receiver reaches."""

    sync_name: str
    async_name: str
    sync: SyncKey
    async_: DefKey


@dataclass(frozen=True, slots=True)
class Contract:
    """Whether the async twin can replace the sync one at a call."""

    arguments_problem: str | None  # None: it accepts every call the sync twin accepts
    verdict: Judgement  # the suspension classification of the async twin

    @property
    def suspends(self) -> bool:
        return self.verdict in (ALWAYS, SOME)


@dataclass(frozen=True, slots=True)
class TwinCall:
    """A call of a sync twin made directly in an async def."""

    path: str
    enclosing: DefKey
    call: CallFact
    twin: Twin
    written: str  # the callee as written ("self.resize", "utils.resize", "resize")
    # Renaming the callee reaches the async twin (a bare name needs the async
    # twin bound in the caller's module).
    reachable: bool

    @property
    def rewritten(self) -> str:
        prefix, dot, _ = self.written.rpartition(".")
        return f"{prefix}{dot}{self.twin.async_name}"


class TwinAnalysis:
    def __init__(
        self,
        files: dict[str, FileFacts],
        suspension: "SuspensionAnalysis",
        patterns: tuple[str, ...],
        excluded_names: frozenset[str] = frozenset(),
    ) -> None:
        self.files = files
        self.suspension = suspension
        self.resolver: Resolver = suspension.resolver
        self.patterns = tuple(pattern.partition("{name}")[::2] for pattern in patterns)  # (prefix, suffix)
        self.excluded_names = excluded_names
        # (path, class qualname or None for module level, name) -> index; the last definition wins.
        self._syncs: dict[tuple[str, str | None, str], int] = {}
        self._asyncs: dict[tuple[str, str | None, str], int] = {}
        for path, facts in files.items():
            for index, info in enumerate(facts.sync_defs):
                if _is_member(info) and not _is_property_like(info):
                    self._syncs[(path, info.class_name, info.name)] = index
            for index, async_info in enumerate(facts.async_defs):
                if _is_member(async_info):
                    self._asyncs[(path, async_info.class_name, async_info.name)] = index
        self._async_names = frozenset(key[2] for key in self._asyncs)
        self._twin_names: dict[str, tuple[str, ...]] = {}
        self._calls: dict[str, tuple[TwinCall, ...]] = {}
        self._contracts: dict[Twin, Contract] = {}

    # ------------------------------------------------------------ members

    def twin_names(self, sync_name: str) -> tuple[str, ...]:
        """The async names the patterns give for ``sync_name`` that some scanned
        async def bears (the cheap filter before any resolution)."""
        found = self._twin_names.get(sync_name)
        if found is None:
            found = tuple(
                name
                for prefix, suffix in self.patterns
                if (name := f"{prefix}{sync_name}{suffix}") in self._async_names and name != sync_name
            )
            self._twin_names[sync_name] = found
        return found

    def _member(self, path: str, class_name: str | None, name: str) -> tuple[bool, int] | None:
        """(is async, index) of what ``name`` is in that class body or module:
        the later of a sync and an async definition."""
        sync = self._syncs.get((path, class_name, name))
        async_ = self._asyncs.get((path, class_name, name))
        if sync is not None and async_ is not None:
            facts = self.files[path]
            return (False, sync) if facts.sync_defs[sync].line > facts.async_defs[async_].line else (True, async_)
        if async_ is not None:
            return (True, async_)
        return None if sync is None else (False, sync)

    def _in_class(self, key: ClassKey, name: str, after: bool) -> tuple[bool, int, str] | None:
        owner = self.resolver.defining_class(key, name, after)
        if owner is None:
            return None
        found = self._member(owner[0], owner[1], name)
        return None if found is None else (*found, owner[0])

    def _in_module(self, module: str, name: str) -> tuple[bool, int, str] | None:
        located = self.resolver.module_function(module, name)
        if located is None:
            return None
        found = self._member(located[0], None, located[1])
        return None if found is None else (*found, located[0])

    # ------------------------------------------------------------ calls

    def calls_in(self, path: str) -> tuple[TwinCall, ...]:
        """Every call of a sync twin made directly in an async def of ``path``,
        the delegation inside the async twin excepted."""
        found = self._calls.get(path)
        if found is None:
            facts = self.files[path]
            found = tuple(
                twin_call
                for index, info in enumerate(facts.async_defs)
                for call in info.calls
                if (twin_call := self._twin_call(facts, (path, index), info, call)) is not None
            )
            self._calls[path] = found
        return found

    def all_calls(self) -> tuple[TwinCall, ...]:
        return tuple(call for path in sorted(self.files) for call in self.calls_in(path))

    def _twin_call(self, facts: FileFacts, key: DefKey, info: AsyncDef, call: CallFact) -> TwinCall | None:
        ref = call.callee
        if ref.kind == UNKNOWN or call.awaited:  # awaited: the sync def hands back an awaitable
            return None
        prefix, _, name = ref.text.rpartition(".")
        if name in self.excluded_names:  # a configured pair: MM001's
            return None
        candidates = self.twin_names(name)
        if not candidates:
            return None
        if ref.kind in _RECEIVERS:
            found = self._method_twin(facts, info, name, candidates, after=ref.kind == SUPER)
            written = f"{_RECEIVERS[ref.kind]}.{name}"
        else:
            found = self._named_twin(facts, prefix, name, candidates)
            written = ref.text
        if found is None:
            return None
        twin, reachable = found
        if any(o.kind == ASYNC_DEF and o.name == twin.async_name for o in info.owner):
            return None  # the delegation: the async twin runs its sync body
        return TwinCall(facts.path, key, call, twin, written, reachable)

    def _method_twin(
        self, facts: FileFacts, info: AsyncDef, name: str, candidates: tuple[str, ...], after: bool
    ) -> tuple[Twin, bool] | None:
        if info.class_name is None or (facts.path, info.class_name) not in self.resolver.classes:
            return None
        return self._class_twin((facts.path, info.class_name), name, candidates, after)

    def _class_twin(
        self, key: ClassKey, name: str, candidates: tuple[str, ...], after: bool = False
    ) -> tuple[Twin, bool] | None:
        sync = self._in_class(key, name, after)
        if sync is None or sync[0]:
            return None
        for async_name in candidates:
            twin = self._in_class(key, async_name, after)
            if twin is not None and twin[0]:
                return Twin(name, async_name, (sync[2], sync[1]), (twin[2], twin[1])), True
        return None

    def _named_twin(
        self, facts: FileFacts, prefix: str, name: str, candidates: tuple[str, ...]
    ) -> tuple[Twin, bool] | None:
        """``f(...)`` or ``a.b.f(...)``: a module-level function (or a method
        looked up on a class) reached through the caller's module."""
        module = facts.path
        if prefix:
            symbol = self.resolver.resolve_dotted(facts.path, prefix)
            if isinstance(symbol, ClassSymbol):
                return self._class_twin(symbol.key, name, candidates)
            if not isinstance(symbol, ModuleSymbol):
                return None
            module = symbol.path
        sync = self._in_module(module, name)
        if sync is None or sync[0]:
            return None
        sync_key = (sync[2], sync[1])
        for async_name in candidates:  # reachable where the call is written
            twin = self._in_module(module, async_name)
            if twin is not None and twin[0]:
                return Twin(name, async_name, sync_key, (twin[2], twin[1])), True
        for async_name in candidates:  # defined beside the sync def, not reachable from here
            beside = self._member(sync[2], None, async_name)
            if beside is not None and beside[0]:
                return Twin(name, async_name, sync_key, (sync[2], beside[1])), False
        return None

    # ------------------------------------------------------------ contracts

    def contract(self, twin: Twin) -> Contract:
        found = self._contracts.get(twin)
        if found is None:
            sync = self.sync_def(twin)
            async_ = self.async_def(twin)
            problem = arguments_problem(sync.params, async_.params, twin.sync_name, twin.async_name)
            found = Contract(problem, self.suspension.classify(twin.async_))
            self._contracts[twin] = found
        return found

    def sync_def(self, twin: Twin) -> SyncDef:
        return self.files[twin.sync[0]].sync_defs[twin.sync[1]]

    def async_def(self, twin: Twin) -> AsyncDef:
        return self.files[twin.async_[0]].async_defs[twin.async_[1]]

    # ------------------------------------------------------------ the inventory

    def pairs(self) -> tuple[Twin, ...]:
        """Every pair the scanned code defines (class members along each class's
        MRO, module-level functions of one module), and any pair a call reached
        through imports; each once."""
        found: dict[tuple[SyncKey, DefKey], Twin] = {}
        for (path, class_name, name), index in self._syncs.items():
            if name in self.excluded_names:
                continue
            for async_name in self.twin_names(name):
                if class_name is None:
                    if self._member(path, None, name) == (False, index):
                        twin = self._member(path, None, async_name)
                        if twin is not None and twin[0]:
                            found.setdefault(((path, index), (path, twin[1])), Twin(name, async_name, (path, index), (path, twin[1])))
                    continue
                for key in self._classes_reaching(path, class_name):
                    result = self._class_twin(key, name, (async_name,))
                    if result is not None:
                        found.setdefault((result[0].sync, result[0].async_), result[0])
        for call in self.all_calls():
            found.setdefault((call.twin.sync, call.twin.async_), call.twin)
        return tuple(sorted(found.values(), key=lambda t: (t.sync, t.async_)))

    def _classes_reaching(self, path: str, class_name: str) -> list[ClassKey]:
        """The class defining a method and its scanned subclasses (a subclass may add the async twin)."""
        key = (path, class_name)
        if key not in self.resolver.classes:
            return []
        return [key, *self.resolver._subclasses.get(key, ())]


def _is_member(info: SyncDef | AsyncDef) -> bool:
    """Directly in a class body, or at module level (not nested in a def)."""
    return info.class_name is not None or len(info.owner) == 1


def _is_property_like(info: SyncDef) -> bool:
    """Not called as written: properties and their setters, overloads."""
    return any(
        text.rsplit(".", 1)[-1] in ("property", "cached_property", "setter", "getter", "deleter", "overload")
        for text in info.decorators
    )


def arguments_problem(sync: tuple[Parameter, ...], async_: tuple[Parameter, ...], sync_name: str, async_name: str) -> str | None:
    """Why a call written for ``sync`` might not fit ``async_``, or None: the
    async twin must have the sync one's parameters (names, kinds, defaults,
    annotations: `zmq.Socket` where the twin wants `zmq.asyncio.Socket` is a
    different contract) in the same places, and any more only with defaults
    (or as *args / **kwargs)."""
    s, a = _Signature(sync), _Signature(async_)
    for place, param in enumerate(s.positional):
        if place >= len(a.positional):
            return f"`{async_name}` has no parameter `{param.name}`"
        other = a.positional[place]
        if (other.name, other.kind) != (param.name, param.kind):
            return f"`{sync_name}` takes `{param.name}` where `{async_name}` takes `{other.name}`"
        if other.default != param.default:
            return f"the default of `{param.name}` differs"
        if other.annotation != param.annotation:
            return f"`{param.name}` is annotated differently"
    for other in a.positional[len(s.positional):]:
        if not other.has_default:
            return f"`{async_name}` also requires `{other.name}`"
        if s.var_positional:
            return f"`{async_name}` takes `{other.name}` where `{sync_name}` takes `*{s.var_positional.name}`"
    if s.var_positional and not a.var_positional:
        return f"`{async_name}` takes no `*{s.var_positional.name}`"
    for name, param in s.keyword_only.items():
        keyword = a.keyword_only.get(name)
        if keyword is None:
            return f"`{async_name}` has no keyword `{name}`"
        if keyword.default != param.default:
            return f"the default of `{name}` differs"
        if keyword.annotation != param.annotation:
            return f"`{name}` is annotated differently"
    for name, other in a.keyword_only.items():
        if name not in s.keyword_only and not other.has_default:
            return f"`{async_name}` also requires the keyword `{name}`"
    if s.var_keyword and not a.var_keyword:
        return f"`{async_name}` takes no `**{s.var_keyword.name}`"
    return None


class _Signature:
    __slots__ = ("positional", "var_positional", "keyword_only", "var_keyword")

    def __init__(self, params: tuple[Parameter, ...]) -> None:
        self.positional = [p for p in params if p.kind in (POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD)]
        self.var_positional = next((p for p in params if p.kind == VAR_POSITIONAL), None)
        self.keyword_only = {p.name: p for p in params if p.kind == KEYWORD_ONLY}
        self.var_keyword = next((p for p in params if p.kind == VAR_KEYWORD), None)
