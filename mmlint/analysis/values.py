"""What a receiver is: a flow-insensitive provenance layer over the facts'
ValueFacts (mmlint.facts.values), as PyCG's assignment graph is.

A path (``self.model``, ``worker_map[]``, ``get_session()``) seen from a
place (a file, the class of the calling method, the calling def) evaluates
to a union of *atoms*: an instance or a class of the scan, a scanned def
(a function, or a method looked up on an instance), a scanned module, a
container of atoms, or a library value named by its provenance (the dotted
name of what made it: ``transformers.AutoTokenizer.from_pretrained()``,
``requests.Session()``, ``zmq.Context().socket()``). Whatever a path cannot
be followed to stays unknown, with the first reason why (a parameter with
no annotation, an attribute never assigned, a name from outside the scan).

Resolution (mmlint.analysis.resolve) asks it only for callees it cannot
resolve by name: a method of a typed receiver resolves through the class's
MRO with the usual dispatch over scanned subclasses; a library provenance is
matched against the type-keyed knowledge (mmlint.core.knowledge).
"""

from __future__ import annotations

import builtins
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from mmlint.analysis.symbols import INERT_BASES, ClassKey, ClassSymbol, DefSymbol, ModuleSymbol, SyncDefSymbol
from mmlint.core.knowledge import UNKNOWN_ORIGIN
from mmlint.facts.model import CLS, SELF, SUPER, CalleeRef, FileFacts, ValueFact


class Resolver(Protocol):
    """What this layer asks of mmlint.analysis.resolve.Resolver (a Protocol:
    resolve imports this module, never the other way round)."""

    files: dict[str, FileFacts]
    classes: dict[ClassKey, Any]

    def resolve_name(self, module: str, name: str) -> Any: ...
    def _resolve_import(self, target: str, anchor: tuple[str, ...], seen: frozenset[tuple[str, str]]) -> Any: ...
    def _attribute(self, symbol: Any, attr: str) -> Any: ...
    def dispatch_classes(self, key: ClassKey, method: str | None) -> tuple[ClassKey, ...]: ...
    def defining_class(self, key: ClassKey, name: str, after: bool = False) -> ClassKey | None: ...
    def lookup_method(self, key: ClassKey, name: str) -> tuple[str, int] | None: ...
    def lookup_sync_method(self, key: ClassKey, name: str) -> tuple[str, int] | None: ...
    def mro(self, key: ClassKey) -> tuple[Any, ...]: ...


# Atoms: (kind, payload...). Kinds: "instance" / "class" (ClassKey), "def"
# (path, is async, index), "module" (path), "library" (provenance text),
# "elements" (a container: a tuple of atoms, and its type: "list", "dict",
# "" when unknown; a fourth item, the constant key they are stored under in it), "getter" / "view" (a container's method that gives an
# element, or the container again: its atoms, type and the method's name),
# "function" (path, name: a module-level def whose body the run did not read).
Atom = tuple[object, ...]

_THROUGH_SELF = re.compile(r"(?:self|cls)(?!\w)")  # a source read through the receiver
_INDIRECT = "<indirect>"  # Values._arguments_by_name's key of calls through a value
_NAMED = re.compile(r"[A-Za-z_][\w.]*")  # a default that is a dotted name
_SEGMENT = re.compile(r"\.?([^.()\[\]]+)|(\(\))|(\[[^\[\]]*\])")
_MAX_DEPTH = 12
# Container methods whose call gives an element, or the container again.
_ELEMENT_GETTERS = frozenset({"get", "pop", "setdefault", "__getitem__", "popitem"})
_CONTAINER_VIEWS = frozenset({"values", "copy"})
# Library classes whose subscript is a generic alias of the class, which calls
# as the class does (`list[int]()`, `asyncio.Queue[bytes]()`): builtins and
# the standard library's containers and queues.
_GENERIC_CLASSES = frozenset(
    {
        "list",
        "dict",
        "set",
        "frozenset",
        "tuple",
        "type",
        *(f"collections.{name}" for name in ("deque", "defaultdict", "OrderedDict", "Counter", "ChainMap")),
        *(f"asyncio.{name}" for name in ("Queue", "PriorityQueue", "LifoQueue", "Future")),
        *(f"queue.{name}" for name in ("Queue", "SimpleQueue", "PriorityQueue", "LifoQueue")),
    }
)
# Builtins whose result is (or holds) an object they are given, not a value
# of their own making: calling one is resolved, what it returns is not known.
_PASSING_BUILTINS = frozenset(
    {
        "getattr",
        "next",
        "anext",
        "iter",
        "aiter",
        "min",
        "max",
        "sorted",
        "reversed",
        "filter",
        "map",
        "zip",
        "enumerate",
        "super",
        "vars",
        "eval",
    }
)


