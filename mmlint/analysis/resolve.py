"""Cross-file name resolution over FileFacts: module-level names through
definitions and imports (re-exports followed), classes and their MRO, and
callee references (bare names, dotted names, self./cls./super().) to the
async defs they can reach. Anything that cannot be resolved inside the
scanned code resolves to None: the caller treats it as suspending."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar

from typing import TYPE_CHECKING

from mmlint.analysis.symbols import (
    INERT_BASES as INERT_BASES,
    ClassSymbol as ClassSymbol,
    DefSymbol as DefSymbol,
    ModuleSymbol as ModuleSymbol,
    Symbol as Symbol,
    SyncDefSymbol as SyncDefSymbol,
)
from mmlint.core.knowledge import UNKNOWN_ORIGIN
from mmlint.facts.model import CLS, DOTTED, NAME, SELF, STAR, SUPER, CalleeRef, ClassInfo, FileFacts

# A def is identified by the display path of its file and its index there.
DefKey = tuple[str, int]
# A sync def likewise, by its index in FileFacts.sync_defs.
SyncKey = tuple[str, int]
ClassKey = tuple[str, str]  # (display path of the module, class qualname)
T = TypeVar("T")

if TYPE_CHECKING:
    from mmlint.analysis.values import Value, Values


@dataclass(frozen=True)
class External:
    """A base class outside the scanned code; its attributes are unknown."""

    text: str


@dataclass(frozen=True)
class Resolution:
    """Where a callee reference can lead. ``unresolved`` is True when some
    target is unknown (outside the scanned code, a sync function, a stub...)."""

    targets: tuple[DefKey, ...]
    unresolved: bool

    @property
    def fully_resolved(self) -> bool:
        return bool(self.targets) and not self.unresolved


UNRESOLVED = Resolution((), True)


@dataclass(frozen=True)
class SyncCall:
    """What a call (not an await) runs inside the scanned code, for the call
    graph through sync code. ``targets``: the sync defs it may run (for a
    class, its scanned ``__init__`` if any); ``coroutine``: it only creates a
    coroutine of a scanned async def; ``complete``: every target is known."""

    targets: tuple[SyncKey, ...]
    coroutine: bool
    complete: bool
    # What the callee is, by provenance, where it is a library's value
    # (mmlint.analysis.values): "transformers.AutoTokenizer.from_pretrained()::__call__",
    # "requests.Session()::get" — matched against the type-keyed knowledge.
    library: tuple[str, ...] = ()
    # Why the callee could not be typed ("" when it could, or was never asked).
    why: str = ""


UNKNOWN_CALL = SyncCall((), False, False)


# What a module-level name (or an attribute of one) is: mmlint.analysis.symbols.


class Resolver:
    """Modules are identified by the display path of their file."""

    def __init__(self, files: dict[str, FileFacts]) -> None:
        self.files = files
        self._sync_calls: dict[tuple[str, str | None, str, str, str | None, str | None], SyncCall] = {}
        by_name: dict[str, str | None] = {}
        for path, facts in sorted(files.items()):
            # Two scanned files claiming one module name: resolve neither.
            by_name[facts.module] = None if facts.module in by_name else path
        self._by_name = by_name
        self._by_module_path: dict[tuple[str, ...], str] = {facts.module_path: path for path, facts in files.items()}
        # Modules by the last part of their path, for namespace-package suffix matches.
        self._by_last_part: dict[str, list[str]] = {}
        for path, facts in files.items():
            if facts.module_path:
                self._by_last_part.setdefault(facts.module_path[-1], []).append(path)
        self.classes: dict[ClassKey, tuple[FileFacts, ClassInfo]] = {}
        for path, facts in files.items():
            for info in facts.classes:
                self.classes[(path, info.name)] = (facts, info)
        self._mro_cache: dict[ClassKey, tuple[ClassKey | External, ...]] = {}
        self._module_cache: dict[str, str | None] = {}
        self._sync_methods: dict[tuple[ClassKey, str], SyncKey | None] = {}
        # resolve_name's answers where a resolution starts (no name seen yet):
        # those depend on the files alone. Inside one, a cycle cut may make an
        # answer differ, so those are not kept.
        self._names: dict[tuple[str, str], Symbol | None] = {}
        self._dispatch: dict[tuple[ClassKey, str | None], tuple[ClassKey, ...]] = {}
        self._defining: dict[tuple[ClassKey, str, bool], tuple[ClassKey | None, bool]] = {}

    # ------------------------------------------------------------ modules

    def module_named(self, dotted: str) -> str | None:
        """The scanned module an absolute module name denotes: the one whose
        dotted name (from its ``__init__.py`` parents) is exactly that, else the
        unique one whose file path ends with all its parts (two or more), as for
        a package whose parents are namespace packages or lie outside the scan:
        ``sglang.srt.multimodal.processors.qwen_vl`` is
        ``.../sglang/srt/multimodal/processors/qwen_vl.py``."""
        if dotted in self._module_cache:
            return self._module_cache[dotted]
        found = self._by_name.get(dotted)
        if found is None and dotted not in self._by_name and "." in dotted:
            parts = tuple(dotted.split("."))
            candidates = [
                path
                for path in self._by_last_part.get(parts[-1], ())
                if self.files[path].module_path[-len(parts) :] == parts
            ]
            found = candidates[0] if len(candidates) == 1 else None
        self._module_cache[dotted] = found
        return found

    # ------------------------------------------------------------ symbols

    def resolve_name(self, module: str, name: str, seen: frozenset[tuple[str, str]] = frozenset()) -> Symbol | None:
        """What ``name`` is at module level in the module ``module`` (a display
        path), or None."""
        if seen:
            return self._resolve_name(module, name, seen)
        try:
            return self._names[(module, name)]
        except KeyError:
            found = self._names[(module, name)] = self._resolve_name(module, name, seen)
            return found

    def _resolve_name(self, module: str, name: str, seen: frozenset[tuple[str, str]]) -> Symbol | None:
        facts = self.files.get(module)
        if facts is None or (module, name) in seen:
            return None
        seen = seen | {(module, name)}
        if (module, name) in self.classes:
            return ClassSymbol((module, name))
        if name in facts.functions:
            index = _module_level_async_def(facts, name)
            if index is not None:
                return DefSymbol((module, index))
            sync_index = _module_level_sync_def(facts, name)
            return None if sync_index is None else SyncDefSymbol((module, sync_index))
        if name in facts.assigned_names:
            return None
        for fact in reversed(facts.imports):
            if fact.local == name:
                return self._resolve_import(fact.target, fact.anchor, seen)
        if facts.is_package:
            submodule = self._by_module_path.get(facts.module_path + (name,))
            if submodule is not None:
                return ModuleSymbol(submodule)
        for source in self._star_sources(facts, name):
            found = self.resolve_name(source, name, seen)
            if found is not None:
                return found
        return None

    def _star_sources(self, facts: FileFacts, name: str) -> list[str]:
        """The scanned modules whose `from m import *` in ``facts`` binds
        ``name``, the last import first: the names in m's literal `__all__`,
        else m's names without a leading underscore."""
        found: list[str] = []
        for fact in reversed(facts.imports):
            if fact.local != STAR:
                continue
            # The target of a star import is a module, never an attribute.
            if fact.anchor:
                parts = tuple(fact.target.split(".")) if fact.target else ()
                module = self._by_module_path.get(fact.anchor + parts)
            else:
                module = self.module_named(fact.target)
            if module is None:
                continue
            exported = self.files[module].all_names
            if name in exported if exported is not None else not name.startswith("_"):
                found.append(module)
        return found

    def resolve_import(self, target: str, anchor: tuple[str, ...]) -> Symbol | None:
        """What an import of ``target`` (an ImportFact's, or an import
        ValueFact's source, from the package ``anchor``) binds, or None."""
        return self._resolve_import(target, anchor, frozenset())

    def _resolve_import(self, target: str, anchor: tuple[str, ...], seen: frozenset[tuple[str, str]]) -> Symbol | None:
        """An imported dotted name: the longest prefix that is a scanned module,
        then attributes from there (re-exports followed)."""
        parts = target.split(".")
        for cut in range(len(parts), -1, -1):
            if anchor:
                module = self._by_module_path.get(anchor + tuple(parts[:cut]))
            else:
                module = self.module_named(".".join(parts[:cut])) if cut else None
            if module is None:
                continue
            symbol: Symbol | None = ModuleSymbol(module)
            for index, attr in enumerate(parts[cut:]):
                symbol = self._attribute(symbol, attr, seen if index == 0 else frozenset())
            return symbol
        return None

    def _attribute(
        self, symbol: Symbol | None, attr: str, seen: frozenset[tuple[str, str]] = frozenset()
    ) -> Symbol | None:
        if isinstance(symbol, ModuleSymbol):
            facts = self.files[symbol.path]
            submodule = self._by_module_path.get(facts.module_path + (attr,)) if facts.is_package else None
            if submodule is not None:
                return ModuleSymbol(submodule)
            return self.resolve_name(symbol.path, attr, seen)
        if isinstance(symbol, ClassSymbol):
            nested = (symbol.key[0], f"{symbol.key[1]}.{attr}")
            if nested in self.classes:  # a class defined in the class's body
                return ClassSymbol(nested)
            found = self.lookup_method(symbol.key, attr)
            if found is not None:
                return DefSymbol(found)
            sync = self.lookup_sync_method(symbol.key, attr)
            if sync is not None:
                return SyncDefSymbol(sync)
        return None

    def resolve_dotted(self, module: str, text: str) -> Symbol | None:
        parts = text.split(".")
        symbol = self.resolve_name(module, parts[0])
        for attr in parts[1:]:
            symbol = self._attribute(symbol, attr)
        return symbol

    # ------------------------------------------------------------ classes

    def class_of(self, module: str, dotted: str) -> ClassKey | External:
        """The scanned class a base-class reference in ``module`` denotes."""
        symbol = self.resolve_dotted(module, dotted) if dotted else None
        if isinstance(symbol, ClassSymbol):
            return symbol.key
        return External(dotted or "<expr>")

    def mro(self, key: ClassKey) -> tuple[ClassKey | External, ...]:
        """C3 linearisation over the scanned classes; bases outside the scan are
        opaque entries. Falls back to depth-first order when C3 fails."""
        if key in self._mro_cache:
            return self._mro_cache[key]
        self._mro_cache[key] = (key,)  # guards against a cyclic hierarchy
        facts, info = self.classes[key]
        bases = [self.class_of(key[0], base) for base in info.bases]
        bases = [b for b in bases if not (isinstance(b, External) and b.text in ("object", "builtins.object"))]
        linear_bases = [self.mro(b) if not isinstance(b, External) else (b,) for b in bases]
        merged: list[ClassKey | External] | None = _c3_merge([list(seq) for seq in linear_bases] + [list(bases)])
        if merged is None:
            merged = []
            for seq in linear_bases:
                merged.extend(item for item in seq if item not in merged)
        result = (key, *merged)
        self._mro_cache[key] = result
        return result

    def lookup_method(self, key: ClassKey, name: str, after: bool = False) -> DefKey | None:
        """The async def ``name`` resolves to on an instance of ``key`` (or after
        ``key`` in its MRO, for super()): a DefKey, or None when unknown."""
        entry = self.defining_class(key, name, after)
        if entry is None:
            return None
        facts, info = self.classes[entry]
        return _method_async_def(facts, info.name, name)

    def lookup_sync_method(self, key: ClassKey, name: str, after: bool = False) -> SyncKey | None:
        """The sync def ``name`` resolves to on an instance of ``key`` (or after
        it in its MRO): a SyncKey, or None when unknown or not a sync def."""
        entry = self.defining_class(key, name, after)
        if entry is None:
            return None
        if (entry, name) not in self._sync_methods:  # a scan over the file's defs: once per class and name
            facts, info = self.classes[entry]
            self._sync_methods[(entry, name)] = _method_sync_def(facts, info.name, name)
        return self._sync_methods[(entry, name)]

    # ------------------------------------------------------------ any def (MM010)

    def defining_class(self, key: ClassKey, name: str, after: bool = False) -> ClassKey | None:
        """The scanned class whose body defines ``name`` first along ``key``'s
        MRO (after ``key`` itself, for super()), sync or async alike; None when
        no scanned class does. Bases outside the scan are passed over: Python
        would most likely find the scanned definition (an unseen base *could*
        define the name first; ``defining_class_shadowable`` says when)."""
        return self.defining_class_shadowable(key, name, after)[0]

    def defining_class_shadowable(self, key: ClassKey, name: str, after: bool = False) -> tuple[ClassKey | None, bool]:
        """``defining_class``, and whether a base outside the scan (not one of
        INERT_BASES) comes before the defining class in the MRO, so may define
        ``name`` first: what a rewrite, unlike a report, must not bet on."""
        found = self._defining.get((key, name, after))
        if found is None:
            found = self._defining[(key, name, after)] = self._defining_class(key, name, after)
        return found

    def _defining_class(self, key: ClassKey, name: str, after: bool) -> tuple[ClassKey | None, bool]:
        order = self.mro(key)
        shadowable = False
        for entry in order[1:] if after else order:
            if isinstance(entry, External):
                shadowable = shadowable or entry.text not in INERT_BASES
                continue
            if name in self.classes[entry][1].methods:
                return entry, shadowable
        return None, shadowable

    def module_function(
        self, module: str, name: str, seen: frozenset[tuple[str, str]] = frozenset()
    ) -> tuple[str, str] | None:
        """(module, name) of the module-level def, sync or async, that ``name``
        denotes at module level in ``module``, imports and re-exports followed."""
        facts = self.files.get(module)
        if facts is None or (module, name) in seen:
            return None
        seen = seen | {(module, name)}
        if name in facts.functions:
            return (module, name)
        if name in facts.assigned_names or (module, name) in self.classes:
            return None
        for fact in reversed(facts.imports):
            if fact.local == name:
                parent_text, _, last = fact.target.rpartition(".")
                if parent_text:
                    parent = self._resolve_import(parent_text, fact.anchor, frozenset())
                elif fact.anchor and (found := self._by_module_path.get(fact.anchor)) is not None:
                    parent = ModuleSymbol(found)
                else:
                    parent = None
                if not isinstance(parent, ModuleSymbol):
                    return None
                return self.module_function(parent.path, last, seen)
        for source in self._star_sources(facts, name):
            located = self.module_function(source, name, seen)
            if located is not None:
                return located
        return None

    @cached_property
    def _subclasses(self) -> dict[ClassKey, tuple[ClassKey, ...]]:
        found: dict[ClassKey, list[ClassKey]] = {key: [] for key in self.classes}
        for key in self.classes:
            for ancestor in self.mro(key)[1:]:
                if not isinstance(ancestor, External) and ancestor in found:
                    found[ancestor].append(key)
        return {key: tuple(sorted(value)) for key, value in found.items()}

    # ------------------------------------------------------------ callees

    def dispatch_classes(self, key: ClassKey, method: str | None) -> tuple[ClassKey, ...]:
        """The classes ``self`` may be an instance of while ``key``'s own
        ``method`` runs: ``key`` and its scanned subclasses, less those that
        override ``method`` (on an instance of one of those, this body never runs)."""
        found = self._dispatch.get((key, method))
        if found is None:
            classes = (key, *self._subclasses.get(key, ()))
            if method is not None:
                classes = tuple(k for k in classes if k == key or self.defining_class(k, method) in (key, None))
            found = self._dispatch[(key, method)] = classes
        return found

    @cached_property
    def values(self) -> "Values":
        """Provenance of receivers (mmlint.analysis.values)."""
        from mmlint.analysis.values import Values

        return Values(self)

    def resolve_callee(
        self,
        facts: FileFacts,
        class_name: str | None,
        ref: CalleeRef | None,
        method: str | None = None,
        scope: str | None = None,
    ) -> Resolution:
        """The async defs an awaited call may run, seen from a function in
        ``facts`` (the method ``method`` of ``class_name`` when not None;
        ``scope``: the calling def's qualname, whose locals type receivers)."""
        if ref is None:
            return UNRESOLVED
        found = self._resolve_callee(facts, class_name, ref, method)
        if found is UNRESOLVED and ref.kind != SUPER:
            return self._typed_callee(facts, class_name, ref, scope)
        return found

    def _typed_callee(self, facts: FileFacts, class_name: str | None, ref: CalleeRef, scope: str | None) -> Resolution:
        from mmlint.analysis.values import Place, ref_path

        text = ref_path(ref)
        if text is None:
            return UNRESOLVED
        value = self.values.of(Place(facts.path, class_name, scope or ""), text)
        targets: list[DefKey] = []
        unresolved = bool(value.why) or not value.atoms
        for atom in value.atoms:
            if atom[0] == "def" and atom[2]:
                targets.append((str(atom[1]), int(atom[3])))  # type: ignore[call-overload]
            else:
                unresolved = True
        concrete = [t for t in dict.fromkeys(targets) if not self._is_stub(t)]
        return Resolution(tuple(concrete), unresolved or len(concrete) < len(set(targets)) or not concrete)

    def _resolve_callee(
        self, facts: FileFacts, class_name: str | None, ref: CalleeRef, method: str | None
    ) -> Resolution:
        if ref.kind in (NAME, DOTTED):
            symbol = self.resolve_dotted(facts.path, ref.text)
            if isinstance(symbol, DefSymbol):
                return self._usable((symbol.key,))
            return UNRESOLVED
        if class_name is None or (facts.path, class_name) not in self.classes:
            return UNRESOLVED
        key = (facts.path, class_name)
        if ref.kind == SUPER:
            target = self.lookup_method(key, ref.text, after=True)
            return UNRESOLVED if target is None else self._usable((target,))
        if ref.kind in (SELF, CLS):
            # Dynamic dispatch: the class itself or any scanned subclass.
            candidates = [self.lookup_method(k, ref.text) for k in self.dispatch_classes(key, method)]
            concrete = [c for c in dict.fromkeys(candidates) if c is not None and not self._is_stub(c)]
            if not any(c is not None for c in candidates):
                return UNRESOLVED  # not a method: an attribute, typed by its value
            unresolved = any(c is None for c in candidates) or not concrete
            return Resolution(tuple(concrete), unresolved)
        return UNRESOLVED

    def resolve_sync_call(
        self,
        facts: FileFacts,
        class_name: str | None,
        ref: CalleeRef,
        method: str | None = None,
        scope: str | None = None,
    ) -> SyncCall:
        """What a plain call runs, seen from a function in ``facts`` (the
        method ``method`` of ``class_name`` when not None): scanned sync defs
        (a class's scanned ``__init__``), a scanned coroutine function, or
        something unknown. Subclasses overriding ``method`` are not looked at.
        Computed once per (file, class, callee, method): the weight and twin
        analyses ask for the same calls round after round."""
        # The reference by its fields: strings hash in C and keep their hash,
        # where the dataclass's __hash__ is a Python call at every lookup.
        key = (facts.path, class_name, ref.kind, ref.text, method, scope)
        try:
            return self._sync_calls[key]
        except KeyError:
            found = self._resolve_sync_call(facts, class_name, ref, method)
            if not found.targets and not found.coroutine and not found.complete and ref.kind != SUPER:
                found = self._typed_sync_call(facts, class_name, ref, scope)
            self._sync_calls[key] = found
            return found

    def _typed_sync_call(self, facts: FileFacts, class_name: str | None, ref: CalleeRef, scope: str | None) -> SyncCall:
        """A call the names alone do not resolve, by what its callee is
        (mmlint.analysis.values): the scanned defs it runs (a class's
        ``__init__``, an instance's ``__call__``), and library provenances."""
        from mmlint.analysis.values import Place, ref_path

        text = ref_path(ref)
        if text is None:
            return UNKNOWN_CALL
        return self._sync_call_of(self.values.of(Place(facts.path, class_name, scope or ""), text))

    def _sync_call_of(self, value: "Value") -> SyncCall:
        """What calling a value (mmlint.analysis.values) runs."""
        targets: list[SyncKey] = []
        library: list[str] = []
        complete = not value.why and bool(value.atoms)
        coroutine = bool(value.atoms)
        for atom in value.atoms:
            kind = atom[0]
            if kind == "def":
                if not atom[2]:
                    targets.append((str(atom[1]), int(atom[3])))  # type: ignore[call-overload]
                    coroutine = False
                continue
            coroutine = False
            if kind == "class":
                init = self.lookup_sync_method(atom[1], "__init__")  # type: ignore[arg-type]
                if init is not None:
                    targets.append(init)
            elif kind == "instance":
                call = self.lookup_sync_method(atom[1], "__call__")  # type: ignore[arg-type]
                if call is None:
                    complete = False
                else:
                    targets.append(call)
            elif kind in ("getter", "view") and atom[2]:
                # A container's own method (`dict().get`): the builtin type's.
                library.append(f"{atom[2]}()::{atom[3]}")
                complete = False
            elif kind == "library" and atom[1] == "<unknown>":
                complete = False  # an unannotated parameter called: nothing to go by
            elif kind == "library":
                provenance = str(atom[1])
                head, dot, last = provenance.rpartition(".")
                library.append(
                    f"{provenance}::__call__" if provenance.endswith(("()", "[]")) or not dot else f"{head}::{last}"
                )
                if dot and provenance.startswith(UNKNOWN_ORIGIN) and not provenance.endswith(("()", "[]")):
                    # `<unknown>.tokenizer(text)`: a method of something unknown, or an
                    # object held in an attribute and called (the HF idiom): both.
                    library.append(f"{provenance}::__call__")
                complete = False
            else:
                complete = False
        if coroutine:
            return SyncCall((), True, complete, why=value.why)
        return SyncCall(tuple(dict.fromkeys(targets)), False, complete, tuple(dict.fromkeys(library)), value.why)

    def _resolve_sync_call(
        self, facts: FileFacts, class_name: str | None, ref: CalleeRef, method: str | None
    ) -> SyncCall:
        if ref.kind in (NAME, DOTTED):
            symbol = self.resolve_dotted(facts.path, ref.text)
            if isinstance(symbol, SyncDefSymbol):
                decorated = (
                    self.values.decorated(symbol.key)
                    if self.files[symbol.key[0]].sync_defs[symbol.key[1]].decorators
                    else None
                )
                if decorated is not None:  # what its decorators made of it: a call of that
                    return self._typed_sync_call(facts, class_name, ref, None)
                return SyncCall((symbol.key,), False, True)
            if isinstance(symbol, DefSymbol):
                return SyncCall((), True, True)
            if isinstance(symbol, ClassSymbol):
                # Constructing a scanned class runs its scanned __init__; without
                # one it is a dataclass, a model, an exception...: cheap.
                init = self.lookup_sync_method(symbol.key, "__init__")
                return SyncCall(() if init is None else (init,), False, True)
            return UNKNOWN_CALL
        if class_name is None or (facts.path, class_name) not in self.classes:
            return UNKNOWN_CALL
        key = (facts.path, class_name)
        if ref.kind == SUPER:
            found_one = self.lookup_sync_method(key, ref.text, after=True)
            if found_one is not None:
                return SyncCall((found_one,), False, True)
            if self.lookup_method(key, ref.text, after=True) is not None:
                return SyncCall((), True, True)
            if self.defining_class(key, ref.text, after=True) is None:
                return self._super_outside(key, ref.text)
            return UNKNOWN_CALL
        if ref.kind in (SELF, CLS):
            classes = self.dispatch_classes(key, method)
            if all(self.lookup_method(k, ref.text) is not None for k in classes):
                return SyncCall((), True, True)
            candidates = [self.lookup_sync_method(k, ref.text) for k in classes]
            found = tuple(c for c in dict.fromkeys(candidates) if c is not None)
            return SyncCall(found, False, bool(found) and all(c is not None for c in candidates))
        return UNKNOWN_CALL

    def _super_outside(self, key: ClassKey, name: str) -> SyncCall:
        """``super().name(...)`` in a method of ``key``, where no scanned
        class after it defines ``name``: the first base outside the scan
        that may (``Exception().__init__``, a library member; not one of a
        scanned package whose module the run never read: unknown);
        ``object``'s own member (``__init__``) when only inert bases are
        left, which runs nothing."""
        inherited = self.values.inherited(key, name, True)
        packages = self.values.scanned_packages()
        if any(str(atom[1]).split(".", 1)[0] in packages for atom in inherited.atoms):
            return UNKNOWN_CALL
        if inherited.atoms:
            return self._sync_call_of(inherited)
        if hasattr(object, name) and all(
            entry.text in INERT_BASES for entry in self.mro(key) if isinstance(entry, External)
        ):
            return SyncCall((), False, True)
        return UNKNOWN_CALL

    def _is_stub(self, key: DefKey) -> bool:
        """Whether calling this def tells us nothing we can trust: a stub or an
        abstract method stands for an implementation we cannot see, an async
        generator is not awaited, and a decorator may wrap the coroutine."""
        info = self.files[key[0]].async_defs[key[1]]
        return info.is_interface_only or bool(info.opaque_decorators)

    def _usable(self, targets: tuple[DefKey, ...]) -> Resolution:
        """A stub or abstract coroutine stands for an implementation we cannot see."""
        if any(self._is_stub(t) for t in targets):
            return UNRESOLVED
        return Resolution(targets, False)


