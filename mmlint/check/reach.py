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
for a full one, nor the reverse)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from mmlint.check.cache import OutcomeCache
from mmlint.core.diagnostics import Owner
from mmlint.facts.model import (
    CLASS,
    CLS,
    DOTTED,
    NAME,
    SELF,
    STAR,
    SUPER,
    CalleeRef,
    FileFacts,
    ImportFact,
)
from mmlint.facts.module_paths import module_name_for, module_path_parts_of_many
from mmlint.facts.outcome import FileOutcome, Parsed, Unparsed
from mmlint.facts.suppressions import FileSuppressions

__all__ = ["LIGHT_TIER", "Candidate", "reach"]

# The options part of a light entry's facts-cache key (a full entry's is its twins and budgets).
LIGHT_TIER = ("light facts", 1)
_NO_FACTS = Unparsed("light tier: does not parse")


@dataclass(frozen=True)
class Candidate:
    """A file of the scan that the prefilter rejected: where it is, the
    sha256 of the bytes the run read, and those bytes when they did not come
    from the disk (an editor's buffer)."""

    real: Path
    digest: bytes
    data: bytes | None = None


def reach(
    analysed: Mapping[str, FileFacts], candidates: Mapping[str, Candidate], cache: OutcomeCache | None
) -> dict[str, FileFacts]:
    """Light-tier facts, by display path, of every candidate that the async
    defs of ``analysed`` lead to, however many modules deep. What leads on
    from a file is what a reference into it names: the function (its
    calls), the class (its methods' calls and its bases) or the import (a
    re-export) of that name, and from there what they name in turn; the
    analysed files are followed the same way, without being read again."""
    index = _ModuleIndex(analysed, candidates)
    known: dict[str, FileFacts] = dict(analysed)
    views: dict[str, _FileView] = {}
    reached: set[str] = set()
    unparsable: set[str] = set()
    seen: set[tuple[str, str]] = set()
    # Names asked of files not read yet: read together when nothing else is
    # left to follow, a round at a time (in worker processes when many).
    waiting: dict[str, list[str]] = {}
    pending = [(shown, _member(info.owner)) for shown, facts in analysed.items() for info in facts.async_defs]
    while pending or waiting:
        if not pending:
            for shown, facts in _light_facts_of(list(waiting), candidates, cache).items():
                if facts is None:
                    unparsable.add(shown)
                    continue
                known[shown] = facts
                reached.add(shown)
                pending += ((shown, name) for name in waiting[shown])
            waiting = {}
            continue
        shown, name = pending.pop()
        if (shown, name) in seen or shown in unparsable:
            continue
        facts = known.get(shown)
        if facts is None:
            waiting.setdefault(shown, []).append(name)
            continue
        seen.add((shown, name))
        view = views.get(shown)
        if view is None:
            view = views[shown] = _FileView(facts)
        local, texts = _followed(view, name)
        pending += ((shown, other) for other in local)
        pending += index.matching(_named_modules(view, texts))
    if cache is not None:
        cache.finish()
    return {shown: known[shown] for shown in candidates if shown in reached}  # the files' order


def _light_facts_of(
    wanted: list[str], candidates: Mapping[str, Candidate], cache: OutcomeCache | None
) -> dict[str, FileFacts | None]:
    """Light-tier facts of each wanted file (None: it does not parse, or changed
    since the run read it): from the facts cache, else parsed, in worker
    processes when there are many (mmlint.check.workers)."""
    found: dict[str, FileFacts | None] = {}
    keys = {}
    if cache is not None:
        keys = {shown: cache.key(candidates[shown].digest, candidates[shown].real, shown, LIGHT_TIER) for shown in wanted}
    tasks: list[tuple[bytes | None, Path, str, bytes]] = []
    for shown in wanted:
        stored = cache.load(keys[shown]) if cache is not None else None
        if isinstance(stored, Parsed):
            found[shown] = stored.facts
        elif isinstance(stored, Unparsed):
            found[shown] = None
        else:
            candidate = candidates[shown]
            tasks.append((candidate.data, candidate.real, shown, candidate.digest))
    from mmlint.check.workers import run_all

    for index, (lasting, facts) in run_all(light_tier_facts, tasks, _nothing, crashed=_no_light_facts):
        shown = tasks[index][2]
        found[shown] = facts
        if cache is not None and lasting:
            outcome: FileOutcome = _NO_FACTS if facts is None else Parsed(facts, FileSuppressions())
            cache.store(keys[shown], outcome)
    return found


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
            named.update((bool(fact.anchor), fact.anchor + _module_parts(fact.target), asked) for fact in view.star_imports)
            continue
        for fact in binding:
            parts = [*fact.target.split("."), *(rest.split(".") if rest else ())]
            if fact.anchor:
                named.update((True, fact.anchor + tuple(parts[:cut]), ".".join(parts[cut:cut + 2])) for cut in range(len(parts)))
            else:
                named.update((False, tuple(parts[:cut]), ".".join(parts[cut:cut + 2])) for cut in range(1, len(parts)))
    return named


