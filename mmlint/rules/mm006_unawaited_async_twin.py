"""MM006 unawaited-async-twin."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.core.diagnostics import Diagnostic
from mmlint.facts.model import FileFacts
from mmlint.rules.base import Example, Rule, RuleContext


class UnawaitedAsyncTwin(Rule):
    """## What it does
    Flags a call of the async twin (`process_and_combine_mm_data_async` by
    default, or any configured pair) that is not awaited, outside the arguments
    of `asyncio.create_task`, `gather`, `ensure_future`, `wait_for` and the
    like. A coroutine bound to a name that is awaited or wrapped in a task later
    in the same function, or returned from a sync `def`, is not flagged.
    A dropped call of any other `async def` of the scanned code is MM011's;
    a configured pair's async twin is reported here only, once.

    ## Why is this bad?
    Calling a coroutine function only creates the coroutine; nothing runs until
    it is awaited. The result is dropped (Python warns "coroutine ... was never
    awaited" at best), and the code that follows gets a coroutine object where
    it expected the processed items, typically failing far from the cause.

    ## Fix
    Not automatic. Add `await` in an `async def`; in a sync scope, call the
    sync twin or make the scope `async`.

    ## When to suppress
    When the coroutine is handed on in a way mmlint cannot follow (stored in a
    container and awaited elsewhere). Say where it is awaited.
    """

    code = "MM006"
    name = "unawaited-async-twin"
    summary = "the async twin called without `await`: the coroutine is dropped"

    bad_examples = (
        Example(
            """
            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    base_output = await self.load_mm_data_async(input_text, image_data)
                    self.process_and_combine_mm_data_async(base_output, self.mm_tokens)
                    return {"mm_items": base_output.items}
            """,
            expect=("MM006",),
        ),
    )
    good_examples = (
        Example(
            """
            import asyncio

            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    base_output = self.load_mm_data(input_text, image_data)
                    items, input_ids, _ = await self.process_and_combine_mm_data_async(base_output, self.mm_tokens)
                    return {"mm_items": items, "input_ids": input_ids}

                async def process_many(self, outputs):
                    pending = self.process_and_combine_mm_data_async(outputs[0], self.mm_tokens)
                    rest = [asyncio.create_task(self.process_and_combine_mm_data_async(o, self.mm_tokens)) for o in outputs[1:]]
                    return [await pending, *await asyncio.gather(*rest)]
            """
        ),
    )

    def check_file(self, facts: FileFacts, ctx: RuleContext) -> Iterable[Diagnostic]:
        if facts.path not in ctx.project.targets:
            return
        for site in facts.call_sites:
            if not site.is_async_twin or site.awaited or site.in_task_wrapper or site.coroutine_kept:
                continue
            yield self.diagnostic(
                facts.path,
                site.span,
                "async twin called without `await`",
                help=f"the coroutine of `{site.callee}(...)` is dropped and the work never runs; write `await {_callee_text(site.receiver, site.callee)}(...)`",
                owner=site.owner,
            )


def _callee_text(receiver: str, name: str) -> str:
    return f"{receiver}.{name}" if receiver else name
