"""One finding per cause across codes: the blocking calls MM005 reports, and
which of them is the very cause MM003 names for a coroutine that never
suspends.

When a coroutine never suspends and its costliest call is a call MM005
reports (in its own body, directly or through scanned sync helpers), the two
describe one cause. MM005 wins, at the call: that is the line the user edits
next (offload it, or use the async equivalent), and once it is offloaded the
coroutine suspends, so the MM003 disappears with it; a suppression that says
"this call cannot block here" belongs on that line too. The MM005 then
carries the coroutine's `async def` and every `await` of it (MM004's sites) as
related locations, and MM003's advice for the coroutine's context. MM003 is
reported as before when MM005 is not reported at that call (not selected,
ignored, exempt, suppressed), or when the cause is something else (a loop,
an awaited coroutine, a sync twin)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from mmlint.analysis.resolve import DefKey
from mmlint.analysis.weight import HEAVY, Weight, matching_pattern, shown_callee
from mmlint.core.diagnostics import Span
from mmlint.core.knowledge import UNKNOWN_ORIGIN, costs_here, is_type_pattern, reason_of, twin_patterns_of
from mmlint.facts.model import AsyncDef, CallFact, FileFacts
from mmlint.rules.base import RuleContext

OFFLOAD_ADVICE = (
    "offload it (`await asyncio.to_thread(...)`, `await loop.run_in_executor(...)`) or use an async equivalent"
)
MM005 = "MM005"
# An async generator streaming from sync work: each step must leave the loop.
STREAM_ADVICE = (
    "offload each step (`await asyncio.to_thread(next, it, None)` over a sync iterator), or iterate the sync "
    "source in a thread that feeds an `asyncio.Queue` and `await queue.get()` here"
)


@dataclass(frozen=True, slots=True)
class BlockingCall:
    """A call MM005 reports: a known blocking call made directly in an async
    def, or a call of a scanned sync function that reaches one."""

    key: DefKey  # the async def it is made in
    span: Span
    callee: str  # the call as written in the async def ("time.sleep", "self.load")
    message: str
    help: str
    reason: str
    chain: tuple[str, ...]


def blocking_calls(facts: FileFacts, ctx: RuleContext) -> list[BlockingCall]:
    """MM005's findings in one file, before any filter."""
    found: list[BlockingCall] = []
    patterns = tuple(ctx.settings.blocking_calls)
    resolver = ctx.project.resolver
    for index, info in enumerate(facts.async_defs):
        method = info.name if info.class_name is not None else None
        for call in info.calls:
            direct = blocking_reason(call, patterns)
            if direct is None and not (call.awaited or call.scheduled):
                # By what the callee is, not its name: `self._tok(text)` where `_tok` holds a tokenizer.
                typed = resolver.resolve_sync_call(facts, info.class_name, call.callee, method, info.qualname)
                direct = typed_blocking_reason(call, typed.library, patterns)
            if direct is not None:
                shown, why = direct
                found.append(
                    BlockingCall(
                        (facts.path, index),
                        call.span,
                        shown,
                        f"blocks the event loop: {why}",
                        f"`{shown}(...)` in `async def {info.qualname}`: {STREAM_ADVICE if info.is_generator else OFFLOAD_ADVICE}",
                        f"`{shown}(...)` {why}",
                        (f"`{shown}`",),
                    )
                )
    weights = ctx.project.weight(ctx.settings.heavy_calls)
    twin_patterns = twin_patterns_of(ctx.settings.twins)
    twin_calls = discovered_twin_calls(facts.path, ctx)
    for deep in weights.transitive_blocking(frozenset({facts.path})):
        if deep.chain.pattern in twin_patterns or deep.span in twin_calls:
            continue  # a sync twin called or reached: MM001's / MM010's finding, with its fix
        info = ctx.project.suspension.defs[deep.enclosing]
        why = reason_of(deep.chain.pattern)
        end = shown_callee(deep.chain.call)
        found.append(
            BlockingCall(
                deep.enclosing,
                deep.span,
                deep.callee,
                f"blocks the event loop: {why}",
                f"`{deep.callee}(...)` in `async def {info.qualname}`, through `{short_name(deep.chain.call)}`: "
                + (
                    STREAM_ADVICE
                    if info.is_generator
                    else f"offload the call (`await asyncio.to_thread({deep.callee}, ...)`) or use an async equivalent"
                ),
                f"`{end}(...)` {why}",
                tuple(step.describe() for step in deep.chain.steps) + (f"`{end}`",),
            )
        )
    for index, info in enumerate(facts.async_defs):
        if not info.is_generator or info.has_suspension_point:
            continue
        for call, cost in weights.heavy_steps((facts.path, index)):
            shown = call.callee.describe()
            found.append(
                BlockingCall(
                    (facts.path, index),
                    call.span,
                    shown,
                    "heavy sync work between two `yield`s",
                    f"`{shown}(...)` in `async def {info.qualname}`, which never awaits: {STREAM_ADVICE}",
                    cost.reason,
                    cost.chain,
                )
            )
    # Start-up, shutdown, lifecycle hooks and a program's main: not per
    # request, except what their loops over the input repeat.
    once = weights.once_only
    looped = {(index, call.span) for index, info in enumerate(facts.async_defs) for call in info.calls if call.in_loop}
    return [call for call in found if call.key not in once or (call.key[1], call.span) in looped]