@dataclass(frozen=True, slots=True)
class Value:
    atoms: tuple[Atom, ...]
    why: str = ""  # the first reason a part of it is unknown ("" when none is)

    def union(self, other: "Value") -> "Value":
        return Value(tuple(dict.fromkeys((*self.atoms, *other.atoms))), self.why or other.why)


NOTHING = Value(())


@dataclass(frozen=True, slots=True)
class Place:
    path: str  # the file's display path
    class_name: str | None  # the class the def is a method of (qualified), if any
    scope: str  # the def's qualname, "" at module or class level
    # The class `self` is an instance of there, when known to be one class
    # (an attribute's assigned value evaluated for one receiver's class):
    # a base's `self._processor` seen from one subclass is that subclass's.
    receiver: tuple[str, str] | None = None


@functools.lru_cache(maxsize=1 << 14)
def split_path(text: str) -> tuple[str, ...]:
    """``zmq.Context().socket()`` -> ("zmq", "Context", "()", "socket", "()").
    Memoised: a scan asks for far fewer texts than it has paths (sglang 0.5.23:
    8.6k holders among 97.7k argument facts)."""
    return tuple(match.group(1) or match.group(2) or match.group(3) for match in _SEGMENT.finditer(text))


# Kinds never looked up by (kind, holder, name): argument facts are read by
# the callee's last name (Values._arguments_by_name), implicit calls by the
# call graph. Half of a scan's value facts (sglang 0.5.23: 44,628 of 83,602):
# left out of the per-file index, peak RSS on it is 5 MiB less (131.5 -> 126.5).
_UNINDEXED = frozenset({"argument", "implicit"})


