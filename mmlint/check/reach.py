"""The files the call graph reaches: facts for the modules that the analysed
files' calls lead into, though the prefilter rejected them.

The prefilter (mmlint.check.prefilter) passes only files that could *hold* a
finding; a sync helper in a plain module (no `async def`) can still *lead*
to one, as the blocking call two modules away from the async def that runs
it (MM005). So, after the analysed files' facts exist: the callees of their
functions (and the bases of their classes, which `self.` calls go through,
and the awaited callees, which re-exports lead on), resolved through their
imports, name modules (a name that no import binds by name may come from
any `from m import *` of the file, so each such m is asked for it); those
that are files of the scan the prefilter rejected get facts of the light
tier (mmlint.facts.light, stdlib `ast`); their own callees are followed in
turn, round by round, until nothing new is reached. Only files of the scan
(targets and context, as discovered, so `exclude` holds) can be reached:
never an installed package.

The cost grows with what is reached, not with the tree: a file is read and
parsed only when a call names it, and its facts are cached by content hash
in the facts cache under a key of their own (a light entry is never taken
for a full one, nor the reverse), its sync defs group by group (a function,
a class member: mmlint.facts.light_groups), so a run decodes only the groups
it asks for. The project sees those, and the methods of the file's classes
that may derive from a scanned class (dynamic dispatch may run them); no
chain can enter the others."""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from mmlint.check.cache import OutcomeCache, group_sync_defs, light_entry
from mmlint.core.diagnostics import Owner
from mmlint.facts.model import (
    CLASS,
    CLS,
    DOTTED,
    NAME,
    SELF,
    STAR,
    SUPER,
    UNKNOWN,
    CalleeRef,
    FileFacts,
    ImportFact,
    SyncDef,
)
from mmlint.facts.light_groups import LightEntry, grouped
from mmlint.facts.module_paths import ModulePaths, module_name_for
from mmlint.facts.ray_entry import replica_loop_methods

__all__ = ["LIGHT_TIER", "Candidate", "reach"]

# The options part of a light entry's facts-cache key (a full entry's is its
# twins and budgets); 2: entries of sync defs by group (mmlint.facts.light_groups).
LIGHT_TIER = ("light facts", 2)


class Candidate(NamedTuple):
    """A file of the scan that the prefilter rejected: where it is, the
    sha256 of the bytes the run read, those bytes when they did not come
    from the disk (an editor's buffer), and whether a directory walk found
    it (a walk passes no symbolic link, so its name is its module's). A
    tuple: a run makes one for each of thousands of files."""

    real: Path
    digest: bytes
    data: bytes | None = None
    walked: bool = False


def reach(
    analysed: Mapping[str, FileFacts],
    candidates: Mapping[str, Candidate],
    cache: OutcomeCache | None,
) -> dict[str, FileFacts]:
    """Light-tier facts, by display path, of every candidate that the async
    defs of ``analysed`` lead to, however many modules deep. What leads on
    from a file is what a reference into it names: the function (its
    calls), the class (its methods' calls and its bases) or the import (a
    re-export) of that name, and from there what they name in turn; the
    analysed files are followed the same way, without being read again.

    A reached file's facts hold the sync defs of what was asked of it, and
    the methods of its classes that may derive from a scanned class (which a
    `self.` call in the base may run); its other defs no chain can enter.
    Chains start at the async defs, and at the sync methods of a Ray Serve
    deployment that run on its replica's loop (mmlint.facts.ray_entry)."""
    walk = _Reach(analysed, candidates, cache)
    walk.follow([(shown, _member(owner)) for shown, facts in analysed.items() for owner in _roots(facts)])
    walk.complete_light_files()
    if cache is not None:
        cache.finish()
    return walk.reached()


