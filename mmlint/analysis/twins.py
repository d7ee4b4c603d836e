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
from functools import cached_property
from typing import TYPE_CHECKING

from mmlint.analysis.flow import ALWAYS, SOME, Judgement
from mmlint.analysis.resolve import (
    ClassKey,
    ClassSymbol,
    DefKey,
    INERT_BASES,
    External,
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
    STAR,
    SUPER,
    UNKNOWN,
    VAR_KEYWORD,
    VAR_POSITIONAL,
    AsyncDef,
    CalleeRef,
    CallFact,
    FileFacts,
    Parameter,
    SyncDef,
)

if TYPE_CHECKING:
    from mmlint.analysis.suspension import SuspensionAnalysis

SyncKey = tuple[str, int]  # (display path, index into FileFacts.sync_defs)
_RECEIVERS = {SELF: "self", CLS: "cls", SUPER: "super()"}


@dataclass(frozen=True, slots=True)
class Twin:
    """One discovered pair: the sync def and the async def a receiver reaches."""

    sync_name: str
    async_name: str
    sync: SyncKey
    # The async def; for a twin defined by assignment (``assigned``), the
    # (display path, index into FileFacts.twin_assignments) of the assignment.
    async_: DefKey
    assigned: bool = False
    # A base outside the scan comes before the class defining either member
    # in the receiver's MRO: it may define that name first. Reported as the
    # scanned class says; never rewritten.
    shadowable: bool = False


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


@dataclass(frozen=True, slots=True)
class Bypass:
    """A call, in a scanned sync def, of a sync twin whose async twin the
    call's receiver reaches."""

    caller: SyncKey  # the sync def it is made in
    twin: Twin
    written: str  # the callee as written ("self._rpc")


@dataclass(frozen=True, slots=True)
class DeepTwinCall:
    """A call, made directly in an async def, of scanned sync code that
    reaches a Bypass through scanned sync calls: no rename fixes it, only an
    async path through the chain."""

    path: str
    enclosing: DefKey
    call: CallFact
    written: str  # the call as written in the async def ("self.get_load")
    steps: tuple[SyncKey, ...]  # the sync defs from the called one to the bypass's caller
    bypass: Bypass


def _method(info: AsyncDef | SyncDef) -> str | None:
    """The method whose `self.` calls dispatch from ``info`` (None outside a class body)."""
    return info.name if info.class_name is not None else None