def _module_level_async_def(facts: FileFacts, name: str) -> int | None:
    """Index of the module-level async def named ``name`` (the last one wins,
    as at run time); None when the last definition is a sync def."""
    found = None
    for index, info in enumerate(facts.async_defs):
        if info.class_name is None and info.qualname == name:
            found = index
    if found is None:
        return None
    return found if _last_definition_is_async(facts.functions, name, facts, class_name=None) else None


def _module_level_sync_def(facts: FileFacts, name: str) -> int | None:
    """Index of the module-level sync def named ``name`` (the last one wins);
    None when the name is also defined by an async def."""
    if any(info.class_name is None and info.qualname == name for info in facts.async_defs):
        return None
    found = None
    for index, info in enumerate(facts.sync_defs):
        if info.qualname == name:
            found = index
    return found


def _method_sync_def(facts: FileFacts, class_name: str, name: str) -> SyncKey | None:
    """The sync method ``name`` of ``class_name``; None when the class also
    defines it as an async def."""
    if any(info.class_name == class_name and info.name == name for info in facts.async_defs):
        return None
    found = None
    for index, info in enumerate(facts.sync_defs):
        if info.class_name == class_name and info.name == name:
            found = index
    return None if found is None else (facts.path, found)


def _method_async_def(facts: FileFacts, class_name: str, name: str) -> DefKey | None:
    found = None
    for index, info in enumerate(facts.async_defs):
        if info.class_name == class_name and info.name == name:
            found = index
    if found is None:
        return None
    return (facts.path, found)


def _last_definition_is_async(functions: tuple[str, ...], name: str, facts: FileFacts, class_name: str | None) -> bool:
    """A module that defines ``name`` both as def and async def: only trust an
    async def that is the sole definition."""
    return functions.count(name) == sum(
        1 for info in facts.async_defs if info.class_name == class_name and info.qualname == name
    )


def _c3_merge(sequences: list[list[T]]) -> list[T] | None:
    result: list[T] = []
    sequences = [seq for seq in sequences if seq]
    while sequences:
        for seq in sequences:
            head = seq[0]
            if not any(head in other[1:] for other in sequences):
                break
        else:
            return None
        result.append(head)
        sequences = [[item for item in seq if item != head] for seq in sequences]
        sequences = [seq for seq in sequences if seq]
    return result