class _Reach:
    """One reach's state, and its stages: follow the steps (reading the files
    they lead into a round at a time), complete what the light files give,
    and assemble their facts."""

    def __init__(
        self, analysed: Mapping[str, FileFacts], candidates: Mapping[str, Candidate], cache: OutcomeCache | None
    ) -> None:
        self.candidates = candidates
        self.cache = cache
        self.index = _ModuleIndex(analysed, candidates)
        self.known: dict[str, FileFacts] = dict(analysed)
        self.light: dict[str, _LightFile] = {}
        self.views: dict[str, _FileView] = {}
        self.unparsable: set[str] = set()
        self.seen: set[tuple[str, str]] = set()
        self.asked: dict[str, set[str]] = {}  # light-tier file -> the groups its steps asked of it

    def follow(self, pending: list[tuple[str, str]]) -> None:
        """Follow every step (a name asked of a file) until nothing new is reached."""
        # Names asked of files not read yet: read together when nothing else is
        # left to follow, a round at a time (in worker processes when many).
        waiting: dict[str, list[str]] = {}
        while pending or waiting:
            if not pending:
                pending += _read_waiting(waiting, self.candidates, self.cache, self.known, self.light, self.unparsable)
                waiting = {}
                continue
            shown, name = pending.pop()
            if (shown, name) in self.seen or shown in self.unparsable:
                continue
            facts = self.known.get(shown)
            if facts is None:
                waiting.setdefault(shown, []).append(name)
                continue
            pending += self._step(shown, name, facts)

    def _step(self, shown: str, name: str, facts: FileFacts) -> list[tuple[str, str]]:
        """What asking ``name`` of the file ``shown`` leads to."""
        view = self.views.get(shown)
        if view is None:
            view = self.views[shown] = _FileView(facts, self.light.get(shown))
        local, texts, wanted = _followed(view, name)
        self.seen.add((shown, name))
        if shown in self.light:
            self.asked.setdefault(shown, set()).add(".".join(wanted))
        return [*((shown, other) for other in local), *self.index.matching(_named_modules(view, texts))]

    def complete_light_files(self) -> None:
        """Each light file's defs: the groups asked of it, and the methods
        dynamic dispatch may run."""
        for shown, file in self.light.items():
            for group in self.asked.get(shown, ()):
                file.defs_of(group)
            view = self.views.get(shown) or _FileView(file.header, file)
            for group in _dispatch_groups(view, self.index):
                file.defs_of(group)

    def reached(self) -> dict[str, FileFacts]:
        """The files' order; a file whose stored groups did not decode and that
        no longer reads as the run hashed it is left out."""
        light = self.light
        return {
            shown: light[shown].assembled() for shown in self.candidates if shown in light and not light[shown].broken
        }


def _read_waiting(
    waiting: dict[str, list[str]],
    candidates: Mapping[str, Candidate],
    cache: OutcomeCache | None,
    known: dict[str, FileFacts],
    light: dict[str, _LightFile],
    unparsable: set[str],
) -> list[tuple[str, str]]:
    """Read the light-tier facts of the ``waiting`` files; the names asked of
    those that parse, to follow now."""
    pending: list[tuple[str, str]] = []
    for shown, file in _light_files_of(list(waiting), candidates, cache).items():
        if file is None:
            unparsable.add(shown)
            continue
        known[shown] = file.header
        light[shown] = file
        pending += ((shown, name) for name in waiting[shown])
    return pending


def _light_files_of(
    wanted: list[str], candidates: Mapping[str, Candidate], cache: OutcomeCache | None
) -> dict[str, _LightFile | None]:
    """Light-tier facts of each wanted file (None: it does not parse, or changed
    since the run read it): from the facts cache, else parsed, in worker
    processes when there are many (mmlint.check.workers)."""
    found: dict[str, _LightFile | None] = {}
    keys = {}
    if cache is not None:
        keys = {
            shown: cache.key(candidates[shown].digest, candidates[shown].real, shown, LIGHT_TIER) for shown in wanted
        }
    tasks: list[tuple[bytes | None, Path, str, bytes]] = []
    for shown in wanted:
        stored = cache.load_light(keys[shown]) if cache is not None else None
        candidate = candidates[shown]
        task = (candidate.data, candidate.real, shown, candidate.digest)
        if stored is None:
            tasks.append(task)
        elif stored.facts is None:
            found[shown] = None
        else:
            found[shown] = _LightFile.stored(stored, functools.partial(light_tier_facts, *task))
    from mmlint.check.workers import run_all

    for index, (lasting, facts) in run_all(light_tier_facts, tasks, _nothing, crashed=_no_light_facts):
        shown = tasks[index][2]
        found[shown] = None if facts is None else _LightFile.parsed(facts)
        if cache is not None and lasting:
            cache.store_light(keys[shown], light_entry(facts))
    return found


