"""MM005 blocking-call-in-async."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.analysis.weight import HEAVY, matching_pattern, shown_callee
from mmlint.core.knowledge import UNKNOWN_ORIGIN, costs_here, is_type_pattern, reason_of, twin_patterns_of
from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.facts.model import CallFact, FileFacts
from mmlint.rules.base import Example, Rule, RuleContext


class BlockingCallInAsync(Rule):
    """## What it does
    Flags a call known to block or to do heavy CPU work, made directly in the
    body of an `async def` (not in a nested `def`, `lambda` or class). What is
    known comes in named sets, each entry with its reason (README, "Built-in
    knowledge"): tokenizers and chat templates, image, video and audio
    decoding, Ray, sync ZeroMQ receives, thread and process waits,
    `concurrent.futures`, `torch.distributed` barriers and
    `torch.cuda.synchronize`, sync HTTP, subprocesses, compression and file
    reads; plus `.result()` on a future bound from `executor.submit(...)`.
    `[blocking-calls] extend-sets` / `drop-sets` turn sets on and off by name;
    `extend` adds patterns.

    A pattern describes a *sync* call: an awaited call, or one handed to
    `create_task` / `gather` / `wait_for` (it only creates a coroutine), is
    never blocking, so `await sock.recv_multipart()` on a `zmq.asyncio`
    socket never matches, and neither does a function passed uncalled to
    `asyncio.to_thread` or `run_in_executor`. Callees are matched by their
    dotted name after the file's imports are applied (`from ray import get as
    ray_get` then `ray_get(x)` is `ray.get`), and a pattern starting with `*`
    also matches the callee's attribute chain on its own: `"*.future.wait"`
    matches `self.future.wait()` and `future.wait()`; `"*tokenizer().encode"`
    matches `self.get_tokenizer().encode(...)`. So with
    `extend = ["*wait"]`, `self.event.wait()` and `ready.wait()` are reported
    and `await self.event.wait()` never is; in a sync helper, a call handed to
    `asyncio.run` or `run_coroutine_threadsafe` does not make the helper block.
    A tokenizer or a compressor costs in proportion to its input: given only
    a literal, a constant or a slice with constant bounds
    (`tokenizer.encode(PLACEHOLDER)`, `convert_ids_to_tokens(ids[-8:])`), it
    is cheap and not reported; `ids[8:]` and `ids[:-2]` grow with `ids`.

    Calls of scanned sync functions are followed too: a call, in an
    `async def`, of a sync function that reaches a blocking call through
    other scanned sync functions is reported with the chain
    (`wait_for_service` → `requests.get`). Offloading stops the chain: a
    function handed to `asyncio.to_thread`, `run_in_executor` or a pool's
    `submit` is not called where it is passed.

    ## Why is this bad?
    A blocking call inside a coroutine stops the event loop until it returns:
    no other request makes progress, timeouts cannot fire. A synchronous image
    download or a frame decode inside a processor's `async def` stalls every
    request the server is handling.

    ## Fix
    Not automatic. Use the async equivalent (`await asyncio.sleep(...)`, an
    async HTTP client) or offload the call:
    `await asyncio.to_thread(requests.get, url)`,
    `await loop.run_in_executor(executor, decode, path)`, and for a submitted
    future `await asyncio.wrap_future(future)`.

    ## When to suppress
    When the call cannot block in practice (a file known to be in the page
    cache, a future known to be done). Say why in the comment.
    """

    code = "MM005"
    name = "blocking-call-in-async"
    summary = "a call known to block, made directly inside an `async def`"

    bad_examples = (
        Example(
            """
            import requests

            async def fetch_images(urls, session):
                first = requests.get(urls[0], timeout=10)
                rest = await session.fetch_all(urls[1:])
                return [first.content, *rest]
            """,
            expect=("MM005",),
        ),
        Example(
            """
            async def decode_all(executor, paths, progress):
                future = executor.submit(decode_many, paths)
                await progress.started(len(paths))
                return future.result()
            """,
            expect=("MM005",),
        ),
        Example(
            """
            import time

            import requests

            def wait_for_service(url):
                while requests.get(url, timeout=5).status_code != 200:
                    time.sleep(1)

            async def run_benchmark(url, client):
                wait_for_service(url)
                return await client.run()
            """,
            expect=("MM005",),
        ),
        Example(
            """
            from decord import VideoReader

            async def load_frames(path, decode_slots):
                async with decode_slots:
                    reader = VideoReader(path)
                    return reader.get_frames_as_tensor()
            """,
            expect=("MM005", "MM005"),
            config={"blocking-calls": {"extend": ["decord.VideoReader", "*.get_frames_as_tensor"]}},
        ),
    )
    good_examples = (
        Example(
            """
            import asyncio

            import requests

            async def fetch_images(urls, session):
                first = await asyncio.to_thread(requests.get, urls[0], timeout=10)
                rest = await session.fetch_all(urls[1:])
                return [first.content, *rest]

            async def decode_all(executor, paths, progress):
                future = executor.submit(decode_many, paths)
                await progress.started(len(paths))
                return await asyncio.wrap_future(future)
            """
        ),
        Example(
            """
            import asyncio
            import time

            import requests

            def wait_for_service(url):
                while requests.get(url, timeout=5).status_code != 200:
                    time.sleep(1)

            async def run_benchmark(url, client):
                await asyncio.to_thread(wait_for_service, url)
                return await client.run()
            """
        ),
    )

    def check_file(self, facts: FileFacts, ctx: RuleContext) -> Iterable[Diagnostic]:
        if facts.path not in ctx.project.targets:
            return
        patterns = tuple(ctx.settings.blocking_calls)
        resolver = ctx.project.resolver
        for info in facts.async_defs:
            method = info.name if info.class_name is not None else None
            for call in info.calls:
                direct = blocking_reason(call, patterns)
                if direct is None and not (call.awaited or call.scheduled):
                    typed = resolver.resolve_sync_call(facts, info.class_name, call.callee, method, info.qualname)
                    direct = typed_blocking_reason(call, typed.library, patterns)
                if direct is not None:
                    shown, why = direct
                    yield self.diagnostic(
                        facts.path,
                        call.span,
                        f"`{shown}(...)` {why} on the event loop",
                        help=f"in `async def {info.qualname}`: {OFFLOAD_ADVICE}",
                        owner=info.owner,
                        weight=HEAVY,
                        reason=f"`{shown}(...)` {why}",
                        chain=(f"`{shown}`",),
                    )
        weights = ctx.project.weight(ctx.settings.heavy_calls)
        twin_patterns = twin_patterns_of(ctx.settings.twins)
        twin_calls = discovered_twin_calls(facts.path, ctx)
        for found in weights.transitive_blocking(frozenset({facts.path})):
            if found.chain.pattern in twin_patterns or found.span in twin_calls:
                continue  # a sync twin called or reached: MM001's / MM010's finding, with its fix
            info = ctx.project.suspension.defs[found.enclosing]
            why = reason_of(found.chain.pattern)
            yield self.diagnostic(
                facts.path,
                found.span,
                f"`{found.callee}(...)` {why} on the event loop (through `{short_name(found.chain.call)}`)",
                help=f"in `async def {info.qualname}`: offload the call "
                f"(`await asyncio.to_thread({found.callee}, ...)`) or use an async equivalent",
                owner=info.owner,
                weight=HEAVY,
                reason=f"`{shown_callee(found.chain.call)}(...)` {why}",
                chain=tuple(step.describe() for step in found.chain.steps) + (f"`{shown_callee(found.chain.call)}`",),
            )


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


OFFLOAD_ADVICE = "offload it (`await asyncio.to_thread(...)`, `await loop.run_in_executor(...)`) or use an async equivalent"


def typed_blocking_reason(call: CallFact, library: tuple[str, ...], patterns: tuple[str, ...]) -> tuple[str, str] | None:
    """As blocking_reason, by what the callee is (SyncCall.library) rather
    than its name: `self._tok_ref(text)` where `_tok_ref` holds a tokenizer."""
    typed_patterns = tuple(p for p in patterns if is_type_pattern(p))
    found = [(typed, matching_pattern(typed, typed_patterns)) for typed in library]
    if any(pattern is None and not typed.startswith(UNKNOWN_ORIGIN) for typed, pattern in found):
        return None  # a union matches only when each of its known values does (a socket that may be zmq.asyncio's)
    pattern = next((pattern for _, pattern in found if pattern is not None), None)
    if pattern is None:
        return None
    if not costs_here(pattern, call.bounded_input):
        return None
    return shown_callee(call.dotted), reason_of(pattern)


def blocking_reason(call: CallFact, patterns: tuple[str, ...]) -> tuple[str, str] | None:
    """(the callee as shown, what it does to the loop) when ``call`` blocks,
    else None. An awaited call, or one handed to a coroutine consumer, only
    creates a coroutine: never blocking."""
    if call.awaited or call.scheduled:
        return None
    if call.future_result:
        return shown_callee(call.dotted), "waits for a future"
    pattern = matching_pattern(call.dotted, patterns)
    if pattern is None or not costs_here(pattern, call.bounded_input):
        return None
    return shown_callee(call.dotted), reason_of(pattern)
