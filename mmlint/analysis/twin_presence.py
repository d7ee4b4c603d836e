"""Whether a twin name exists where a call is made: the evidence behind MM001's
fix and MM013.

A configured pair says *which* names are twins, not that the package has both:
sglang 0.5.14 defines `process_and_combine_mm_data` and no async twin, so a
rewrite there calls a method that does not exist. A call on ``self``,
``cls`` or ``super()`` is judged on the enclosing class's MRO (C3, over the
scanned classes) and on every scanned subclass the method may run on; a base
outside the scan leaves the MRO incomplete, and then, like any other
receiver, the call is judged on the scanned code as a whole. Only a scan that
defines neither twin leaves the configured pair to be taken at its word.
"""

from __future__ import annotations

from dataclasses import dataclass

from mmlint.analysis.resolve import ClassKey, External, Resolver
from mmlint.analysis.symbols import INERT_BASES  # the MRO stays complete past them
from mmlint.core.diagnostics import Owner
from mmlint.facts import model
from mmlint.facts.model import FileFacts

_CLASS_RECEIVERS = {"self": False, "cls": False, "super()": True}  # receiver -> look after the class itself

DEFINED = "defined"  # the name resolves on the receiver (or, for an untyped receiver, the scan defines it)
MISSING = "missing"  # the scan defines the companion twin where the call resolves, and not this name
UNSEEN = "unseen"  # the scan defines neither twin: the configured pair is all there is to go by


@dataclass(frozen=True, slots=True)
class Presence:
    state: str  # DEFINED, MISSING or UNSEEN
    # For MISSING: the class whose scanned hierarchy has the companion and not
    # the name ("ClipProcessor"), or "" when the scanned code as a whole lacks it.
    where: str = ""


class TwinPresence:
    """Answers "does ``name`` exist where this call is made?" for one scan.

    ``companion`` is the other member of the pair: a hierarchy (or a scan)
    that defines neither says nothing about the pair, one that defines the
    companion and not ``name`` says the name is missing.
    """

    def __init__(self, files: dict[str, FileFacts], resolver: Resolver) -> None:
        self._files = files
        self._resolver = resolver
        self._anywhere: frozenset[str] | None = None

    @property
    def defined_anywhere(self) -> frozenset[str]:
        """Every name the scanned code defines as a method, class attribute,
        module-level function or assignment, or assigned twin."""
        if self._anywhere is None:
            names: set[str] = set()
            for facts in self._files.values():
                names.update(facts.functions, facts.assigned_names)
                names.update(async_ for _, async_, _ in facts.assigned_twins)
                for info in facts.classes:
                    names.update(info.methods, info.attributes)
            self._anywhere = frozenset(names)
        return self._anywhere

    def of_call(self, path: str, owner: tuple[Owner, ...], receiver: str, name: str, companion: str) -> Presence:
        """Whether ``name`` exists on ``receiver`` for a call at ``owner`` in ``path``."""
        enclosing = _enclosing_class(path, owner) if receiver in _CLASS_RECEIVERS else None
        if enclosing is not None and enclosing[0] in self._resolver.classes:
            key, method = enclosing
            # ``self`` may be an instance of any scanned subclass that does not
            # override the method: the name must exist on each of them.
            after = key if _CLASS_RECEIVERS[receiver] else None
            answers = [
                (self._on_hierarchy(cls, name, companion, after), cls)
                for cls in self._resolver.dispatch_classes(key, method)
            ]
            lacking = next((cls for found, cls in answers if found is False), None)
            if lacking is not None:
                return Presence(MISSING, lacking[1])
            if all(found for found, _ in answers):
                return Presence(DEFINED)
        if name in self.defined_anywhere:
            return Presence(DEFINED)
        if companion in self.defined_anywhere:
            return Presence(MISSING)
        return Presence(UNSEEN)

    def _on_hierarchy(self, key: ClassKey, name: str, companion: str, after: ClassKey | None) -> bool | None:
        """Along ``key``'s MRO (past ``after``, for super()): True when a class
        defines ``name``; False when none does, one defines ``companion`` and
        every class is scanned; None otherwise."""
        order = self._resolver.mro(key)
        if after is not None and after in order:
            order = order[order.index(after) + 1 :]
        complete, has_companion = True, False
        for entry in order:
            if isinstance(entry, External):
                complete = complete and entry.text in INERT_BASES
                continue
            info = self._resolver.classes[entry][1]
            if info.defines(name):
                return True
            has_companion = has_companion or info.defines(companion)
        return False if complete and has_companion else None


def _enclosing_class(path: str, owner: tuple[Owner, ...]) -> tuple[ClassKey, str] | None:
    """The class whose method (or a function nested in it) makes the call,
    with the method: ``self`` there is an instance of the class."""
    depth = next((i for i, part in enumerate(owner) if part.kind != model.CLASS), len(owner))
    if depth == 0 or depth == len(owner):
        return None
    return (path, ".".join(part.name for part in owner[:depth])), owner[depth].name
