"""Dropped coroutines (MM011): a call, made as a statement of its own, whose
callee resolves inside the scanned code to coroutine functions only. Calling
one only creates the coroutine; dropped at once, its body never runs.

Only complete resolutions count: every async def the call may run is a
scanned, plain coroutine function (not an async generator, whose call is
normal without `await`; not behind a decorator that may replace it), and
through ``self.`` / ``cls.`` no scanned subclass overrides the name with
anything else and no base outside the scan comes first. Anything else is
left alone."""

from __future__ import annotations

from dataclasses import dataclass

from mmlint.analysis.resolve import DefKey, Resolver
from mmlint.core.diagnostics import Owner, Span
from mmlint.facts.model import CLS, SELF, UNKNOWN, AsyncDef, CalleeRef, FileFacts


@dataclass(frozen=True, slots=True)
class DroppedCoroutine:
    path: str
    span: Span  # the call
    callee: str  # as written: "self.disconnect", "api.stop"
    targets: tuple[DefKey, ...]  # the async defs whose coroutine it creates
    owner: tuple[Owner, ...]  # the definitions enclosing the call, innermost last


def dropped_coroutines(files: dict[str, FileFacts], resolver: Resolver, path: str) -> list[DroppedCoroutine]:
    """The dropped coroutines of the functions of ``path``, in source order."""
    facts = files[path]
    found: list[DroppedCoroutine] = []
    callers: list[tuple[str, str | None, tuple[Owner, ...], list[tuple[Span, CalleeRef]]]] = [
        (info.qualname, info.class_name, info.owner, [(c.span, c.callee) for c in info.calls if c.discarded])
        for info in facts.async_defs
    ]
    callers += [
        (
            info.qualname,
            info.class_name,
            info.owner,
            [(c.span, c.callee) for c in info.calls if c.discarded and c.span is not None],
        )
        for info in facts.sync_defs
    ]
    for enclosing, class_name, owner, calls in callers:
        for span, ref in calls:
            targets = coroutine_targets(files, resolver, facts, enclosing, class_name, ref)
            if targets:
                found.append(DroppedCoroutine(path, span, ref.describe(), targets, owner))
    return sorted(found, key=lambda dropped: dropped.span)


def coroutine_targets(
    files: dict[str, FileFacts],
    resolver: Resolver,
    facts: FileFacts,
    enclosing: str,
    class_name: str | None,
    ref: CalleeRef,
) -> tuple[DefKey, ...]:
    """The scanned coroutine functions a call may run, seen from the function
    ``enclosing`` (a qualname) in ``facts``, when that is all it may run;
    else ``()``."""
    if ref.kind == UNKNOWN:
        return _local_coroutine(facts, enclosing, ref.text)
    if ref.kind in (SELF, CLS):
        if class_name is None or (facts.path, class_name) not in resolver.classes:
            return ()
        candidates = [
            resolver.lookup_method(key, ref.text)
            for key in resolver.dispatch_classes((facts.path, class_name), enclosing.rsplit(".", 1)[-1])
        ]
        if any(c is None or not _creates_coroutine(files, c) for c in candidates):
            return ()  # overridden by a sync def or an attribute, or out of sight
        return tuple(c for c in dict.fromkeys(candidates) if c is not None and not _interface_only(files, c))
    resolution = resolver.resolve_callee(facts, class_name, ref)
    if not resolution.fully_resolved:
        return ()
    return resolution.targets if all(_creates_coroutine(files, t) for t in resolution.targets) else ()


def _local_coroutine(facts: FileFacts, enclosing: str, name: str) -> tuple[DefKey, ...]:
    """An async def nested in ``enclosing`` and called there by its name,
    when that name is defined there once and by nothing else."""
    if not name.isidentifier():
        return ()
    wanted = f"{enclosing}.<locals>.{name}"
    found = [index for index, info in enumerate(facts.async_defs) if info.qualname == wanted]
    if len(found) != 1 or any(info.qualname == wanted for info in facts.sync_defs):
        return ()
    key = (facts.path, found[0])
    info = facts.async_defs[found[0]]
    return (key,) if _plain_coroutine_function(info) and not info.is_stub else ()


def _creates_coroutine(files: dict[str, FileFacts], key: DefKey) -> bool:
    return _plain_coroutine_function(files[key[0]].async_defs[key[1]])


def _plain_coroutine_function(info: AsyncDef) -> bool:
    """Calling it returns a coroutine: not an async generator, and no
    decorator that may turn it into something else."""
    return not info.is_generator and not info.opaque_decorators


def _interface_only(files: dict[str, FileFacts], key: DefKey) -> bool:
    """A stub, abstract method, overload or Protocol member: it stands for an
    implementation elsewhere (a call through self. reports the concrete ones)."""
    return files[key[0]].async_defs[key[1]].is_interface_only