class _LightFile:
    """A reached file's light-tier facts: the header (all but the sync defs)
    and the sync defs by group (mmlint.facts.light_groups), a stored group
    decoded when first asked. ``assembled()``: the facts with the asked
    groups' defs, in source order."""

    def __init__(self, header: FileFacts, reread: Callable[[], tuple[bool, FileFacts | None]] | None) -> None:
        self.header = header
        self.broken = False  # stored groups that did not decode, and the file no longer reads as the run hashed it
        self._reread = reread
        self._stored: dict[str, tuple[tuple[int, ...], bytes]] = {}  # group -> (positions, encoded defs)
        self._decoded: dict[str, list[tuple[int, SyncDef]]] = {}
        self._asked: set[str] = set()

    @classmethod
    def stored(cls, entry: LightEntry, reread: Callable[[], tuple[bool, FileFacts | None]]) -> _LightFile:
        assert entry.facts is not None
        file = cls(entry.facts, reread)
        file._stored = dict(zip(entry.groups, zip(entry.positions, entry.bodies)))
        return file

    @classmethod
    def parsed(cls, facts: FileFacts) -> _LightFile:
        file = cls(replace(facts, sync_defs=()), None)
        file._take(facts)
        return file

    def _take(self, facts: FileFacts) -> None:
        self._stored = {}
        self._decoded = {
            group: [(i, facts.sync_defs[i]) for i in indices] for group, indices in grouped(facts.sync_defs).items()
        }

    def defs_of(self, group: str) -> tuple[SyncDef, ...]:
        """The sync defs of ``group`` (none if the file has no such group)."""
        self._asked.add(group)
        found = self._decoded.get(group)
        if found is None:
            stored = self._stored.pop(group, None)
            if stored is None:
                return ()
            positions, body = stored
            try:
                defs = group_sync_defs(body)
                if len(defs) != len(positions):
                    raise ValueError("a group of another length than its positions")
            except Exception:  # an entry of our own that does not decode: read the file again
                self._read_again()
                return self.defs_of(group)
            found = self._decoded[group] = list(zip(positions, defs))
        return tuple(info for _, info in found)

    def _read_again(self) -> None:
        facts = self._reread()[1] if self._reread is not None else None
        if facts is None:
            self.broken = True
            self._stored, self._decoded = {}, {}
        else:
            self._take(facts)

    def assembled(self) -> FileFacts:
        chosen = sorted(
            (item for group in self._asked for item in self._decoded.get(group, ())), key=lambda item: item[0]
        )
        return replace(self.header, sync_defs=tuple(info for _, info in chosen))


def light_tier_facts(data: bytes | None, real: Path, shown: str, digest: bytes) -> tuple[bool, FileFacts | None]:
    """(whether the answer lasts, the light-tier facts of one file): None when
    it does not parse, or (not lasting, not cached) when its bytes are no
    longer the ones the run hashed. Read from ``real`` unless the bytes are
    given. A task of mmlint.check.workers.run_all."""
    if data is None:
        try:
            data = real.read_bytes()
        except OSError:
            return False, None
        if hashlib.sha256(data).digest() != digest:  # changed since the run read it
            return False, None
    from mmlint.facts.light import light_facts

    return True, light_facts(data, real, shown)


def _nothing() -> None:
    pass


def _no_light_facts(task: tuple[bytes | None, Path, str, bytes], death: object) -> tuple[bool, FileFacts | None]:
    return False, None  # a worker died on it: as a file that does not parse, but it may not happen again


# -- which modules a file's code names ---------------------------------------------------------

# A module a reference names, and the name it asks of that module: (relative,
# parts, name), where parts are absolute dotted parts, or (relative) the
# absolute path parts of the package the dots lead to followed by those after it.
_Named = tuple[bool, tuple[str, ...], str]


