"""Where an async def must stay a coroutine, and the advice that fits there.

A coroutine a framework or another thread runs as a coroutine cannot become a
plain `def` (its caller awaits it) and cannot be moved whole to a thread (it
must run on its loop): only its heavy call can be offloaded. A web route is
the one context where a plain `def` is a fix (the framework runs it in its
threadpool), and only when its heavy work is safe to run on a worker thread.
"""

from __future__ import annotations

from mmlint.analysis.resolve import DefKey, Resolver
from mmlint.facts.model import AsyncDef, FileFacts

ROUTE = "route"
EXCEPTION_HANDLER = "exception handler"
MIDDLEWARE = "middleware"
DEPENDENCY = "dependency"
LOOP_HANDOFF = "coroutine run on another loop"
CALLBACK = "callback"
PROTOCOL = "async protocol method"
ACTOR_INIT = "actor `async __init__`"
OVERRIDE = "override of an async method"

# Decorators that register an async def as a web route (FastAPI, Starlette, Flask-style).
ROUTE_DECORATORS = frozenset({"get", "post", "put", "delete", "patch", "head", "options", "api_route", "route", "websocket"})
_DECORATOR_CONTEXTS = {"exception_handler": EXCEPTION_HANDLER, "middleware": MIDDLEWARE, "on_event": CALLBACK}
_HANDOFF_CONTEXTS = {
    "add_exception_handler": EXCEPTION_HANDLER, "exception_handler": EXCEPTION_HANDLER,
    "add_middleware": MIDDLEWARE, "middleware": MIDDLEWARE, "Depends": DEPENDENCY, "Security": DEPENDENCY,
    "add_api_route": ROUTE, "add_route": ROUTE, "add_websocket_route": ROUTE,
    "run_coroutine_threadsafe": LOOP_HANDOFF, "call_soon_threadsafe": LOOP_HANDOFF,
}
PROTOCOL_METHODS = frozenset({"__aenter__", "__aexit__", "__anext__", "__await__", "__call__"})


def decorator_context(info: AsyncDef) -> str:
    for text in info.opaque_decorators:
        last = text.rsplit(".", 1)[-1] if "." in text else ""
        if last in ROUTE_DECORATORS:
            return ROUTE
        if last in _DECORATOR_CONTEXTS:
            return _DECORATOR_CONTEXTS[last]
    return ""


class Contexts:
    """The must-be-a-coroutine context of each async def of a scan ("" for none)."""

    def __init__(self, files: dict[str, FileFacts], resolver: Resolver) -> None:
        self.files = files
        self.resolver = resolver
        self.handed: dict[str, str] = {}
        for facts in files.values():
            for name, consumer in facts.handed_coroutines:
                self.handed.setdefault(name, _HANDOFF_CONTEXTS.get(consumer, CALLBACK))

    def of(self, key: DefKey, info: AsyncDef) -> str:
        context = decorator_context(info)
        if context:
            return context
        if info.name in self.handed:
            return self.handed[info.name]
        if info.class_name is not None:
            if info.name == "__init__":
                return ACTOR_INIT
            if info.name in PROTOCOL_METHODS:
                return PROTOCOL
            base = self.resolver.lookup_method((key[0], info.class_name), info.name, after=True)
            if base is not None:
                return OVERRIDE
        return ""


def advice(context: str, is_method: bool, costliest: str) -> str:
    """What to do about a heavy coroutine that never suspends, for its context."""
    offload = f"offload {costliest} (`await asyncio.to_thread(...)`)" if costliest else "offload the heavy call (`await asyncio.to_thread(...)`)"
    if context == ROUTE:
        return f"{offload}, or make the route a plain `def` if that work is safe on a worker thread"
    if context:
        return f"keep it a coroutine ({context}) and {offload}"
    if is_method:
        return f"keep it `async` and {offload}"
    return f"{offload}, or make it a plain `def` if no caller needs a coroutine"
