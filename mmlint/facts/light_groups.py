"""A light-tier file's sync defs in groups, by the name the reach asks for
them (mmlint.check.reach): a module-level function with the defs nested in
it (``function``), or one member of a class (``Class.method``, ``Class.Inner``
for the methods of a class nested in it). A file the prefilter rejected is
read for a name or two, so the facts cache keeps each group on its own
(`LightEntry`) and a run decodes only the groups it asks for."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mmlint.core.diagnostics import Owner
from mmlint.facts.model import CLASS, FileFacts, SyncDef

__all__ = ["LightEntry", "group_of", "grouped"]


@dataclass(frozen=True, slots=True)
class LightEntry:
    """A light-tier file as the facts cache keeps it: its facts without their
    sync defs (None: the file does not parse), and those sync defs by group:
    each group's name, where its defs stand among the file's sync defs, and
    the defs themselves pickled (unpickled when the group is asked:
    mmlint.check.cache.group_sync_defs)."""

    facts: FileFacts | None
    groups: tuple[str, ...] = ()
    positions: tuple[tuple[int, ...], ...] = ()
    bodies: tuple[bytes, ...] = ()


def group_of(owner: tuple[Owner, ...]) -> str:
    """The group of a def, by its owner (the def itself last): a def in a
    class (at any depth) is in its top-level member's, any other in its
    top-level function's."""
    if owner[0].kind == CLASS and len(owner) > 1:
        return f"{owner[0].name}.{owner[1].name}"
    return owner[0].name


def grouped(sync_defs: Iterable[SyncDef]) -> dict[str, list[int]]:
    """Each group's defs, by their index among ``sync_defs``, in source order."""
    found: dict[str, list[int]] = {}
    for index, info in enumerate(sync_defs):
        found.setdefault(group_of(info.owner), []).append(index)
    return found