def _named_modules(view: _FileView, texts: Iterable[str]) -> set[_Named]:
    """For each reference text (a callee, a base class) of a file that goes
    through an import: every module each prefix of the resolved name may
    be, with the name that follows the prefix."""
    named: set[_Named] = set()
    for text in texts:
        head, _, rest = text.partition(".")
        binding = view.imports_by_local.get(head)
        if binding is None:  # bound, if anywhere, by a star import: the name asked of each such module
            asked = ".".join(text.split(".")[:2])
            named.update(
                (bool(fact.anchor), fact.anchor + _module_parts(fact.target), asked) for fact in view.star_imports
            )
            continue
        for fact in binding:
            parts = [*fact.target.split("."), *(rest.split(".") if rest else ())]
            if fact.anchor:
                named.update(
                    (True, fact.anchor + tuple(parts[:cut]), ".".join(parts[cut : cut + 2]))
                    for cut in range(len(parts))
                )
            else:
                named.update(
                    (False, tuple(parts[:cut]), ".".join(parts[cut : cut + 2])) for cut in range(1, len(parts))
                )
    return named


def _module_parts(target: str) -> tuple[str, ...]:
    """A star import's module as dotted parts (``()``: the package the dots lead to)."""
    return tuple(target.split(".")) if target else ()


class _FileView:
    """A file's facts indexed for the questions the reach asks of it again
    and again: its imports by local name, its top-level classes, and the
    references made by each function or method (nested defs included)."""

    def __init__(self, facts: FileFacts, light: _LightFile | None = None) -> None:
        self.facts = facts
        self._light = light  # a light-tier file: its sync defs come a group at a time, as asked
        self._asked: set[tuple[str, ...]] = set()
        self.imports_by_local: dict[str, list[ImportFact]] = {}
        self.star_imports: list[ImportFact] = []  # `from m import *`: m's public names, bound unseen
        for fact in facts.imports:
            if fact.local == STAR:
                self.star_imports.append(fact)
            else:
                self.imports_by_local.setdefault(fact.local, []).append(fact)
        self.top_classes = {info.name: info for info in facts.classes if "." not in info.name}
        self.defined = {*facts.functions, *self.top_classes}
        # (function,) and (class, member): the callees of the defs in it.
        self.callees: dict[tuple[str, ...], list[CalleeRef | None]] = {}
        for sync in facts.sync_defs:
            self._add(sync.owner, [call.callee for call in sync.calls])
        for info in facts.async_defs:
            refs: list[CalleeRef | None] = [call.callee for call in info.calls]
            refs += (awaited.callee for awaited in info.awaits)
            refs += (timeout.callee for timeout in info.timeouts)
            self._add(info.owner, refs)

    def attribute_sources(self, holder: str, name: str) -> list[str]:
        """The dotted names whose instance the class ``holder`` assigns to its
        attribute ``name`` (``self.name = Holder(...)``): ``["Holder"]``."""
        sources = self.__dict__.get("_attribute_sources")
        if sources is None:
            sources = self.__dict__["_attribute_sources"] = {}
            for fact in self.facts.values:
                source = fact.source
                if fact.kind == "attribute" and not fact.element and source.endswith("()") and source.count("(") == 1:
                    sources.setdefault((fact.holder, fact.name), []).append(source[:-2])
        found: list[str] = sources.get((holder, name), [])
        return found

    def callees_of(self, wanted: tuple[str, ...]) -> list[CalleeRef | None]:
        """The callees of the defs in ``(function,)`` or ``(class, member)``."""
        if self._light is not None and wanted not in self._asked:
            self._asked.add(wanted)
            for sync in self._light.defs_of(".".join(wanted)):
                self._add(sync.owner, [call.callee for call in sync.calls])
        return self.callees.get(wanted, [])

    def _add(self, owner: tuple[Owner, ...], refs: list[CalleeRef | None]) -> None:
        # What _followed asks: a function (its nested defs with it) by its
        # name, a class one member at a time, never all of it.
        if owner[0].kind != CLASS:
            self._extend((owner[0].name,), refs)
        elif len(owner) > 1:
            self._extend((owner[0].name, owner[1].name), refs)

    def _extend(self, key: tuple[str, ...], refs: list[CalleeRef | None]) -> None:
        found = self.callees.get(key)
        if found is None:
            self.callees[key] = list(refs)
        else:
            found.extend(refs)