def cause_of(key: DefKey, weight: Weight, ctx: RuleContext) -> BlockingCall | None:
    """The MM005 finding at the call a heavy never-suspending coroutine's
    weight names as its costliest (the same chain), if MM005 finds one there:
    the first such call in source order."""
    if weight.kind != HEAVY or not weight.chain:
        return None
    facts = ctx.project.files.get(key[0])
    if facts is None:
        return None
    return next((found for found in _calls_of(facts, ctx) if found.key == key and found.chain == weight.chain), None)


def is_reported(found: BlockingCall, info: AsyncDef, ctx: RuleContext) -> bool:
    """Whether MM005 reports this call: selected, in a checked file, and no
    exemption, per-file-ignore or comment drops it."""
    if not ctx.settings.is_selected(MM005) or found.key[0] not in ctx.project.targets:
        return False
    return ctx.filters is None or not ctx.filters.drops(found.key[0], found.span, MM005, info.owner)


def folded_into_mm005(key: DefKey, weight: Weight, ctx: RuleContext) -> bool:
    """Whether MM003's finding on this coroutine is MM005's at its cause."""
    found = cause_of(key, weight, ctx)
    return found is not None and is_reported(found, ctx.project.suspension.defs[key], ctx)


def _calls_of(facts: FileFacts, ctx: RuleContext) -> list[BlockingCall]:
    """blocking_calls, once per file per project and settings (MM003, MM004
    and MM005 ask), kept on the project as its other analyses are."""
    settings = ctx.settings
    memo: dict[tuple[object, ...], list[BlockingCall]] = ctx.project.__dict__.setdefault("_blocking_calls", {})
    memo_key = (
        settings.blocking_calls,
        settings.twins,
        settings.auto_twins,
        settings.twin_patterns,
        settings.twin_wrappers,
        facts.path,
    )
    found = memo.get(memo_key)
    if found is None:
        found = memo[memo_key] = blocking_calls(facts, ctx)
    return found


def discovered_twin_calls(path: str, ctx: RuleContext) -> frozenset[Span]:
    """Spans of the calls MM010 reports in ``path`` (the sync member of a discovered pair)."""
    if not ctx.settings.auto_twins:
        return frozenset()
    excluded = frozenset(name for pair in ctx.settings.twins for name in (pair.sync, pair.async_))
    analysis = ctx.project.twins(tuple(ctx.settings.twin_patterns), excluded, tuple(ctx.settings.twin_wrappers))
    deep = (call.call.span for call in analysis.deep_calls_in(path))
    return frozenset((*(call.call.span for call in analysis.calls_in(path)), *deep))


def short_name(dotted: str) -> str:
    """The last two parts of a resolved callee, for a message (the chain keeps it whole)."""
    return ".".join(shown_callee(dotted).split(".")[-2:])


def typed_blocking_reason(
    call: CallFact, library: tuple[str, ...], patterns: tuple[str, ...]
) -> tuple[str, str] | None:
    """As blocking_reason, by what the callee is (SyncCall.library) rather
    than its name: `self._tok_ref(text)` where `_tok_ref` holds a tokenizer."""
    found = [(typed, matching_pattern(typed, _type_patterns(patterns))) for typed in library]
    if any(pattern is None and not typed.startswith(UNKNOWN_ORIGIN) for typed, pattern in found):
        return None  # a union matches only when each of its known values does (a socket that may be zmq.asyncio's)
    pattern = next((pattern for _, pattern in found if pattern is not None), None)
    if pattern is None or not costs_here(pattern, call.bounded_input, call.arity):
        return None
    return shown_callee(call.dotted), reason_of(pattern)


@functools.lru_cache(maxsize=8)
def _type_patterns(patterns: tuple[str, ...]) -> tuple[str, ...]:
    # Once per configuration, not per call: a profile of vLLM's edited run
    # spent 0.6 of 4 s filtering the same few hundred patterns for each call.
    return tuple(pattern for pattern in patterns if is_type_pattern(pattern))


def blocking_reason(call: CallFact, patterns: tuple[str, ...]) -> tuple[str, str] | None:
    """(the callee as shown, what it does to the loop) when ``call`` blocks,
    else None. An awaited call, or one handed to a coroutine consumer, only
    creates a coroutine: never blocking."""
    if call.awaited or call.scheduled:
        return None
    if call.future_result:
        return shown_callee(call.dotted), "waits for a future"
    pattern = matching_pattern(call.dotted, patterns)
    if pattern is None or not costs_here(pattern, call.bounded_input, call.arity):
        return None
    return shown_callee(call.dotted), reason_of(pattern)
