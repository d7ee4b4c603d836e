"""MM005 blocking-call-in-async."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.analysis.resolve import DefKey
from mmlint.analysis.contexts import DEPLOYMENT
from mmlint.analysis.weight import HEAVY, shown_callee
from mmlint.core.knowledge import reason_of
from mmlint.core.diagnostics import Diagnostic, RelatedLocation
from mmlint.facts.model import FileFacts
from mmlint.rules.base import Example, Rule, RuleContext
from mmlint.rules.causes import blocking_calls, cause_of, short_name
from mmlint.rules.mm003_fake_async import advice_for

# A Ray Serve deployment's sync method: the replica runs it on its event loop.
REPLICA_ADVICE = (
    "(a Ray Serve deployment's sync method runs on the replica's event loop): make it `async def` and "
    "offload the call (`await asyncio.to_thread(...)`), or set `RAY_SERVE_RUN_SYNC_IN_THREADPOOL=1`"
)


class BlockingCallInAsync(Rule):
    """## What it does
    Flags a call known to block or to do heavy CPU work, made directly in the
    body of an `async def` (not in a nested `def`, `lambda` or class). What is
    known comes in named sets, each entry with its reason (README, "Built-in
    knowledge"): tokenizers and chat templates, image, video and audio
    decoding, Ray, sync ZeroMQ receives, thread and process waits,
    `concurrent.futures`, `torch.distributed` barriers and
    `torch.cuda.synchronize`, sync HTTP, subprocesses, compression and file
    reads, base64 and digests of whole payloads, unpickling, `sqlite3`
    queries, grammar compilation (`xgrammar`, `outlines`), sync RPC clients
    (`rpyc`, sync gRPC stubs), `gc.collect()` and `torch.cuda.empty_cache()`,
    `shutil.rmtree`, an upload's sync `file.read()`; plus `.result()` on a
    future bound from `executor.submit(...)`. `PIL.Image.open` is not among
    them: it reads only the header, and the decode happens at `.load()`,
    `.convert()` or `.resize()`, which are.
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
    A tokenizer, a compressor, base64, a digest or an unpickler costs in
    proportion to its input: given none, or only a literal, a constant or a
    slice with constant bounds
    (`tokenizer.encode(PLACEHOLDER)`, `convert_ids_to_tokens(ids[-8:])`), it
    is cheap and not reported; `ids[8:]` and `ids[:-2]` grow with `ids`. A
    digest, base64 or compression call is cheap too when its input is short
    by evidence: built from literals, identifiers, names and paths
    (`request.rid`, `self.model_name`, `file_path`), lengths, an array's
    shape and dtype, other digests (`h.hexdigest()`), a tuple, list or dict
    display of those and its JSON (`json.dumps({"model": model_name,
    "shape": tuple(x.shape)})`; no `**` spread, nothing that grows the
    display after it is built), or a value tested to be an http(s) URL in
    the same def (`if url.startswith(("http://", "https://")):`); a bare
    `url` may be a `data:` URL, a whole image, and a request's options a
    mapping of any size. A helper digesting its own parameter (`def
    sha256_hex(data)`) costs what each caller passes: nothing when it is a
    token, an API key, an identifier, a name, a length or a display of such
    (`sha256_hex(refresh_token)`), a whole payload's digest otherwise.
    A file write (`path.write_text(...)`, `write_bytes`) is cheap when the
    source fixes what it writes: a literal, a constant, or `json.dumps` of
    one or of a dict or list display of them (a start script, a marker):
    a few hundred bytes copied into the page cache, no fsync, well under a
    millisecond, which no maintainer moves off the loop. A write of anything
    else (the request's data, an object's state, a configuration) stays, as
    do reads of whole files and `open` (its `write` and any `os.fsync` are
    in its with-body).

    Calls of scanned sync functions are followed too: a call, in an
    `async def`, of a sync function that reaches a blocking call through
    other scanned sync functions is reported with the chain
    (`wait_for_service` → `requests.get`). Offloading stops the chain: a
    function handed to `asyncio.to_thread`, `run_in_executor` or a pool's
    `submit` is not called where it is passed.

    Async generators (streaming responses) are judged here, not by MM003: a
    blocking call in one is reported as in any `async def`, and in one that
    never awaits, so does a call of a scanned sync function that is heavy by
    evidence (a loop over its input repeating a call not known to be cheap):
    it runs between two `yield`s with the loop held, and the whole stream
    runs on the loop. The help then says how to stream: offload each step
    (`await asyncio.to_thread(next, it, None)`), or iterate the sync source
    in a thread that feeds an `asyncio.Queue`.

    One finding per cause: when the call is also why its `async def` never
    suspends and is heavy (the costliest call MM003 names), MM005 is the one
    finding, not MM003 beside it: the call is the line the fix edits, and
    offloading it makes the coroutine suspend. The finding then carries the
    `async def` and every `await` of it as related locations (SARIF
    `relatedLocations`, JSON `related`, `= note:` lines in the text output),
    the advice for the coroutine's context (a route may become a plain `def`;
    a handler, a hook, an override keeps `async`), and that context (`context`).
    Suppressing it at the call brings MM003 back on the `async def`.

    A Ray Serve deployment runs its sync methods on the replica's event loop
    (unless `RAY_SERVE_RUN_SYNC_IN_THREADPOOL=1` turns its thread pool on), so
    they are checked as an `async def` is: a known blocking call, or a call of
    scanned sync code that reaches one, in `__call__` or another public method
    of a class decorated with `@serve.deployment` / `@serve.deployment(...)`
    or deployed by a call at module level (`serve.deployment(Model)`,
    `serve.deployment(num_replicas=2)(Model).bind()`), in a public method it
    inherits from a base in the same module (unless a class between redefines
    it), or in a function deployment (the same decorator or call on a
    module-level `def`), is reported (`deployment` imported from `ray.serve`,
    resolved through the file's imports; a `deployment` from elsewhere is not
    Ray Serve's), once, where it blocks (a handle method that calls another
    that blocks is not reported again), with the context `"Ray Serve
    deployment method"` and the advice to make it `async def` and offload the
    call, or to turn the thread pool on. Not `__init__` (once per replica) nor
    `reconfigure` (once per configuration change; an `async def reconfigure`
    is a lifecycle hook too), not a property, nor a `_private` helper, which
    is reported where a method calls it; in an ingress deployment
    (`@serve.ingress(app)`) a method
    with a route decorator follows FastAPI's rules: a plain `def` route runs in
    its thread pool and is not reported. A deployment's `async def` methods,
    and those of a Ray actor (`@ray.remote`), are coroutines on that loop as
    any are, with that context (an actor's: `"actor method"`); a Ray actor's
    sync methods run in the actor's own thread and are not reported.

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
    Nor is what a sync helper does once per object (a lazy initialisation) or
    only behind an opt-in flag read from the environment and off when unset
    (`if _PROFILE: torch.cuda.synchronize()`).

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

    To see which findings block for real, run the tests with
    `pytest --mmlint-confirm`: it times the blocking callee on the loop and
    `mmlint check --confirmed mmlint-confirm.json` marks each finding
    confirmed or refuted (README, "Confirm findings with your tests").

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
        Example(
            """
            import requests
            from ray import serve

            @serve.deployment
            class Crawler:
                def __call__(self, request):
                    return requests.get(request.url, timeout=10).text
            """,
            expect=("MM005",),
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
        Example(
            """
            import asyncio

            import requests
            from ray import serve

            @serve.deployment
            class Crawler:
                async def __call__(self, request):
                    page = await asyncio.to_thread(requests.get, request.url, timeout=10)
                    return page.text
            """
        ),
    )

    def check_file(self, facts: FileFacts, ctx: RuleContext) -> Iterable[Diagnostic]:
        if facts.path not in ctx.project.targets:
            return
        weights = ctx.project.weight(ctx.settings.heavy_calls)
        folded: set[DefKey] = set()
        for found in blocking_calls(facts, ctx):
            info = ctx.project.suspension.defs[found.key]
            help, context = found.help, ""
            related: tuple[RelatedLocation, ...] = ()
            weight = weights.weight(found.key)
            if (
                weight is not None
                and found.key not in folded
                and info.is_fake_async
                and cause_of(found.key, weight, ctx) == found
            ):
                # One finding per cause: this call is why the coroutine never
                # suspends and is heavy; MM003's finding is this one (mmlint.rules.causes).
                folded.add(found.key)
                context = weights.contexts.of(found.key, info)
                sites = weights.awaiting_sites(found.key)
                help = (
                    f"`{found.callee}(...)` in `async def {info.qualname}`, which never suspends, so this runs with its whole body: "
                    + advice_for(info, weight, context, len(sites))
                )
                related = (
                    RelatedLocation(facts.path, info.span, f"`async def {info.qualname}` never suspends"),
                    *(RelatedLocation(path, span, f"awaits `{info.qualname}` here") for path, span in sites),
                )
            yield self.diagnostic(
                facts.path,
                found.span,
                found.message,
                help=help,
                owner=info.owner,
                related=related,
                weight=HEAVY,
                reason=found.reason,
                chain=found.chain,
                context=context,
            )
        yield from self._replica_findings(facts, ctx)

    def _replica_findings(self, facts: FileFacts, ctx: RuleContext) -> Iterable[Diagnostic]:
        """The calls that block a Ray Serve replica's loop in the sync methods
        of the file's deployments (mmlint.facts.ray_entry)."""
        weights = ctx.project.weight(ctx.settings.heavy_calls)
        for found in weights.replica_blocking(frozenset({facts.path})):
            info = weights.sync_def(found.root)
            why = reason_of(found.pattern)
            end = shown_callee(found.blocking)
            chain: tuple[str, ...] = (f"`{end}`",)
            if found.chain is None:
                shown, through = end, ""
            else:
                shown, through = found.callee, f", through `{short_name(found.blocking)}`"
                chain = (*(step.describe() for step in found.chain.steps), f"`{end}`")
            yield self.diagnostic(
                facts.path,
                found.span,
                f"blocks the replica's loop: {why}",
                help=f"`{shown}(...)` in `def {info.qualname}`{through} {REPLICA_ADVICE}",
                owner=info.owner,
                weight=HEAVY,
                reason=f"`{end}(...)` {why}",
                chain=chain,
                context=DEPLOYMENT,
            )