def _roots(facts: FileFacts) -> Iterator[tuple[Owner, ...]]:
    """Where a chain of an analysed file starts: its async defs, and the sync
    methods of its Ray Serve deployments that run on the replica's loop."""
    yield from (info.owner for info in facts.async_defs)
    yield from (facts.sync_defs[index].owner for index in replica_loop_methods(facts))


def _member(owner: tuple[Owner, ...]) -> str:
    """The name a def is reached by: ``function``, or ``Class.method`` for a method."""
    if len(owner) > 1 and owner[0].kind == CLASS:
        return f"{owner[0].name}.{owner[1].name}"
    return owner[0].name


def _followed(view: _FileView, name: str) -> tuple[set[str], list[str], tuple[str, ...]]:
    """What the module-level ``name`` (``function``, ``Class``, ``Class.attr``)
    of a file leads to: names of the same file, and reference texts that go
    through its imports, and the def it asked of the file (its group). A class leads on through the method asked of it
    (``__init__`` when it is called), or, when it does not define that
    method, through its bases; a method's `self.` calls ask the same class."""
    facts = view.facts
    head, _, attr = name.partition(".")
    defined = view.defined
    local: set[str] = set()
    texts: list[str] = []

    def refer(text: str) -> None:
        first = text.split(".", 1)[0]
        if first in defined:
            local.add(".".join(text.split(".")[:2]))
        else:
            texts.append(text)

    refs: list[CalleeRef | None] = []
    klass = view.top_classes.get(head)
    if klass is not None:
        method = attr or "__init__"
        if method not in klass.methods:
            for base in klass.bases:
                if base:
                    refer(f"{base}.{method}")
        wanted: tuple[str, ...] = (head, method)
    else:
        wanted = (head,)
    for ref in view.callees_of(wanted):
        if ref is None:
            continue
        if klass is not None and ref.kind in (SELF, CLS):
            local.add(f"{head}.{ref.text}")
        elif klass is not None and ref.kind == SUPER:
            for base in klass.bases:
                if base:
                    refer(f"{base}.{ref.text}")
        else:
            refs.append(ref)
    for text in _referred(view, head if klass is not None else None, refs):
        refer(text)
    if klass is None and head not in facts.functions and (head in view.imports_by_local or view.star_imports):
        texts.append(name)  # a re-export, by name or through a star import
    local.discard(name)
    return local, texts, wanted


def _referred(view: _FileView, klass: str | None, refs: list[CalleeRef | None]) -> list[str]:
    """The texts the references lead on by: module-level names, and in a
    method of ``klass`` the classes of typed ``self.`` attributes."""
    found = list(_module_level(refs))
    if klass is not None:
        found += (
            text
            for ref in refs
            if ref is not None and ref.kind == UNKNOWN
            for text in _through_attribute(view, klass, ref.text)
        )
    return found


def _through_attribute(view: _FileView, klass: str, text: str) -> list[str]:
    """``self.holder.method`` in a method of ``klass``: the classes the
    attribute is assigned instances of (``self.holder = Holder(...)``), their
    method and their ``__init__`` (where a twin may be assigned), as the
    provenance layer (mmlint.analysis.values) types the receiver."""
    parts = text.split(".")
    if len(parts) != 3 or parts[0] != "self":
        return []
    return [name for source in view.attribute_sources(klass, parts[1]) for name in (f"{source}.{parts[2]}", source)]


