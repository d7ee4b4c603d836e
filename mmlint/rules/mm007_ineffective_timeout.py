"""MM007 ineffective-timeout."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.analysis import IneffectiveTimeout
from mmlint.core.diagnostics import Diagnostic
from mmlint.facts.model import FileFacts
from mmlint.rules.base import Example, Rule, RuleContext
from mmlint.rules.mm004_hollow_await import describe_chain


class IneffectiveTimeoutRule(Rule):
    """## What it does
    Flags `asyncio.wait_for(coro(...), timeout)` whose coroutine resolves,
    inside the scanned code, to an `async def` that never suspends, and
    `async with asyncio.timeout(...):` (or `timeout_at`, `async_timeout.timeout`)
    whose body never reaches a suspension point. Callees are resolved as for
    MM004; one that cannot be resolved is assumed to suspend.

    ## Why is this bad?
    A timeout in asyncio is a cancellation delivered at the next suspension
    point. A coroutine that never suspends runs to the end no matter how long
    it takes, so the timeout cannot fire: the request that was supposed to be
    cut off after two seconds blocks the event loop for as long as it likes,
    and the protection exists only on paper.

    ## Fix
    Not automatic. Make the work suspend, usually by offloading it:
    `await asyncio.wait_for(asyncio.to_thread(decode, path), timeout)`.

    ## When to suppress
    When the wrapped coroutine is expected to start suspending (an interface
    whose other implementations do) and the timeout is there for them.
    """

    code = "MM007"
    name = "ineffective-timeout"
    summary = "a timeout around a coroutine that never suspends cannot fire"

    bad_examples = (
        Example(
            """
            import asyncio

            import cv2

            async def decode_frames(path):
                return cv2.imread(path)

            async def load_with_deadline(path):
                return await asyncio.wait_for(decode_frames(path), timeout=2.0)
            """,
            expect=("MM005", "MM007"),
        ),
    )
    good_examples = (
        Example(
            """
            import asyncio

            import cv2

            async def load_with_deadline(path):
                return await asyncio.wait_for(asyncio.to_thread(cv2.imread, path), timeout=2.0)
            """
        ),
    )

    def check_file(self, facts: FileFacts, ctx: RuleContext) -> Iterable[Diagnostic]:
        if facts.path not in ctx.project.targets:
            return
        analysis = ctx.project.suspension
        for finding in analysis.ineffective_timeouts(frozenset({facts.path})):
            owner = analysis.defs[finding.enclosing].owner
            yield self.diagnostic(facts.path, finding.timeout.span, message(finding), help=advice(finding), owner=owner)


def message(finding: IneffectiveTimeout) -> str:
    if finding.timeout.kind == "wait_for":
        return "timeout cannot fire: the coroutine never suspends"
    return "timeout cannot fire: nothing in its body suspends"


def advice(finding: IneffectiveTimeout) -> str:
    """The chain with its locations (for `wait_for`), then what to do."""
    offload = "make the work suspend, usually by offloading it: `await asyncio.to_thread(...)`"
    if finding.timeout.kind == "wait_for":
        chain = describe_chain(finding.chain, finding.ends_in_cycle, finding.ends_without_suspension_point)
        return f"`asyncio.wait_for({finding.timeout.text}, ...)`: {chain}; {offload}"
    return f"the body of `async with {finding.timeout.text}` always runs to the end; {offload}"
