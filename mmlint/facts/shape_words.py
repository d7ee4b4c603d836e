"""The words the shape judgements go by, without a parser: the libcst
collector (mmlint.facts.collect) and the stdlib-`ast` one (mmlint.facts.light)
judge by the same ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# Decorators that register a def as a web route (FastAPI, Starlette, Flask-style),
# by the last part of their dotted name.
ROUTE_DECORATORS = frozenset(
    {"get", "post", "put", "delete", "patch", "head", "options", "api_route", "route", "websocket"}
)
# Calls that run what they are given as a coroutine, on a loop or as a
# framework hook: an async def handed to one must stay a coroutine.
HANDOFF_CONSUMERS = frozenset(
    {
        "run_coroutine_threadsafe",
        "call_soon_threadsafe",
        "add_exception_handler",
        "add_middleware",
        "add_api_route",
        "add_route",
        "add_websocket_route",
        "add_event_handler",
        "Depends",
        "Security",
        "exception_handler",
        "middleware",
        "on_event",
        "register_hook",
        "add_hook",
        "add_callback",
        "add_done_callback",
        "register_callback",
        "create_task",
        "ensure_future",
    }
)
# A program's main coroutine, run to completion on a loop of its own
# (`asyncio.run(main())`, `uvloop.run(...)`, `trio.run(main)`, `anyio.run(main)`,
# `loop.run_until_complete(main())`): recorded as handed to PROGRAM_MAIN, one
# consumer for all. `run` counts only on one of these modules, by name.
PROGRAM_RUNNER_MODULES = frozenset({"asyncio", "uvloop", "trio", "anyio"})
PROGRAM_MAIN = "asyncio.run"
# Wrappers whose name says they offload: an assignment through one of these
# (or a configured one, checked in mmlint.analysis.twins) may define a twin.
OFFLOAD_HINTS = ("async", "thread", "executor", "offload")
BOUNDED_WRAPPERS = frozenset({"enumerate", "zip", "reversed", "sorted", "list", "tuple", "set"})


def is_constant_name(text: str) -> bool:
    """``NAMES``, ``self.LABELS``, ``cls._FIELDS``: a module or class constant by convention."""
    last = text.rsplit(".", 1)[-1].lstrip("_")
    return (
        bool(last)
        and last.isupper()
        and (text.count(".") == 0 or text.split(".", 1)[0] in ("self", "cls") or text.count(".") == 1)
    )


# `raise NotImplementedError` in a body that only stands for an implementation.
NOT_IMPLEMENTED = ("NotImplementedError", "builtins.NotImplementedError")


def is_bounded_slice(
    lower: T | None, upper: T | None, is_constant: Callable[[T], bool], is_negative: Callable[[T], bool]
) -> bool:
    """``[-K:]``, ``[:K]``, ``[J:K]`` with constant bounds of one sign: at most K
    items, whatever the sliced sequence's length (the syntax tree's own
    judgements of a bound passed in: libcst's and stdlib ast's differ)."""
    if lower is not None and not is_constant(lower):
        return False
    if upper is not None and not is_constant(upper):
        return False
    if lower is None:
        return upper is not None and not is_negative(upper)
    if upper is None:
        return is_negative(lower)
    return is_negative(lower) == is_negative(upper)