def _dispatch_groups(view: _FileView, index: _ModuleIndex) -> list[str]:
    """The groups (mmlint.facts.light_groups) of the methods of each class of
    a reached file that may derive from a scanned class: a `self.` call in
    the scanned base may run their overrides (dynamic dispatch,
    mmlint.analysis.resolve.Resolver.dispatch_classes), which no name leads to.
    A base may be a scanned class unless it is none of the file's classes and
    no module of the scan can bind it (a builtin, an installed package's)."""
    classes = {info.name: info for info in view.facts.classes}
    by_last: dict[str, list[str]] = {}  # a class nested in another, by its own name (a base written in that body)
    for qualname in classes:
        by_last.setdefault(qualname.rpartition(".")[2], []).append(qualname)
    verdicts: dict[str, bool] = {}

    def may_derive(qualname: str) -> bool:
        if qualname not in verdicts:
            verdicts[qualname] = False  # a cycle of bases reaches nothing more
            verdicts[qualname] = any(scanned(base) for base in classes[qualname].bases)
        return verdicts[qualname]

    def scanned(base: str) -> bool:
        if not base:
            return True  # not a dotted name (`Generic[T]`, `make_base()`): it may be anything
        if base in classes or ("." not in base and base in by_last):
            return any(may_derive(qualname) for qualname in ([base] if base in classes else by_last[base]))
        if base.partition(".")[0] in classes:
            return True  # an attribute of a class of the file: an alias it holds
        return next(index.matching(_named_modules(view, [base])), None) is not None

    groups: list[str] = []
    for qualname, info in classes.items():
        if may_derive(qualname):
            parts = qualname.split(".")
            groups += [f"{qualname}.{method}" for method in info.methods] if len(parts) == 1 else [".".join(parts[:2])]
    return groups


def _module_level(refs: Iterable[CalleeRef | None]) -> Iterator[str]:
    """The texts of references to module-level names (bare or dotted)."""
    return (ref.text for ref in refs if ref is not None and ref.kind in (NAME, DOTTED))


class _ModuleIndex:
    """The scan's modules (analysed and candidates) by their module path, for
    the names code refers to: an absolute name matches a file whose path
    ends with its parts (as mmlint.analysis.resolve.Resolver.module_named
    finds modules whose parents lie outside the scan; a one-part name only a
    top-level module); a relative one matches the path exactly. Candidates
    are indexed by the last part of their module path, and their whole path
    is resolved only when a name's last part picks them: a scan has
    thousands, a run asks of a few hundred."""

    def __init__(self, analysed: Mapping[str, FileFacts], candidates: Mapping[str, Candidate]) -> None:
        self._paths = ModulePaths()
        self._parts: dict[str, tuple[str, ...]] = {shown: facts.module_path for shown, facts in analysed.items()}
        self._without_parts = [shown for shown, parts in self._parts.items() if not parts]
        self._names = {shown: facts.module for shown, facts in analysed.items()}
        self._real = {shown: candidate.real for shown, candidate in candidates.items()}
        self.by_last: dict[str, list[str]] = {}
        by_last = self.by_last
        for shown, parts in self._parts.items():
            if parts:
                by_last.setdefault(parts[-1], []).append(shown)
        lasts = self._paths.last_parts(
            [(os.fspath(candidate.real), not candidate.walked) for candidate in candidates.values()]
        )
        for shown, last in zip(candidates, lasts):
            if last is not None:
                by_last.setdefault(last, []).append(shown)

    def _parts_of(self, shown: str) -> tuple[str, ...]:
        parts = self._parts.get(shown)
        if parts is None:
            parts = self._parts[shown] = self._paths.parts(os.fspath(self._real[shown]))
        return parts

    def _module_name(self, shown: str) -> str:
        if shown not in self._names:
            self._names[shown] = module_name_for(self._real[shown])[0]
        return self._names[shown]

    def matching(self, named: Iterable[_Named]) -> Iterator[tuple[str, str]]:
        """(display path, name asked of it) for each module a name denotes."""
        for relative, parts, name in named:
            if not parts:
                yield from ((shown, name) for shown in (self._without_parts if relative else ()))
                continue
            for shown in self.by_last.get(parts[-1], ()):
                path = self._parts_of(shown)
                if relative:
                    if path == parts:
                        yield shown, name
                elif path[-len(parts) :] == parts and (len(parts) > 1 or self._module_name(shown) == parts[0]):
                    yield shown, name
