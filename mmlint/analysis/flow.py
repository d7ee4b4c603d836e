"""Path analysis over the control-flow IR of one async def.

The abstract state at a program point is a two-bit set: SUSPENDED (some path
reaching this point has passed a suspension point) and NOT_SUSPENDED (some path
reaching it has not). A function suspends on every path when only SUSPENDED
reaches its exits, never when only NOT_SUSPENDED does, on some paths otherwise.
Reachability is over-approximated (an exception handler may be entered from
anywhere in its try body), which can only turn "always"/"never" into "some":
the analysis errs towards not reporting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

from mmlint.facts.ir import (
    AsyncLoopOrContext,
    AwaitPoint,
    Branch,
    Exit,
    Jump,
    Loop,
    Node,
    Seq,
    Try,
)

NOT_SUSPENDED = 1
SUSPENDED = 2

# Whether an async def suspends on every path, on some, or on none.
Verdict = Literal["always", "some", "never"]
ALWAYS: Final = "always"
SOME: Final = "some"
NEVER: Final = "never"
# A verdict, or "not judged" for an interface-only def (mmlint.analysis.NOT_JUDGED).
Judgement = Verdict | Literal["not judged"]


def apply_verdict(verdict: Verdict, states: int) -> int:
    """The states after passing a point that suspends ``verdict``."""
    if not states:
        return 0
    if verdict == ALWAYS:
        return SUSPENDED
    if verdict == SOME:
        return states | SUSPENDED
    return states


def verdict_of(states: int) -> Verdict:
    if states == SUSPENDED:
        return ALWAYS
    if states & SUSPENDED:
        return SOME
    return NEVER


@dataclass
class _Flow:
    """States leaving a region other than by falling through."""

    exits: int = 0
    breaks: int = 0
    continues: int = 0


def run_body(body: Node, await_effect: Callable[[int, int], int]) -> int:
    """The states with which a function body completes (falls off the end,
    returns or raises), starting not suspended. ``await_effect(index, states)``
    gives the states after the await with that index."""
    flow = _Flow()
    end = _run(body, NOT_SUSPENDED, flow, await_effect) | flow.exits | flow.breaks | flow.continues
    return end or NOT_SUSPENDED


def _run(node: Node, states: int, flow: _Flow, await_effect: Callable[[int, int], int]) -> int:
    if isinstance(node, Seq):
        for item in node.items:
            states = _run(item, states, flow, await_effect)
        return states
    if isinstance(node, AwaitPoint):
        return await_effect(node.index, states) if states else 0
    if isinstance(node, AsyncLoopOrContext):
        return apply_verdict(ALWAYS, states)
    if isinstance(node, Exit):
        flow.exits |= states
        return 0
    if isinstance(node, Jump):
        if node.kind == "break":
            flow.breaks |= states
        else:
            flow.continues |= states
        return 0
    if isinstance(node, Branch):
        result = 0
        for arm in node.arms:
            result |= _run(arm, states, flow, await_effect)
        return result
    if isinstance(node, Loop):
        return _run_loop(node, states, flow, await_effect)
    if isinstance(node, Try):
        return _run_try(node, states, flow, await_effect)
    raise TypeError(f"unknown IR node {node!r}")


def _run_loop(node: Loop, states: int, flow: _Flow, await_effect: Callable[[int, int], int]) -> int:
    head = states
    while True:  # at most a few rounds: the state has two bits
        inner = _Flow()
        after_body = _run(node.body, head, inner, await_effect)
        flow.exits |= inner.exits
        new_head = head | after_body | inner.continues
        if new_head == head:
            break
        head = new_head
    if node.infinite:
        # Leaves only through break; with no break the code after it is
        # unreachable, and we keep the states of the iterations for the verdict.
        return inner.breaks if inner.breaks else (after_body | inner.continues)
    return _run(node.orelse, head, flow, await_effect) | inner.breaks


def _run_try(node: Try, states: int, flow: _Flow, await_effect: Callable[[int, int], int]) -> int:
    inner = _Flow()
    after_body = _run(node.body, states, inner, await_effect)
    normal = _run(node.orelse, after_body, inner, await_effect)
    handler_entry = states | after_body | inner.exits
    for handler in node.handlers:
        normal |= _run(handler, handler_entry, inner, await_effect)
    if node.finalbody == Seq(()):
        flow.exits |= inner.exits
        flow.breaks |= inner.breaks
        flow.continues |= inner.continues
        return normal
    # Everything leaving the try passes through finally.
    flow.exits |= _run(node.finalbody, inner.exits, flow, await_effect)
    flow.breaks |= _run(node.finalbody, inner.breaks, flow, await_effect)
    flow.continues |= _run(node.finalbody, inner.continues, flow, await_effect)
    return _run(node.finalbody, normal, flow, await_effect)