class TwinAnalysis:
    def __init__(
        self,
        files: dict[str, FileFacts],
        suspension: "SuspensionAnalysis",
        patterns: tuple[str, ...],
        excluded_names: frozenset[str] = frozenset(),
        wrappers: tuple[str, ...] = (),
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
        # Names an import binds to something called otherwise (`stop as halt`):
        # a call of one may reach a twin whose names the patterns do not give.
        self._aliases = frozenset(
            fact.local
            for facts in files.values()
            for fact in facts.imports
            if fact.local != STAR and fact.local != fact.target.rpartition(".")[2]
        )
        # Twins defined by assignment through a configured wrapper, by the sync name:
        # (path, holding class or None, index into FileFacts.twin_assignments).
        self._assigned: dict[str, list[tuple[str, str | None, int]]] = {}
        wanted = frozenset(wrappers)
        for path, facts in files.items():
            for index, assignment in enumerate(facts.twin_assignments):
                if assignment.wrapper in wanted and assignment.sync not in excluded_names:
                    self._assigned.setdefault(assignment.sync, []).append((path, assignment.class_name, index))
        self._twin_names: dict[str, tuple[str, ...]] = {}
        self._calls: dict[str, tuple[TwinCall, ...]] = {}
        self._deep_calls: dict[str, tuple[DeepTwinCall, ...]] = {}
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

    def _shadowable(self, key: ClassKey, after: bool, *names: str) -> bool:
        return any(self.resolver.defining_class_shadowable(key, name, after)[1] for name in names)

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
        if call.awaited:  # the sync def hands back an awaitable
            return None
        found = self._twin_of(facts, info, call.callee)
        if found is None:
            return None
        twin, reachable, written = found
        return TwinCall(facts.path, key, call, twin, written, reachable)

    def _twin_of(self, facts: FileFacts, info: AsyncDef | SyncDef, ref: CalleeRef) -> tuple[Twin, bool, str] | None:
        """The twin pair whose sync member a call in ``info`` runs, whether its
        async member is reachable from the call's receiver, and the callee as written."""
        if ref.kind == UNKNOWN:
            return self._typed_twin(facts, info, ref)
        prefix, _, name = ref.text.rpartition(".")
        if name in self.excluded_names:  # a configured pair: MM001's
            return None
        candidates = self.twin_names(name)
        if ref.kind in _RECEIVERS:
            if not candidates and name not in self._assigned:
                return None
            found = self._method_twin(facts, info, name, candidates, after=ref.kind == SUPER)
            written = f"{_RECEIVERS[ref.kind]}.{name}"
        else:
            if not candidates and name not in self._aliases and name not in self._assigned:
                return None
            found = self._named_twin(facts, prefix, name)
            written = ref.text
        if found is None:
            return None
        twin, reachable = found
        if any(o.kind == ASYNC_DEF and o.name == twin.async_name for o in info.owner):
            return None  # the delegation: the async twin runs its sync body
        return twin, reachable, written

    def _typed_twin(self, facts: FileFacts, info: AsyncDef | SyncDef, ref: CalleeRef) -> tuple[Twin, bool, str] | None:
        """A method called on a receiver the provenance layer types as an
        instance of a scanned class (``self.input_processor.process_inputs``,
        the attribute assigned ``InputProcessor(...)``) whose async twin that
        class makes by assignment (``self.X_async = make_async(self.X)``)."""
        prefix, _, name = ref.text.rpartition(".")
        if not prefix or name in self.excluded_names or not name.isidentifier():
            return None
        if name not in self._assigned:
            return None  # only twins made by assignment (a method pair on a typed receiver is left to MM005)
        candidates = self.twin_names(name)
        from mmlint.analysis.values import Place

        value = self.resolver.values.of(Place(facts.path, info.class_name, info.qualname), prefix)
        classes = [atom[1] for atom in value.atoms if atom[0] == "instance"]
        if not classes or len(classes) != len(value.atoms):
            return None  # not only instances of scanned classes: the receiver may be anything
        for key in dict.fromkeys(classes):
            found = self._class_twin(key, name, candidates)  # type: ignore[arg-type]
            if found is not None:
                twin, reachable = found
                if any(o.kind == ASYNC_DEF and o.name == twin.async_name for o in info.owner):
                    return None
                return twin, reachable, ref.text
        return None

    # ------------------------------------------------------------ through the call graph

    def deep_calls_in(self, path: str) -> tuple[DeepTwinCall, ...]:
        """Every call, made directly in an async def of ``path``, of scanned
        sync code that reaches, through scanned sync calls, the sync member of
        a pair whose async member its receiver there reaches too; calls of a
        sync twin themselves (``calls_in``) excepted."""
        found = self._deep_calls.get(path)
        if found is None:
            facts = self.files[path]
            direct = {twin_call.call.span for twin_call in self.calls_in(path)}
            bypasses = self._bypasses
            deep = []
            for index, info in enumerate(facts.async_defs):
                for call in info.calls:
                    if call.awaited or call.scheduled or call.span in direct:
                        continue
                    if info.name in self._pattern_names(call.callee.text.rpartition(".")[2]):
                        continue  # the delegation: the async twin runs its sync body (calls_in's rule)
                    resolved = self.resolver.resolve_sync_call(
                        facts, info.class_name, call.callee, _method(info), info.qualname
                    )
                    reached = next((bypasses[t] for t in resolved.targets if t in bypasses), None)
                    if reached is not None:
                        steps, bypass = reached
                        deep.append(DeepTwinCall(path, (path, index), call, call.callee.describe(), steps, bypass))
            found = self._deep_calls[path] = tuple(deep)
        return found

    @cached_property
    def _bypasses(self) -> dict[SyncKey, tuple[tuple[SyncKey, ...], Bypass]]:
        """Sync defs (reachable from async defs) that reach a twin bypass: the
        sync defs on the way, the called one first, and the bypass at the end.
        A least fixed point over the sync call graph; an offloaded function
        is an argument, not a call, so offloading cuts a chain."""
        graph = self._sync_graph
        found: dict[SyncKey, tuple[tuple[SyncKey, ...], Bypass]] = {}
        for key in graph:
            bypass = self._direct_bypass(key)
            if bypass is not None:
                found[key] = ((key,), bypass)
        changed = True
        while changed:
            changed = False
            for key, targets in graph.items():
                if key in found:
                    continue
                reached = next((found[t] for t in targets if t in found and key not in found[t][0]), None)
                if reached is not None:
                    found[key] = ((key, *reached[0]), reached[1])
                    changed = True
        return found

    @cached_property
    def _sync_graph(self) -> dict[SyncKey, tuple[SyncKey, ...]]:
        """The scanned sync defs reachable from async defs through sync calls, each with the sync defs it calls."""
        graph: dict[SyncKey, tuple[SyncKey, ...]] = {}
        pending: list[SyncKey] = []
        for facts in self.files.values():
            for info in facts.async_defs:
                for call in info.calls:
                    if not (call.awaited or call.scheduled):
                        pending.extend(
                            self.resolver.resolve_sync_call(
                                facts, info.class_name, call.callee, _method(info), info.qualname
                            ).targets
                        )
        while pending:
            key = pending.pop()
            if key in graph:
                continue
            facts = self.files[key[0]]
            sync = facts.sync_defs[key[1]]
            targets = tuple(
                target
                for call in sync.calls
                for target in self.resolver.resolve_sync_call(
                    facts, sync.class_name, call.callee, _method(sync), sync.qualname
                ).targets
            )
            graph[key] = targets
            pending.extend(t for t in targets if t not in graph)
        return graph

    def _direct_bypass(self, key: SyncKey) -> Bypass | None:
        """The first call in a sync def of a sync twin whose async twin its receiver reaches."""
        facts = self.files[key[0]]
        info = facts.sync_defs[key[1]]
        for call in info.calls:
            found = self._twin_of(facts, info, call.callee)
            if found is None or not found[1]:
                continue
            contract = self.contract(found[0])
            # An async path through the chain is the fix only where the async
            # twin can take this call's place: the same arguments, and it suspends.
            if contract.arguments_problem is None and contract.suspends:
                return Bypass(key, found[0], found[2])
        return None

    def _method_twin(
        self, facts: FileFacts, info: AsyncDef | SyncDef, name: str, candidates: tuple[str, ...], after: bool
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
                shadowable = self._shadowable(key, after, name, async_name)
                return Twin(name, async_name, (sync[2], sync[1]), (twin[2], twin[1]), shadowable=shadowable), True
        return self._assigned_in_class(key, name, (sync[2], sync[1]), after)

    def _assigned_in_class(self, key: ClassKey, name: str, sync: SyncKey, after: bool) -> tuple[Twin, bool] | None:
        """``self.X_async = wrapper(self.X)`` in a class along ``key``'s MRO,
        its name not defined otherwise (a method would come first)."""
        holders = {(path, class_name): index for path, class_name, index in self._assigned.get(name, ()) if class_name}
        if not holders:
            return None
        order = self.resolver.mro(key)
        shadowable = False
        for entry in order[1:] if after else order:
            if isinstance(entry, External):
                shadowable = shadowable or entry.text not in INERT_BASES
                continue
            index = holders.get(entry)
            if index is not None:
                assignment = self.files[entry[0]].twin_assignments[index]
                if self.resolver.defining_class(key, assignment.async_, after) is not None:
                    return None  # a def of that name shadows the attribute
                twin = Twin(name, assignment.async_, sync, (entry[0], index), assigned=True, shadowable=shadowable)
                return twin, True
        return None

    def _assigned_in_module(self, module: str, name: str, sync: tuple[bool, int, str]) -> tuple[Twin, bool] | None:
        """``X_async = wrapper(X)`` at module level beside the sync def ``X``;
        reachable when the call's module is that one or binds the name to it."""
        for path, class_name, index in self._assigned.get(self.files[sync[2]].sync_defs[sync[1]].name, ()):
            if class_name is None and path == sync[2]:
                assignment = self.files[path].twin_assignments[index]
                twin = Twin(name, assignment.async_, (sync[2], sync[1]), (path, index), assigned=True)
                return twin, self._binds(module, assignment.async_, path)
        return None

    def _binds(self, module: str, name: str, home: str, depth: int = 0) -> bool:
        """Whether ``name`` at module level in ``module`` is the one ``home`` assigns (imports followed)."""
        if module == home:
            return True
        facts = self.files.get(module)
        if facts is None or depth > 8 or name in facts.functions or name in facts.assigned_names:
            return False
        for fact in reversed(facts.imports):
            if fact.local == name:
                parent, _, last = fact.target.rpartition(".")
                symbol = (
                    self.resolver._resolve_import(parent, fact.anchor, frozenset()) if parent or fact.anchor else None
                )
                return isinstance(symbol, ModuleSymbol) and self._binds(symbol.path, last, home, depth + 1)
        return False

    def _named_twin(self, facts: FileFacts, prefix: str, name: str) -> tuple[Twin, bool] | None:
        """``f(...)`` or ``a.b.f(...)``: a module-level function (or a method
        looked up on a class) reached through the caller's module, re-exports
        and import aliases followed (`halt` bound to `api.drain` is `drain`,
        whose twin is `drain_async`, reachable if some name binds it here)."""
        module = facts.path
        if prefix:
            symbol = self.resolver.resolve_dotted(facts.path, prefix)
            if isinstance(symbol, ClassSymbol):
                return self._class_twin(symbol.key, name, self.twin_names(name))
            if not isinstance(symbol, ModuleSymbol):
                return None
            module = symbol.path
        sync = self._in_module(module, name)
        if sync is None or sync[0]:
            return None
        sync_key = (sync[2], sync[1])
        defined = self.files[sync[2]].sync_defs[sync[1]].name
        for async_name in self._pattern_names(name):  # reachable where the call is written, as written
            twin = self._in_module(module, async_name)
            if twin is not None and twin[0] and self._defined_name(twin) in self.twin_names(defined):
                return Twin(name, async_name, sync_key, (twin[2], twin[1])), True
        for async_name in self.twin_names(defined):  # by the def's own name: reachable, or beside it only
            beside = self._beside(sync, async_name)
            if beside is not None:
                twin = self._in_module(module, async_name)
                reachable = twin is not None and (twin[2], twin[1]) == beside
                return Twin(name, async_name, sync_key, beside), reachable
        return self._assigned_in_module(module, name, sync)

    def _pattern_names(self, name: str) -> tuple[str, ...]:
        """Every async name the patterns give for ``name``, borne by a def or not."""
        return tuple(found for prefix, suffix in self.patterns if (found := f"{prefix}{name}{suffix}") != name)

    def _defined_name(self, found: tuple[bool, int, str]) -> str:
        """The name an async def found by ``_in_module`` is defined with."""
        return self.files[found[2]].async_defs[found[1]].name

    def _beside(self, sync: tuple[bool, int, str], async_name: str) -> DefKey | None:
        """The async def ``async_name`` in the sync def's own module, if any."""
        twin = self._member(sync[2], None, async_name)
        return (sync[2], twin[1]) if twin is not None and twin[0] else None

    # ------------------------------------------------------------ contracts

    def contract(self, twin: Twin) -> Contract:
        found = self._contracts.get(twin)
        if found is None and twin.assigned:
            # The wrapper calls the sync def with the arguments it is given, in a thread.
            found = self._contracts[twin] = Contract(None, ALWAYS)
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
        """The async twin's def (not for a twin defined by assignment)."""
        return self.files[twin.async_[0]].async_defs[twin.async_[1]]

    def async_line(self, twin: Twin) -> int:
        """Where the async twin is defined: its def, or the assignment that makes it."""
        facts = self.files[twin.async_[0]]
        return facts.twin_assignments[twin.async_[1]].line if twin.assigned else facts.async_defs[twin.async_[1]].line

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
                            found.setdefault(
                                ((path, index), (path, twin[1])), Twin(name, async_name, (path, index), (path, twin[1]))
                            )
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
    return bool(info.decorators) and any(  # most defs have none: no generator for them
        text.rsplit(".", 1)[-1] in ("property", "cached_property", "setter", "getter", "deleter", "overload")
        for text in info.decorators
    )


def arguments_problem(
    sync: tuple[Parameter, ...], async_: tuple[Parameter, ...], sync_name: str, async_name: str
) -> str | None:
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
    for other in a.positional[len(s.positional) :]:
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
