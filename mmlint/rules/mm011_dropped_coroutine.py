"""MM011 dropped-coroutine."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.analysis.dropped import dropped_coroutines
from mmlint.core.diagnostics import Diagnostic, RelatedLocation
from mmlint.facts.model import FileFacts
from mmlint.rules.base import Example, Rule, RuleContext


class DroppedCoroutine(Rule):
    """## What it does
    Flags a call, written as a statement of its own, of an `async def` of the
    scanned code: `self.disconnect()` in a sync method, `api.stop()` in a
    coroutine. The call creates a coroutine and drops it at once. Sync and
    async callers alike; callees are resolved as for MM004 (imports,
    re-exports, `self.` / `cls.` / `super()` along the MRO, async defs nested
    in the caller).

    Only a call that drops its result is flagged: an awaited call, one
    assigned, returned, or passed to anything (`asyncio.create_task`,
    `gather`, `ensure_future`, `wait_for`, `run_coroutine_threadsafe`, a task
    group's `tg.create_task`, any other call) hands the coroutine on. A callee
    that cannot be resolved inside the scanned code is never reported, and
    neither is an async generator (calling one without `await` is how it is
    used), an `async def` behind a decorator that may replace it, or a method
    that a scanned subclass overrides with a plain `def`. The async twin of a
    configured pair is MM006's: one finding per call.

    ## Why is this bad?
    Calling a coroutine function only creates the coroutine: its body runs
    when it is awaited or scheduled, and a dropped one never is. The sockets
    `disconnect` should close stay open, the request `stop` should cancel
    keeps running, and nothing fails where the call is: Python prints
    "coroutine ... was never awaited" when the object is collected, if the
    warning is shown at all.

    ## Fix
    Not automatic: which fix is right depends on the caller. In an
    `async def`, `await` the call, or schedule it
    (`asyncio.create_task(...)`) and keep the task. In a sync function
    `await` is impossible: call a sync equivalent, run the coroutine on the
    loop that owns the resources
    (`asyncio.run_coroutine_threadsafe(coro, loop)` from another thread,
    `loop.create_task(...)` on the loop's thread), or make the caller
    `async` and await it.

    ## When to suppress
    When the coroutine is meant not to run, such as a call kept only to check
    the arguments in a test. Say so in the comment.
    """

    code = "MM011"
    name = "dropped-coroutine"
    summary = "a call of an in-package `async def` whose coroutine is dropped: its body never runs"

    bad_examples = (
        Example(
            """
            class EngineClient:
                def shutdown(self):
                    self.disconnect(linger=0)

                async def disconnect(self, linger):
                    await self.socket.close(linger=linger)
            """,
            expect=("MM011",),
        ),
        Example(
            """
            from .control import stop_request

            async def abort(request_id, client):
                stop_request(request_id)
                await client.notify_aborted(request_id)
            """,
            expect=("MM011",),
            files={
                "__init__.py": "",
                "control.py": """
                    async def stop_request(request_id):
                        await CONTROL_PLANE.cancel(request_id)
                    """,
            },
        ),
    )
    good_examples = (
        Example(
            """
            import asyncio

            class EngineClient:
                def shutdown(self, loop):
                    asyncio.run_coroutine_threadsafe(self.disconnect(linger=0), loop).result()

                async def close(self):
                    await self.disconnect(linger=0)

                async def disconnect(self, linger):
                    await self.socket.close(linger=linger)
            """
        ),
        Example(
            """
            import asyncio

            async def stop_request(request_id):
                await CONTROL_PLANE.cancel(request_id)

            async def stream(requests):
                yield await CONTROL_PLANE.next(requests)

            async def abort_all(request_ids, tasks):
                await asyncio.gather(*(stop_request(r) for r in request_ids))
                tasks.add(asyncio.create_task(stop_request(request_ids[0])))
                async with asyncio.TaskGroup() as tg:
                    tg.create_task(stop_request(request_ids[-1]))
                pending = stop_request(request_ids[1])
                stream(request_ids)
                return await pending
            """
        ),
    )

    def check_file(self, facts: FileFacts, ctx: RuleContext) -> Iterable[Diagnostic]:
        if facts.path not in ctx.project.targets:
            return
        # MM006 reports a configured pair's async twin called without `await`.
        twin_names = frozenset(pair.async_ for pair in ctx.settings.twins)
        resolver = ctx.project.suspension.resolver
        for dropped in dropped_coroutines(ctx.project.files, resolver, facts.path):
            if dropped.callee.rsplit(".", 1)[-1] in twin_names:
                continue
            related = tuple(
                RelatedLocation(path, info.span, f"`{info.qualname}` is an `async def`")
                for path, index in dropped.targets
                for info in (ctx.project.files[path].async_defs[index],)
            )
            yield self.diagnostic(
                facts.path,
                dropped.span,
                "coroutine never awaited: its body never runs",
                help=f"`{dropped.callee}(...)` makes a coroutine and drops it; await it, or schedule it with `asyncio.create_task(...)` and keep the task; "
                "from sync code, hand it to the loop it belongs to (`asyncio.run_coroutine_threadsafe`)",
                owner=dropped.owner,
                related=related,
            )
