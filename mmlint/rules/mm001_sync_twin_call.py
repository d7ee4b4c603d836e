"""MM001 sync-twin-call."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.analysis.twin_presence import MISSING
from mmlint.core.diagnostics import AwaitRewrite, Diagnostic
from mmlint.facts.model import CallSite, FileFacts
from mmlint.rules.base import Example, Rule, RuleContext
from mmlint.rules.scopes import describe_scope

# The base class the examples import: it has both twins.
_BASE_PROCESSOR = """
class BaseMultimodalProcessor:
    def process_and_combine_mm_data(self, base_output, mm_tokens, **kwargs):
        ...

    async def process_and_combine_mm_data_async(self, base_output, mm_tokens, **kwargs):
        ...
"""


class SyncTwinCall(Rule):
    """## What it does
    Flags a direct call of the sync twin (`process_and_combine_mm_data` by
    default, or any `sync` name of a configured `[[tool.mmlint.twins]]` pair)
    where the executor-backed async twin exists.

    Exists means: on a `self.`, `cls.` or `super().` call, a class of the
    receiver's hierarchy (C3 order, and every scanned subclass the method may
    run on) defines the async twin; on any other receiver, or a hierarchy
    with a base outside the scan, the scanned code defines it somewhere. A
    package that defines the sync twin and no async one (sglang before the
    twin was added) gets no MM001 and no rewrite: there is nothing to
    rewrite to, and `mmlint audit` says so. Only when the scanned code
    defines neither twin is the configured pair taken at its word.

    ## Why is this bad?
    The async twin runs the sync body on the processor worker pool. Calling the
    sync body directly runs it on the event loop thread instead: the server
    builds its workers at start-up and then serves every request at one-worker
    speed, while every other coroutine waits. Nothing fails, nothing logs; the
    only symptom is throughput. In one release 33 of 37 call sites did this.

    ## Fix
    `mmlint fix` rewrites a call inside an `async def` to
    `await <receiver>.<async twin>(...)`, keeping arguments, comments and
    formatting, and adds parentheses only where the grammar needs them
    (`(await self.f_async(...))[0]`). It leaves alone, and lists, calls in a
    scope that cannot await (see MM002), calls inside a generator expression
    (an `await` there would turn it into an async generator and break its
    consumer) and bare-name calls whose async twin is not defined or imported
    in the module. The fix is safe: the async twin takes the same arguments and
    returns the same value.

    ## When to suppress
    When the call must stay synchronous on purpose, for example a benchmark
    that measures the sync body alone. Write the reason next to
    `# mmlint: ignore[MM001]`. The twin's own delegation (the call of the sync
    body inside the async twin) is never flagged.
    """

    code = "MM001"
    name = "sync-twin-call"
    summary = "Sync twin called directly: the call bypasses the processor worker pool"
    fixable = True
    fix_kind = "call-rewrite"

    bad_examples = (
        Example(
            """
            from base_processor import BaseMultimodalProcessor

            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    base_output = await self.load_mm_data_async(input_text, image_data=image_data)
                    mm_items, input_ids, _ = self.process_and_combine_mm_data(
                        base_output,
                        self.mm_tokens,
                    )
                    return {"mm_items": mm_items, "input_ids": input_ids.tolist()}
            """,
            expect=("MM001",),
            files={"base_processor.py": _BASE_PROCESSOR},
            fixed="""
            from base_processor import BaseMultimodalProcessor

            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    base_output = await self.load_mm_data_async(input_text, image_data=image_data)
                    mm_items, input_ids, _ = await self.process_and_combine_mm_data_async(
                        base_output,
                        self.mm_tokens,
                    )
                    return {"mm_items": mm_items, "input_ids": input_ids.tolist()}
            """,
        ),
        Example(
            """
            from base_processor import BaseMultimodalProcessor

            class OcrProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    base_output = await self.load_mm_data_async(input_text, image_data=image_data)
                    return self.process_and_combine_mm_data(base_output, self.mm_tokens)[0]
            """,
            expect=("MM001",),
            files={"base_processor.py": _BASE_PROCESSOR},
            fixed="""
            from base_processor import BaseMultimodalProcessor

            class OcrProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    base_output = await self.load_mm_data_async(input_text, image_data=image_data)
                    return (await self.process_and_combine_mm_data_async(base_output, self.mm_tokens))[0]
            """,
        ),
        Example(
            """
            class BatchProcessor(BaseMultimodalProcessor):
                def combine_all(self, outputs):
                    return [self.process_and_combine_mm_data(o, self.mm_tokens) for o in outputs]
            """,
            expect=("MM001", "MM002"),
        ),
    )
    good_examples = (
        Example(
            """
            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    base_output = await self.load_mm_data_async(input_text, image_data=image_data)
                    mm_items, input_ids, _ = await self.process_and_combine_mm_data_async(
                        base_output,
                        self.mm_tokens,
                    )
                    return {"mm_items": mm_items, "input_ids": input_ids.tolist()}
            """
        ),
        Example(
            """
            import asyncio

            class BaseMultimodalProcessor:
                def process_and_combine_mm_data(self, base_output, mm_tokens, **kwargs):
                    ...

                async def process_and_combine_mm_data_async(self, base_output, mm_tokens, **kwargs):
                    # The delegation itself is the one place the sync body is called.
                    if self.executor is None:
                        return self.process_and_combine_mm_data(base_output, mm_tokens, **kwargs)
                    loop = asyncio.get_running_loop()
                    return await loop.run_in_executor(self.executor, self.process_and_combine_mm_data, base_output, mm_tokens)
            """
        ),
    )

    def check_file(self, facts: FileFacts, ctx: RuleContext) -> Iterable[Diagnostic]:
        presence = ctx.project.twin_presence
        for site in facts.call_sites:
            if site.is_async_twin or site.delegation:
                continue
            state = presence.of_call(facts.path, site.owner, site.receiver, site.pair.async_, site.pair.sync).state
            if state == MISSING:
                continue  # no async twin on this receiver: nothing to rewrite to (audit notes it)
            reason = unfixable_reason(site, facts)
            call = f"{site.receiver}.{site.callee}" if site.receiver else site.callee
            target = f"{site.receiver}.{site.pair.async_}" if site.receiver else site.pair.async_
            if reason is None:
                advice = f"use `await {target}(...)`"
            else:
                advice = (
                    f"`{call}(...)` runs the sync body outside the pool; move the work into an async def "
                    f"and use `await {target}(...)` (not auto-fixable: {reason})"
                )
            rewrite = call_rewrite(site) if reason is None else None
            yield self.diagnostic(
                facts.path,
                site.span,
                "sync twin bypasses the worker pool",
                help=advice,
                fixable=reason is None,
                edits=rewrite.edits() if rewrite is not None else (),
                unfixable_reason=reason,
                rewrite=rewrite,
                owner=site.owner,
            )


def unfixable_reason(site: CallSite, facts: FileFacts) -> str | None:
    """Why `mmlint fix` leaves this sync-twin call alone, or None when it can rewrite it."""
    if not site.awaitable:
        return f"{describe_scope(site)} cannot await (MM002)"
    if site.in_genexp:
        return "inside a generator expression, where `await` would make it an async generator"
    if site.awaited:
        return "the sync twin is already under `await`"
    if site.in_fstring:
        # Before Python 3.12 an f-string is one token, so the fixer could not verify the edit.
        return "inside an f-string"
    if site.in_annotation:
        return "inside an annotation, where `await` is not allowed"
    if site.comprehension_depth >= 2:
        # Python 3.10 rejects an async comprehension nested in another comprehension.
        return "inside a comprehension nested in another, where `await` needs Python 3.11"
    if site.callee_parenthesized:
        return "the callee is in parentheses"
    if not facts.round_trips:
        return "the file's encoding does not round-trip (decoding and encoding back changes its bytes)"
    if not site.receiver and site.pair.async_ not in facts.module_bindings:
        return f"`{site.pair.async_}` is not defined or imported in this module"
    return None


def call_rewrite(site: CallSite) -> AwaitRewrite:
    """`x.f(...)` -> `await x.f_async(...)` as the facts place it: the edits SARIF
    reports; the fixer plans the same rewrite from the tokens and verifies it
    (mmlint.fix.call_rewrite)."""
    return AwaitRewrite(site.span, site.name_span, site.pair.sync, site.pair.async_, site.needs_parens)
