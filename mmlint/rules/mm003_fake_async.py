"""MM003 fake-async."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.analysis.contexts import advice
from mmlint.analysis.weight import HEAVY, LIGHT, UNKNOWN_WEIGHT, Weight
from mmlint.core.diagnostics import Diagnostic, RelatedLocation
from mmlint.facts.model import AsyncDef, FileFacts
from mmlint.rules.base import Example, Rule, RuleContext
from mmlint.rules.causes import folded_into_mm005


class FakeAsync(Rule):
    """## What it does
    Flags an `async def` whose own body has no suspension point: no `await`,
    no `async for`, no `async with` (comprehensions count; nested `def`,
    `lambda` and `class` bodies do not). Abstract methods, `@overload`s,
    `Protocol` members, stub bodies (docstring, `pass`, `...`,
    `raise NotImplementedError`) and async generators are not flagged (each
    `yield` hands control back; MM005 judges the steps between them).

    Each such `async def` is weighed by evidence. It is *heavy* when its
    body, a scanned sync function it calls (followed through the call graph),
    or a coroutine it awaits reaches a known blocking or CPU-heavy call (the
    built-in knowledge sets and `blocking-calls`: tokenizers, chat templates,
    image, video and audio decoding, sync HTTP, ZeroMQ receives, thread and
    process waits, file reads...), the sync member of a twin pair, a
    `.result()` on a submitted future, or a loop whose trip count grows with
    its input and repeats a call not known to be cheap: its iterable is
    built from a parameter or a local value (a request's body); a loop over a
    literal, a constant, a literal `range`, `self.` / `cls.` attributes (a
    handful of workers, configuration) or module-level names (a worker map
    built at start-up) does not count. A callee that
    cannot be resolved makes it *unknown*, never heavy on that alone. It is
    *light* when it only returns constants, builds responses, exceptions or
    other objects, works on containers and strings, reads attributes or calls
    getters with no argument. It is a *stub* when its body only satisfies an
    interface (`pass`, a docstring, `del` of its parameters, a constant
    `return`, `raise NotImplementedError`). By default only heavy ones are
    reported; `[fake-async] report-light = true` reports light and unknown
    ones too (stubs never). `mmlint audit --show-defs` shows the weight of
    every async def either way.

    One finding per root cause: when the coroutine is awaited from other
    places, the help counts them and each `await` is a related location
    (MM004 then stays silent there). The reason names the costliest call and
    the chain to it (`chain` in JSON and SARIF, a note in the text output).
    When that costliest call is one MM005 reports (a known blocking call in
    the body, or a call of a sync helper that reaches one), the two describe
    one cause and MM005 is the finding, at the call: that is the line the fix
    edits, and offloading it makes the coroutine suspend. The MM005 then
    carries this `async def` and its awaits as related locations, and the
    advice for its context (the last bad example). MM003 is reported as
    before when MM005 is not (not selected, ignored, suppressed at the call)
    and when the cost is a loop, a sync twin or an awaited coroutine.

    Some coroutines must stay coroutines: FastAPI / Starlette routes,
    exception handlers, middleware and dependencies, coroutines handed to
    `run_coroutine_threadsafe`, async protocol methods (`__aenter__`,
    `__aexit__`...), an actor's `async __init__`, overrides of an async base
    method, actor methods (a class deriving from `xoscar`'s
    `xo.StatelessActor` / `xo.Actor`), gRPC aio servicer methods (a class
    deriving from a generated `*_pb2_grpc.*Servicer`). A light one there is
    never reported; a heavy one is, with advice for its context (`context` in
    JSON and SARIF). The context comes from the decorator or the base class
    that makes it so, or a hand-off of the function itself, never from a
    name that matches elsewhere: an actor method is not a route because a
    route elsewhere has its name. Only a route may become a plain `def`
    (FastAPI and Starlette run a plain `def` route in their threadpool, where
    its blocking work is not a finding); an actor method keeps `async`, since
    the actor's other calls wait on its loop meanwhile.

    Some coroutines run once per process or per actor, never per request:
    start-up and shutdown hooks (`@app.on_event(...)`, `add_event_handler`, a
    `lifespan=` function), an actor's `__post_create__` / `__pre_destroy__`,
    a program's main coroutine (`asyncio.run(main())`, `uvloop.run(...)`,
    `loop.run_until_complete(...)` in the function's own file, or in a file
    that imports it: `from .host import serve` then `asyncio.run(serve())`;
    when nothing else awaits or schedules it; a main nested in the function
    that runs it is named only there), and a coroutine awaited only from those (an
    override its base's await dispatches to among them), outside their
    loops. What runs there is start-up or wind-down, not the
    loop's per-request cost: MM003, MM004 and MM005 do not report it, except
    a call that a loop over the input repeats (a main's `for record in records:`).

    ## Why is this bad?
    A coroutine that never suspends runs its whole body on the event loop in
    one go. Everything else waits: `asyncio.wait_for` cannot time it out,
    a semaphore around it cannot interleave requests, health checks stall.
    Decoding video frames inside such a function froze a server's loop for
    seconds. Unlike ruff's RUF029 and flake8-async's ASYNC124, methods are
    checked too: an entry point that must be `async` because the base class
    says so, yet never suspends, is exactly the stall this rule exists for.

    ## Fix
    Not automatic. Offload the heavy call (`await asyncio.to_thread(f, ...)`,
    `await loop.run_in_executor(executor, f, ...)`), never the whole coroutine
    where it must run on its loop. For a module-level helper with no reason to
    be a coroutine, a plain `def` is also honest; a method, an exception
    handler, a hook or a coroutine run on another loop keeps `async`. A heavy
    route may become a plain `def` (FastAPI and Starlette run plain routes in
    their threadpool) only if its heavy work is safe on a worker thread (no
    ZeroMQ socket or other loop-bound object).

    To see which findings block for real, run the tests with
    `pytest --mmlint-confirm`: it times the blocking callee on the loop and
    `mmlint check --confirmed mmlint-confirm.json` marks each finding
    confirmed or refuted (README, "Confirm findings with your tests").

    ## When to suppress
    When the body is provably cheap (a few attribute reads) and the function is
    async only to satisfy an interface. Say so in the comment:
    `# mmlint: ignore[MM003]  # cheap: returns a cached value`.
    """

    code = "MM003"
    name = "fake-async"
    summary = "`async def` that never suspends: its whole body runs on the event loop"

    bad_examples = (
        Example(
            """
            class ResizeProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    images = []
                    for image in image_data:
                        images.append(resize(image, self.size))
                    return {"images": images}
            """,
            expect=("MM003",),
        ),
        Example(
            """
            from fastapi import APIRouter

            router = APIRouter()

            @router.post("/embed")
            async def embed(request: EmbedRequest):
                vectors = []
                for text in request.texts:
                    vectors.append(embedder.embed(text))
                return {"vectors": vectors}
            """,
            expect=("MM003",),
        ),
        Example(
            """
            from decord import VideoReader

            async def decode_video_frames(path, num_frames):
                reader = VideoReader(path)
                indices = sample_indices(len(reader), num_frames)
                return reader.get_batch(indices)
            """,
            expect=("MM005",),
        ),
    )
    good_examples = (
        Example(
            """
            import asyncio

            async def decode_video_frames(path, num_frames):
                return await asyncio.to_thread(_decode_sync, path, num_frames)
            """
        ),
        Example(
            """
            from abc import ABC, abstractmethod

            class BaseMultimodalProcessor(ABC):
                @abstractmethod
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    pass
            """
        ),
        Example(
            """
            from fastapi import APIRouter
            from fastapi.responses import JSONResponse

            router = APIRouter()

            @router.get("/health")
            async def health():
                return JSONResponse({"status": "ok"})

            @router.post("/embed")
            def embed(request: EmbedRequest):
                return {"vectors": [embedder.embed(text) for text in request.texts]}
            """
        ),
    )

    def check_file(self, facts: FileFacts, ctx: RuleContext) -> Iterable[Diagnostic]:
        if not any(fn.is_fake_async for fn in facts.async_defs):
            return
        reported = (HEAVY, LIGHT, UNKNOWN_WEIGHT) if ctx.settings.report_light_async else (HEAVY,)
        weights = ctx.project.weight(ctx.settings.heavy_calls)
        for index, fn in enumerate(facts.async_defs):
            if not fn.is_fake_async:
                continue
            key = (facts.path, index)
            weight = weights.weight(key)
            if weight is None or weight.kind not in reported:
                continue
            context = weights.contexts.of(key, fn)
            if context and weight.kind != HEAVY:
                continue  # a coroutine its context requires, doing nothing heavy: nothing to fix
            if key in weights.once_only:
                continue  # runs once per process or actor (start-up, shutdown, lifecycle hooks)
            if folded_into_mm005(key, weight, ctx):
                continue  # one finding per cause: MM005 at the call names this def (mmlint.rules.causes)
            sites = weights.awaiting_sites(key)
            yield self.diagnostic(
                facts.path,
                fn.span,
                message(fn, weight),
                help=advice_for(fn, weight, context, len(sites)),
                owner=fn.owner,
                related=tuple(RelatedLocation(path, span, f"awaits `{fn.qualname}` here") for path, span in sites),
                weight=weight.kind,
                reason=weight.reason,
                chain=weight.chain,
                context=context,
            )


def message(fn: AsyncDef, weight: Weight) -> str:
    """One short line: that it never suspends, and how heavy it is; the
    costliest thing it does opens the help (``advice_for``)."""
    if weight.kind == UNKNOWN_WEIGHT:
        return "`async def` never suspends; it calls unseen code"
    if weight.kind != HEAVY:
        return "`async def` never suspends; its body is light"
    return "`async def` never suspends and blocks the loop"


def advice_for(fn: AsyncDef, weight: Weight, context: str = "", awaited_from: int = 0) -> str:
    """The help below the message: which def, its costliest call, what to do,
    and how many places await it."""
    where = f" (it is awaited from {awaited_from} places)" if awaited_from > 1 else ""
    named = f"`{fn.qualname}`"
    if weight.kind == UNKNOWN_WEIGHT:
        return f"{named} calls `{weight.reason}(...)`, which mmlint cannot see into{where}"
    if weight.kind != HEAVY:
        return f"{named}: make it a plain `def` if no caller needs a coroutine{where}"
    is_method = len(fn.owner) >= 2 and fn.owner[-2].kind == "class"
    costliest = weight.chain[-1] if weight.chain else "the loop"
    return f"{named}: {weight.reason}; {advice(context, is_method, costliest)}{where}"