class Values:
    """Provenance of paths across one scan (one per Resolver)."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self.files = resolver.files
        self._by_file: dict[str, dict[tuple[str, str, str], list[ValueFact]]] = {}
        self._defs: dict[str, dict[str, tuple[bool, int]]] = {}
        self._memo: dict[tuple[Place, str], Value] = {}
        self._active: set[tuple[Place, str]] = set()

    # ------------------------------------------------------------ indexes

    def _facts(self, path: str) -> dict[tuple[str, str, str], list[ValueFact]]:
        found = self._by_file.get(path)
        if found is None:
            found = {}
            for fact in self.files[path].values:
                if fact.kind not in _UNINDEXED:
                    found.setdefault((fact.kind, fact.holder, fact.name), []).append(fact)
            self._by_file[path] = found
        return found

    def _def_index(self, path: str) -> dict[str, tuple[bool, int]]:
        found = self._defs.get(path)
        if found is None:
            facts = self.files[path]
            found = {info.qualname: (False, index) for index, info in enumerate(facts.sync_defs)}
            found.update({info.qualname: (True, index) for index, info in enumerate(facts.async_defs)})
            self._defs[path] = found
        return found

    # ------------------------------------------------------------ evaluation

    def of(self, place: Place, text: str) -> Value:
        """What the path ``text`` may be, seen from ``place``."""
        key = (place, text)
        found = self._memo.get(key)
        if found is not None:
            return found
        if key in self._active or len(self._active) > _MAX_DEPTH:
            return Value((), "its value depends on itself")
        self._active.add(key)
        try:
            found = self._evaluate(place, split_path(text))
        finally:
            self._active.discard(key)
        self._memo[key] = found
        return found

    def _evaluate(self, place: Place, parts: tuple[str, ...]) -> Value:
        if not parts:
            return NOTHING
        value = self._head(place, parts[0])
        shown = parts[0]
        for part in parts[1:]:
            if not value.atoms:
                break
            if part == "()":
                value = self._call(value, shown)
            elif part[0] == "[":
                value = self._item(value, shown, part[1:-1])
            else:
                value = self._attribute(value, part, shown)
            shown = f"{shown}{part}" if part[0] in "([" else f"{shown}.{part}"
        return value

    def _from_facts(
        self, facts: Iterable[ValueFact], path: str, class_name: str | None, receiver: ClassKey | None = None
    ) -> Value:
        value = NOTHING
        for fact in facts:
            # Only a value read through `self` / `cls` depends on the receiver: the rest share one evaluation.
            mine = receiver if receiver is not None and _THROUGH_SELF.match(fact.source) else None
            found = self.of(Place(path, class_name, fact.context, mine), fact.source)
            if fact.element:
                atoms = found.atoms
                keys = fact.keys or ("",)
                for depth in range(len(keys) - 1, -1, -1):
                    key = (keys[depth],) if keys[depth] else ()
                    atoms = (("elements", atoms, fact.container if depth == 0 else "", *key),)
                found = Value(atoms, found.why)
            value = value.union(found)
        return value

    def _head(self, place: Place, name: str) -> Value:
        path = place.path
        facts = self.files[path]
        scope = place.scope
        while scope:
            local = self._facts(path).get(("local", scope, name))
            imported = [
                found
                for fact in self._facts(path).get(("import", scope, name), ())
                if (found := self._imported_outside(name, fact.source, fact.keys)) is not None
            ]
            if local or imported:
                value = self._from_facts(local or (), path, place.class_name, place.receiver)
                for found in imported:
                    value = value.union(found)
                return value
            parameter = self._parameter(place, scope, name)
            if parameter is not None:
                return parameter
            nested = self._def_index(path).get(f"{scope}.<locals>.{name}")
            if nested is not None:  # a def nested in the scope
                return Value((("def", path, nested[0], nested[1]),))
            if ".<locals>." not in scope:
                break
            scope = scope.rsplit(".<locals>.", 1)[0]
        return self._global(path, name, facts)

    def _parameter(self, place: Place, scope: str, name: str) -> Value | None:
        located = self._def_index(place.path).get(scope)
        if located is None:
            return None
        is_async, index = located
        facts = self.files[place.path]
        info = facts.async_defs[index] if is_async else facts.sync_defs[index]
        for position, parameter in enumerate(info.params):
            if parameter.name != name:
                continue
            if position == 0 and info.class_name is not None and scope == f"{info.class_name}.{info.name}":
                key = (place.path, info.class_name)
                if key in self.resolver.classes and "staticmethod" not in getattr(info, "decorators", ()):
                    kind = "class" if name == "cls" or "classmethod" in getattr(info, "decorators", ()) else "instance"
                    return Value(((kind, place.receiver or key),))
            if not parameter.annotation:
                # Of unknown origin: its attributes keep their names
                # (`<unknown>.tokenizer`), which type-keyed knowledge may know;
                # and whatever the scanned calls of the def pass it, or its default.
                passed = self._passed(place.path, is_async, index, position, parameter.name)
                if _NAMED.fullmatch(parameter.default) and parameter.default not in ("None", "True", "False"):
                    passed = passed.union(Value(self.of(Place(place.path, None, ""), parameter.default).atoms))
                return Value(
                    (*passed.atoms, ("library", UNKNOWN_ORIGIN)), f"`{name}` is a parameter with no annotation"
                )
            from mmlint.facts.values import annotation_paths  # the same reading of annotations as the facts'

            import ast

            try:
                node = ast.parse(parameter.annotation, mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return Value((), f"`{name}`'s annotation is not a type")
            value = NOTHING
            for text, container in annotation_paths(node):
                found = self.of(Place(place.path, None, ""), text)
                value = value.union(Value((("elements", found.atoms, container),), found.why) if container else found)
            return value if value.atoms or value.why else Value((), f"`{name}`'s annotation names no class")
        return None

    def _passed(self, path: str, is_async: bool, index: int, position: int, name: str) -> Value:
        """The values the scanned calls of a def pass its parameter ``name``
        (at ``position``): by keyword, or by position (past the instance
        for a method called on one, or a class constructed)."""
        facts = self.files[path]
        info = facts.async_defs[index] if is_async else facts.sync_defs[index]
        bound = info.class_name is not None and "staticmethod" not in getattr(info, "decorators", ())
        me = ("def", path, is_async, index)
        value = NOTHING
        by_name = self._arguments_by_name()
        callees = [info.name if info.name != "__init__" else ""]
        if info.name == "__init__" and info.class_name:
            callees.append(info.class_name.rsplit(".", 1)[-1])
        if info.name in self._escaping() or info.name[0] == "<":
            callees.append(_INDIRECT)
        # The argument given by keyword, or at its place among the positional ones.
        keys = (name, str(position - bound)) if position >= bound else (name,)
        for _, fact, fact_path in (
            argument
            for callee in callees
            # In the scan's order, as one list by callee would hold them.
            for argument in sorted(argument for key in keys for argument in by_name.get((callee, key), ()))
        ):
            context = fact.context
            located = self._def_index(fact_path).get(context) if context else None
            where = None
            if located is not None:
                owner = (
                    self.files[fact_path].async_defs[located[1]]
                    if located[0]
                    else self.files[fact_path].sync_defs[located[1]]
                )
                where = owner.class_name
            callee = self.of(Place(fact_path, where, context), fact.holder)
            if not any(
                atom == me
                or (
                    atom[0] == "class"
                    and info.name == "__init__"
                    and self.resolver.lookup_sync_method(atom[1], "__init__") == (path, index)  # type: ignore[arg-type]
                )
                for atom in callee.atoms
            ):
                continue
            found = self.of(Place(fact_path, where, context), fact.source)
            value = value.union(Value(found.atoms))
        return value

    def _arguments_by_name(self) -> dict[tuple[str, str], tuple[tuple[int, ValueFact, str], ...]]:
        """Every argument fact of the scan, by the callee's last name and the
        argument's name (its keyword, or its position as digits); under
        _INDIRECT too, those whose callee is a value rather than a def's name
        (a parameter, a local, a global assigned, a call's result: ``a(b)``,
        ``make()(b)``), which may be any def that escapes. Keyed by both
        names because a common callee name (``get``, ``run``) has thousands
        of arguments, of which a parameter wants one name."""
        found = getattr(self, "_arguments", None)
        if found is None:
            collected: dict[tuple[str, str], list[tuple[int, ValueFact, str]]] = {}
            order = 0  # the scan's order, for sorting: no two arguments compare equal
            for path, facts in self.files.items():
                named = {*facts.functions, *(c.name for c in facts.classes), *(i.local for i in facts.imports)}
                for fact in facts.values:
                    if fact.kind == "argument":
                        order += 1
                        parts = split_path(fact.holder) if fact.holder else ("",)
                        collected.setdefault((parts[-1], fact.name), []).append((order, fact, path))
                        if parts[-1][:1] in ("(", "[") or (
                            len(parts) == 1 and parts[0] not in named and not hasattr(builtins, parts[0])
                        ):
                            collected.setdefault((_INDIRECT, fact.name), []).append((order, fact, path))
            found = self._arguments = {key: tuple(value) for key, value in collected.items()}
        return found

    def _escaping(self) -> frozenset[str]:
        """The last names of every value a fact of the scan stores or passes:
        the defs that may be called through another name."""
        found = getattr(self, "_escapes", None)
        if found is None:
            found = self._escapes = frozenset(
                fact.source.rsplit(".", 1)[-1]
                for facts in self.files.values()
                for fact in facts.values
                if fact.kind != "import"
            )
        return found

    def _global(self, path: str, name: str, facts: FileFacts) -> Value:
        assigned = self._facts(path).get(("global", "", name))
        if assigned:
            return self._from_facts(assigned, path, None)
        if name[0] == "<":  # a lambda of the module's body, or a def itself (mmlint.facts.values)
            located = self._def_index(path).get(name[5:-1] if name.startswith("<def:") else name)
            return Value((("def", path, *located),)) if located is not None else NOTHING
        symbol = self.resolver.resolve_name(path, name)
        if isinstance(symbol, ClassSymbol):
            return Value((("class", symbol.key),))
        if isinstance(symbol, SyncDefSymbol):
            return self.decorated(symbol.key) or Value((("def", symbol.key[0], False, symbol.key[1]),))
        if isinstance(symbol, DefSymbol):
            return Value((("def", symbol.key[0], True, symbol.key[1]),))
        if isinstance(symbol, ModuleSymbol):
            return Value((("module", symbol.path),))
        if symbol is None and name in facts.functions and name not in facts.assigned_names:
            return Value((("function", path, name),))
        for fact in reversed(facts.imports):
            if fact.local == name:
                return self._imported(name, fact.target, fact.anchor, scanned=False)
        if hasattr(builtins, name):
            # Python's last scope: `len`, `open`, `ValueError` are the builtins
            # module's values, named as an import names its own.
            return Value((("library", name),))
        return Value((), f"`{name}` is not bound where it is used")

    def _imported_outside(self, name: str, target: str, anchor: tuple[str, ...]) -> Value | None:
        """What a def's own import binds ``name`` to, when that is a library
        value (``from soundfile import info``); None for one of a scanned
        package (relative, or under a top-level package some scanned module
        is of, read by this run or not), which the name is still looked up
        as before for: following those imports adds findings (SGLang's,
        Xinference's) still to judge."""
        if anchor or target.split(".", 1)[0] in self.scanned_packages():
            return None
        value = self._imported(name, target, anchor)
        if value.why or any(atom[0] != "library" for atom in value.atoms):
            return None
        return value

    def scanned_packages(self) -> frozenset[str]:
        """The top-level names of the scanned modules (``vllm``)."""
        found = getattr(self, "_packages", None)
        if found is None:
            found = self._packages = frozenset(facts.module.split(".", 1)[0] for facts in self.files.values())
        return found

    def _imported(self, name: str, target: str, anchor: tuple[str, ...], scanned: bool = True) -> Value:
        """What an import binds ``name`` to (an ImportFact's ``target`` and
        ``anchor``): a scanned module, def or class (unless ``scanned`` is
        False: the caller looked already), a scanned module's global, else a
        library value named by its target."""
        if scanned:
            found = self._global_symbol(self.resolver._resolve_import(target, anchor, frozenset()))
            if found.atoms:
                return found
        parent, _, last = target.rpartition(".")
        if anchor or parent:
            # `from .server import worker`: a global of a scanned module.
            module = self.resolver._resolve_import(parent, anchor, frozenset())
            if isinstance(module, ModuleSymbol):
                return self._module_attribute(module.path, last)
        if anchor:
            return Value((), f"`{name}` is imported from a module outside the scan")
        return Value((("library", target),))

    def _module_attribute(self, path: str, name: str) -> Value:
        assigned = self._facts(path).get(("global", "", name))
        if assigned:
            return self._from_facts(assigned, path, None)
        symbol = self.resolver._attribute(ModuleSymbol(path), name)
        if symbol is None and name in self.files[path].functions and name not in self.files[path].assigned_names:
            # A def of a module the calls reach only through values: its body
            # was never read (mmlint.check.reach), its return facts were.
            return Value((("function", path, name),))
        if symbol is None:
            return (
                self._global(path, name, self.files[path])
                if name in self.files[path].assigned_names
                else Value((), f"`{name}` is not defined in a scanned module")
            )
        return self._global_symbol(symbol)

    def decorated(self, key: tuple[str, int]) -> Value | None:
        """What a module-level sync def's name is, when its decorators return
        scanned defs or classes only (``@timed`` returning its ``wrapper``);
        None when it has none, or one is not known (the def itself, then)."""
        info = self.files[key[0]].sync_defs[key[1]]
        if not info.decorators or info.class_name is not None or ".<locals>." in info.qualname:
            return None
        facts = self._facts(key[0]).get(("decorated", "", info.name))
        if not facts:
            return None
        value = self._from_facts(facts, key[0], None)
        if value.why or not value.atoms or any(atom[0] not in ("def", "class", "instance") for atom in value.atoms):
            return None
        return value

    def _global_symbol(self, symbol: object) -> Value:
        if isinstance(symbol, ClassSymbol):
            return Value((("class", symbol.key),))
        if isinstance(symbol, SyncDefSymbol):
            return self.decorated(symbol.key) or Value((("def", symbol.key[0], False, symbol.key[1]),))
        if isinstance(symbol, DefSymbol):
            return Value((("def", symbol.key[0], True, symbol.key[1]),))
        if isinstance(symbol, ModuleSymbol):
            return Value((("module", symbol.path),))
        return NOTHING

    # ------------------------------------------------------------ steps

    def _attribute(self, value: Value, name: str, shown: str) -> Value:
        result = Value((), value.why)
        for atom in value.atoms:
            kind = atom[0]
            if kind == "library":
                result = result.union(Value((("library", f"{atom[1]}.{name}"),)))
            elif kind in ("instance", "class"):
                nested = (atom[1][0], f"{atom[1][1]}.{name}")  # type: ignore[index]
                if nested in self.resolver.classes:  # a class defined in the class's body
                    result = result.union(Value((("class", nested),)))
                else:
                    result = result.union(self._member(atom[1], name, shown, kind == "instance"))  # type: ignore[arg-type]
            elif kind == "module":
                result = result.union(self._module_attribute(atom[1], name))  # type: ignore[arg-type]
            elif kind == "elements":
                if name in _ELEMENT_GETTERS:
                    result = result.union(Value((("getter", atom[1], atom[2], name),)))
                elif name in _CONTAINER_VIEWS:
                    result = result.union(Value((("view", atom[1], atom[2], name),)))
                elif atom[2]:
                    # A method of the container's own type: `list().append`, `dict().items`.
                    result = result.union(Value((("library", f"{atom[2]}().{name}"),)))
                else:
                    result = result.union(Value((), f"`{shown}.{name}` is a container's method"))
            else:
                result = result.union(Value((), f"`{shown}` has no attribute `{name}` mmlint can follow"))
        return result

    def _member(self, key: ClassKey, name: str, shown: str, instance: bool = True) -> Value:
        """``name`` on an instance of ``key`` (or the class): its methods
        along the MRO, for it and each scanned subclass that may be the
        instance; else the attribute's assigned values."""
        resolver = self.resolver
        classes = resolver.dispatch_classes(key, None)
        atoms: list[Atom] = []
        for candidate in classes:
            async_key = resolver.lookup_method(candidate, name)
            if async_key is not None:
                atoms.append(("def", async_key[0], True, async_key[1]))
                continue
            sync_key = resolver.lookup_sync_method(candidate, name)
            if sync_key is not None:
                atoms.append(("def", sync_key[0], False, sync_key[1]))
        if atoms:
            return Value(tuple(dict.fromkeys(atoms)))
        value = NOTHING
        seen = False
        for candidate in classes:
            for entry in resolver.mro(candidate):
                if not isinstance(entry, tuple):
                    continue
                assigned = self._facts(entry[0]).get(("attribute", entry[1], name))
                if assigned:
                    seen = True
                    value = value.union(self._from_facts(assigned, entry[0], entry[1], candidate))
                    break
        if seen:
            return value
        inherited = NOTHING
        for candidate in classes:
            inherited = inherited.union(self.inherited(candidate, name, instance))
        if inherited.atoms:
            return inherited
        return Value((), f"`{shown}.{name}` is never assigned in the scanned classes")

    def inherited(self, key: ClassKey, name: str, instance: bool) -> Value:
        """``name``, defined by no scanned class of ``key``'s MRO, on the first
        base outside the scan that defines anything (not ``object``, ``ABC``,
        ``Generic``, ``Protocol``): a library member, named by that base's
        provenance as the module naming it imports it (``pydantic.BaseModel().model_dump``)."""
        resolver = self.resolver
        for entry in resolver.mro(key):
            if isinstance(entry, tuple):
                continue
            text = getattr(entry, "text", "")
            if not text or text == "<expr>" or text in INERT_BASES:
                continue
            for owner in resolver.mro(key):
                if not isinstance(owner, tuple) or text not in resolver.classes[owner][1].bases:
                    continue
                base = self.of(Place(owner[0], None, ""), text)
                atoms = tuple(
                    ("library", f"{atom[1]}().{name}" if instance else f"{atom[1]}.{name}")
                    for atom in base.atoms
                    if atom[0] == "library" and atom[1] != UNKNOWN_ORIGIN
                )
                return Value(atoms)
            return NOTHING
        return NOTHING

    def _call(self, value: Value, shown: str) -> Value:
        result = Value((), value.why)
        for atom in value.atoms:
            kind = atom[0]
            if kind == "class":
                result = result.union(Value((("instance", atom[1]),)))
            elif kind == "library" and atom[1] in _PASSING_BUILTINS:
                result = result.union(Value((), f"`{shown}(...)` returns an object it is given"))
            elif kind == "library":
                result = result.union(Value((("library", f"{atom[1]}()"),)))
            elif kind == "def":
                result = result.union(self.returns(atom[1], atom[2], atom[3], shown))  # type: ignore[arg-type]
            elif kind == "function":
                result = result.union(self._returned(atom[1], atom[2], None, shown))  # type: ignore[arg-type]
            elif kind == "getter":
                result = result.union(
                    Value(atom[1]) if atom[1] else Value((), f"`{shown}(...)` is an element of no known type")  # type: ignore[arg-type]
                )
            elif kind == "view":
                result = result.union(Value((("elements", atom[1], atom[2]),)))
            else:
                result = result.union(Value((), f"`{shown}(...)` is not a call mmlint can follow"))
        return result

    def returns(self, path: str, is_async: bool, index: int, shown: str) -> Value:
        facts = self.files[path]
        info = facts.async_defs[index] if is_async else facts.sync_defs[index]
        return self._returned(path, info.qualname, info.class_name, shown)

    def _returned(self, path: str, qualname: str, class_name: str | None, shown: str) -> Value:
        returned = self._facts(path).get(("return", qualname, ""))
        if not returned:
            return Value((), f"`{shown}` has no return annotation and returns no constructed value")
        return self._from_facts(returned, path, class_name)

    def _item(self, value: Value, shown: str, key: str = "") -> Value:
        """An element of ``value`` (under ``key``, a constant's repr, when
        not ""): a container's stored under that key or under none known,
        what a scanned class's ``__iter__`` gives (a for loop's target)."""
        result = Value((), value.why)
        for atom in value.atoms:
            if atom[0] == "elements" and key and len(atom) > 3 and atom[3] != key:
                continue  # stored under another key
            if atom[0] == "elements" and atom[1]:
                result = result.union(Value(atom[1]))  # type: ignore[arg-type]
            elif atom[0] == "elements":
                result = result.union(Value((), f"`{shown}[...]` is an element of no known type"))
            elif atom[0] == "library" and atom[1] in _GENERIC_CLASSES:
                result = result.union(Value((atom,)))  # `asyncio.Queue[int]`: the class, parameterised
            elif atom[0] == "instance" and self.resolver.defining_class(atom[1], "__iter__") is not None:  # type: ignore[arg-type]
                result = result.union(self._next(Value((atom,)), shown))
            else:
                result = result.union(Value((), f"`{shown}[...]` is not a container mmlint knows"))
        return result

    def _next(self, value: Value, shown: str) -> Value:
        """What iterating ``value`` gives: its ``__iter__()``'s ``__next__()``
        (a generator's: what it yields)."""
        iterator = self._call(self._attribute(value, "__iter__", shown), f"{shown}.__iter__")
        result = Value((), iterator.why)
        for atom in iterator.atoms:
            if atom[0] == "elements":
                result = result.union(Value(atom[1]))  # type: ignore[arg-type]
            elif atom[0] == "instance":
                result = result.union(self._call(self._attribute(Value((atom,)), "__next__", shown), shown))
        return result


def ref_path(ref: CalleeRef) -> str | None:
    """The path of a callee reference, for typing (None for super())."""
    if ref.kind == SELF:
        return f"self.{ref.text}"
    if ref.kind == CLS:
        return f"cls.{ref.text}"
    if ref.kind == SUPER or ref.text == "<expr>":
        return None
    return ref.text