def _module_parts(target: str) -> tuple[str, ...]:
    """A star import's module as dotted parts (``()``: the package the dots lead to)."""
    return tuple(target.split(".")) if target else ()


class _FileView:
    """A file's facts indexed for the questions the reach asks of it again
    and again: its imports by local name, its top-level classes, and the
    references made by each function or method (nested defs included)."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
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


def _member(owner: tuple[Owner, ...]) -> str:
    """The name a def is reached by: ``function``, or ``Class.method`` for a method."""
    if len(owner) > 1 and owner[0].kind == CLASS:
        return f"{owner[0].name}.{owner[1].name}"
    return owner[0].name


def _followed(view: _FileView, name: str) -> tuple[set[str], list[str]]:
    """What the module-level ``name`` (``function``, ``Class``, ``Class.attr``)
    of a file leads to: names of the same file, and reference texts that go
    through its imports. A class leads on through the method asked of it
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
    for ref in view.callees.get(wanted, ()):
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
    for text in _module_level(refs):
        refer(text)
    if klass is None and head not in facts.functions and (head in view.imports_by_local or view.star_imports):
        texts.append(name)  # a re-export, by name or through a star import
    local.discard(name)
    return local, texts


def _module_level(refs: Iterable[CalleeRef | None]) -> Iterator[str]:
    """The texts of references to module-level names (bare or dotted)."""
    return (ref.text for ref in refs if ref is not None and ref.kind in (NAME, DOTTED))


class _ModuleIndex:
    """The scan's modules (analysed and candidates) by their module path, for
    the names code refers to: an absolute name matches a file whose path
    ends with its parts (as mmlint.analysis.resolve.Resolver.module_named
    finds modules whose parents lie outside the scan; a one-part name only a
    top-level module); a relative one matches the path exactly."""

    def __init__(self, analysed: Mapping[str, FileFacts], candidates: Mapping[str, Candidate]) -> None:
        self._by_path: dict[tuple[str, ...], list[str]] = {}
        self._by_last: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        self._names = {shown: facts.module for shown, facts in analysed.items()}
        self._real = {shown: candidate.real for shown, candidate in candidates.items()}
        paths = [(shown, facts.module_path) for shown, facts in analysed.items()]
        paths += zip(candidates, module_path_parts_of_many(candidate.real for candidate in candidates.values()))
        for shown, parts in paths:
            self._by_path.setdefault(parts, []).append(shown)
            if parts:
                self._by_last.setdefault(parts[-1], []).append((parts, shown))

    def _module_name(self, shown: str) -> str:
        if shown not in self._names:
            self._names[shown] = module_name_for(self._real[shown])[0]
        return self._names[shown]

    def matching(self, named: Iterable[_Named]) -> Iterator[tuple[str, str]]:
        """(display path, name asked of it) for each module a name denotes."""
        for relative, parts, name in named:
            if relative:
                yield from ((shown, name) for shown in self._by_path.get(parts, ()))
                continue
            for path, shown in self._by_last.get(parts[-1], ()):
                if path[-len(parts):] == parts and (len(parts) > 1 or self._module_name(shown) == parts[0]):
                    yield shown, name
