"""The control-flow IR of one async def's own body.

Leaves are suspension points and exits; the rest is structure. Plain frozen
dataclasses in tuples, so the IR is data: cached, sent between processes and
compared like any other fact. mmlint.analysis.flow runs paths over it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from mmlint.core.pickling import pickles_by_fields


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class AwaitPoint:
    """`await <expr>`: suspends iff the awaited callee does (index into the def's awaits)."""

    index: int


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class AsyncLoopOrContext:
    """`async for` / `async with`: always a suspension point."""

    kind: str  # "async for" | "async with"


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Exit:
    kind: str  # "return" | "raise"


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Jump:
    kind: str  # "break" | "continue"


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Seq:
    items: tuple[Node, ...]


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Branch:
    """Exactly one arm runs (if/elif/else, match cases, a conditional operand);
    a missing else is an empty arm."""

    arms: tuple[Node, ...]


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Loop:
    """`for`/`while`: the body runs zero or more times; an ``infinite`` loop
    (``while True``) runs it at least once and leaves only through ``break``."""

    body: Node
    orelse: Node
    infinite: bool


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Try:
    body: Node
    handlers: tuple[Node, ...]
    orelse: Node
    finalbody: Node


Node = Union[AwaitPoint, AsyncLoopOrContext, Exit, Jump, Seq, Branch, Loop, Try]
EMPTY = Seq(())


def has_suspension_point(node: Node) -> bool:
    """Whether the IR holds any await / async for / async with at all."""
    if isinstance(node, (AwaitPoint, AsyncLoopOrContext)):
        return True
    if isinstance(node, Seq):
        return any(has_suspension_point(item) for item in node.items)
    if isinstance(node, Branch):
        return any(has_suspension_point(arm) for arm in node.arms)
    if isinstance(node, Loop):
        return has_suspension_point(node.body) or has_suspension_point(node.orelse)
    if isinstance(node, Try):
        return any(has_suspension_point(n) for n in (node.body, *node.handlers, node.orelse, node.finalbody))
    return False
