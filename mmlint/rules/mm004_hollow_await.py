"""MM004 hollow-await."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.analysis import ChainLink, HollowAwait
from mmlint.analysis.resolve import DefKey
from mmlint.analysis.weight import HEAVY, LIGHT, UNKNOWN_WEIGHT, WeightAnalysis
from mmlint.core.diagnostics import Diagnostic
from mmlint.facts.model import FileFacts
from mmlint.rules.base import Example, Rule, RuleContext
from mmlint.rules.causes import folded_into_mm005


class HollowAwaitRule(Rule):
    """## What it does
    Flags an `await` whose callee resolves, inside the scanned code, to an
    `async def` that never suspends: it has no `await`, `async for` or
    `async with` on any path, or only awaits other coroutines that never
    suspend. The callee is followed across modules (imports, relative imports,
    aliases) and class hierarchies (`self.`, `cls.`, `super().` along the MRO,
    overrides in subclasses included); the message names the whole chain, the
    notes (`chain` in JSON) say where each link is.
    A callee that cannot be resolved, or lives outside the scanned code, is
    assumed to suspend, so nothing is reported on a guess. A callee that
    suspends on some paths only is not reported.

    By default only awaits of a *heavy* coroutine are reported (see MM003);
    `[fake-async] report-light = true` reports awaits of light ones too. One
    finding per root cause: when MM003 reports the coroutine at the end of
    the chain, this await is listed there as a related location (SARIF
    `relatedLocations`, JSON `related`) instead of being reported here. MM004
    remains for a root MM003 does not report (outside the checked files, not
    selected, under `exempt.paths`, in an exempt class or function, its code
    ignored for that file, or a comment on its line suppressing MM003) and
    for a chain heavy only through the awaited callee itself.

    ## Why is this bad?
    The `await` looks like a point where the event loop may run other work,
    but it is not one: the awaited coroutine runs to completion in one go.
    A processor that awaits a video-decoding helper written as `async def`
    without any real suspension blocks the whole server for as long as the
    decoding takes, and every timeout or semaphore around it is powerless.
    MM003 flags the helper itself; this rule flags every place that relies on
    it, which is where the fix is usually decided.

    ## Fix
    Not automatic. Make the callee really yield (`await asyncio.to_thread(...)`,
    `await loop.run_in_executor(...)` around the blocking part), or offload the
    call here: `await asyncio.to_thread(sync_helper, ...)` with a plain `def`
    helper.

    ## When to suppress
    When the callee is known to be cheap and runs on the loop on purpose, such
    as a cached lookup behind an async interface; or when `self.method()` is
    overridden, with a real suspension point, by a subclass outside the scanned
    code (the analysis sees only the scanned classes). Say why in the comment.
    """

    code = "MM004"
    name = "hollow-await"
    summary = "`await` of a coroutine that never suspends, directly or through a chain"

    bad_examples = (
        Example(
            """
            from .video import load_video_frames

            class VideoProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    frames = await load_video_frames(request_obj.video)
                    return {"frames": frames}
            """,
            expect=("MM004",),
            files={
                "video.py": """
                    from decord import VideoReader

                    async def open_stream(path):
                        return {"path": path}

                    async def load_video_frames(path):
                        stream = await open_stream(path)
                        return VideoReader(stream["path"])
                """,
            },
        ),
    )
    good_examples = (
        Example(
            """
            from .video import load_video_frames

            class VideoProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    frames = await load_video_frames(request_obj.video)
                    return {"frames": frames}
            """,
            files={
                "video.py": """
                    import asyncio

                    async def load_video_frames(path):
                        return await asyncio.to_thread(decode_all_frames, path)
                """,
            },
        ),
    )

    def check_file(self, facts: FileFacts, ctx: RuleContext) -> Iterable[Diagnostic]:
        if facts.path not in ctx.project.targets:
            return
        analysis = ctx.project.suspension
        hollow_awaits = analysis.hollow_awaits(frozenset({facts.path}))
        if not hollow_awaits:
            return
        weights = ctx.project.weight(ctx.settings.heavy_calls)
        reported = (HEAVY, LIGHT, UNKNOWN_WEIGHT) if ctx.settings.report_light_async else (HEAVY,)
        by_line = {(key[0], info.line): key for key, info in analysis.defs.items()}
        for hollow in hollow_awaits:
            callee = by_line[(hollow.chain[0].path, hollow.chain[0].line)]
            weight = weights.weight(callee)
            if weight is None or weight.kind not in reported:
                continue
            if hollow.enclosing in weights.once_only:
                continue  # awaited once per process or actor (start-up, shutdown, lifecycle hooks)
            last = by_line[(hollow.chain[-1].path, hollow.chain[-1].line)]
            if not hollow.ends_in_cycle and root_is_reported(last, weights, ctx, reported):
                continue  # one finding per root cause: MM003 there lists this await
            owner = analysis.defs[hollow.enclosing].owner
            yield self.diagnostic(
                facts.path,
                hollow.span,
                message(hollow),
                help=advice(hollow),
                owner=owner,
                weight=weight.kind,
                reason=weight.reason,
                chain=tuple(f"`{link.name}` at {link.path}:{link.line}" for link in hollow.chain)
                + weight.chain[len(hollow.chain) :],
            )


def root_is_reported(root: DefKey, weights: WeightAnalysis, ctx: RuleContext, reported: tuple[str, ...]) -> bool:
    """Whether MM003 reports the coroutine at the end of a hollow chain (in
    the targets, selected, and weighed as reported there)."""
    info = ctx.project.suspension.defs[root]
    if not info.is_fake_async or root[0] not in ctx.project.targets:
        return False
    weight = weights.weight(root)
    if weight is None or weight.kind not in reported:
        return False
    if folded_into_mm005(root, weight, ctx):
        return True  # MM005 at the root's cause lists this await (mmlint.rules.causes)
    if not ctx.settings.is_selected("MM003"):
        return False
    if ctx.filters is not None and ctx.filters.drops(root[0], info.span, "MM003", info.owner):
        return False  # exempt, ignored or suppressed there: this await is the only report left
    return weight.kind == HEAVY or not weights.contexts.of(root, info)


def describe_chain(
    chain: tuple[ChainLink, ...], ends_in_cycle: bool, ends_without_suspension_point: bool, located: bool = True
) -> str:
    """ "`a` at x.py:3 → `b` at y.py:7 has no suspension point" and the like
    (without ``located``: "`a` → `b` has no suspension point")."""
    text = " → ".join(f"`{link.name}`" + (f" at {link.path}:{link.line}" if located else "") for link in chain)
    if ends_in_cycle:
        return f"{text}: a cycle with no suspension point"
    if ends_without_suspension_point:
        return f"{text} has no suspension point"
    return f"{text} never reaches a suspension point"


def message(hollow: HollowAwait) -> str:
    """The chain by name; where each link is, the notes (the diagnostic's chain) and the help say."""
    return "`await` of a coroutine that never suspends"


def advice(hollow: HollowAwait) -> str:
    """The awaited chain by name, then what to do."""
    last = hollow.chain[-1]
    chain = describe_chain(hollow.chain, hollow.ends_in_cycle, hollow.ends_without_suspension_point, located=False)
    return (
        f"`await {hollow.text}`: {chain}; make `{last.name}` ({last.path}:{last.line}) really yield (`await asyncio.to_thread(...)` around its "
        "blocking part), or offload the call here: `await asyncio.to_thread(sync_helper, ...)` with a plain `def` helper"
    )
