"""MM002 unawaitable-call-site."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.analysis.twin_presence import MISSING
from mmlint.core.diagnostics import Diagnostic
from mmlint.facts.model import FileFacts
from mmlint.rules.base import Example, Rule, RuleContext
from mmlint.rules.scopes import describe_scope, short_scope


class UnawaitableCallSite(Rule):
    """## What it does
    Flags a call of either twin whose innermost enclosing scope cannot `await`:
    a sync `def`, a `lambda`, a class body, module level, or a sync
    comprehension outside an `async def`.

    ## Why is this bad?
    There the async twin's coroutine cannot be awaited, so the only thing that
    runs is the sync body, on whatever thread called it — never on the worker
    pool. Such a site is also out of reach of `mmlint fix`, which can only
    insert `await` where Python allows it. It usually means the preprocessing
    path was split into a sync helper that the async entry point calls.

    ## Fix
    Not automatic. Make the enclosing function `async def` (and await it from
    its callers), or move the twin call up into the async entry point and pass
    the result down. Then `mmlint fix` can rewrite the call.

    ## When to suppress
    Code that genuinely runs outside the event loop, such as an offline
    conversion script or a worker-side helper already running on the pool.
    """

    code = "MM002"
    name = "unawaitable-call-site"
    summary = "Twin called where `await` is impossible (sync def, lambda, class body, module level)"

    bad_examples = (
        Example(
            """
            class VideoProcessor(BaseMultimodalProcessor):
                def _combine(self, base_output):
                    return self.process_and_combine_mm_data(base_output, self.mm_tokens)

                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    return self._combine(await self.load_mm_data_async(input_text, image_data=image_data))
            """,
            expect=("MM001", "MM002"),
        ),
        Example(
            """
            def warm_up(processor, samples):
                return [processor.process_and_combine_mm_data(s, processor.mm_tokens) for s in samples]
            """,
            expect=("MM001", "MM002"),
        ),
    )
    good_examples = (
        Example(
            """
            class VideoProcessor(BaseMultimodalProcessor):
                async def _combine(self, base_output):
                    return await self.process_and_combine_mm_data_async(base_output, self.mm_tokens)

                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    return await self._combine(await self.load_mm_data_async(input_text, image_data=image_data))
            """
        ),
    )

    def check_file(self, facts: FileFacts, ctx: RuleContext) -> Iterable[Diagnostic]:
        presence = ctx.project.twin_presence
        for site in facts.call_sites:
            if site.awaitable or site.delegation:  # e.g. the twin's lambda handed to the pool
                continue
            if (
                presence.of_call(facts.path, site.owner, site.receiver, site.pair.async_, site.pair.sync).state
                == MISSING
            ):
                continue  # no async twin on this receiver: nothing to await (MM013 reports a call of it)
            call = f"{site.receiver}.{site.callee}" if site.receiver else site.callee
            if site.is_async_twin:
                consequence = "its coroutine cannot be awaited here"
            else:
                consequence = "it runs the sync body outside the worker pool and cannot be rewritten to await"
            advice = f"{consequence}; make the enclosing function `async def` or move the call into one"
            where, short = describe_scope(site), short_scope(site)
            yield self.diagnostic(
                facts.path,
                site.span,
                f"twin cannot be awaited in {short}",
                help=f"`{call}(...)`: " + (advice if where == short else f"{where} cannot await: {advice}"),
                owner=site.owner,
            )
