"""Where an async def must stay a coroutine, and the advice that fits there.

A coroutine a framework or another thread runs as a coroutine cannot become a
plain `def` (its caller awaits it) and cannot be moved whole to a thread (it
must run on its loop): only its heavy call can be offloaded. A web route is
the one context where a plain `def` is a fix (FastAPI and Starlette run a
plain `def` route in their threadpool), and only when its heavy work is safe
to run on a worker thread.

Each context comes from what makes it so, never from a name that matches
elsewhere: a route or handler decorator on the def; a decorator on it or on
its class, resolved through the file's imports (mmlint.facts.ray_entry: Ray
Serve's `@serve.deployment`, whose replica runs the function or every
method of the class on its event loop, the sync ones too, so those are
MM005's roots as well; a Ray actor's `@ray.remote`, whose async methods are
actor methods); a base class on its
class's hierarchy (an `xoscar` actor, `xo.StatelessActor` / `xo.Actor`: its
async methods are actor methods, run on the actor pool's loop, never routes;
a generated gRPC `*Servicer` base from a `*_pb2_grpc` module: its methods are
the server's entry points); a hand-off (`add_api_route(path, f)`,
`run_coroutine_threadsafe(self.f(), loop)`), which names a method only when
made in the method's own file and no module-level function there has that name.

Three contexts run once per process or per actor: a start-up or shutdown hook
(`@app.on_event(...)`, `add_event_handler`, a `lifespan=` function), an
actor's lifecycle hooks (`__post_create__`, `__pre_destroy__`), and a
program's main coroutine (`asyncio.run(main())`, `uvloop.run(...)`,
`loop.run_until_complete(...)`): its straight-line code runs once, though
what it repeats in a loop does not (mmlint.analysis.weight.once_only).
"""

from __future__ import annotations

from mmlint.analysis.resolve import DefKey, DefSymbol, External, Resolver
from mmlint.facts.model import AsyncDef, ClassInfo, FileFacts
from mmlint.facts.ray_entry import (
    ONCE_PER_REPLICA,
    RAY_REMOTE,
    SERVE_DEPLOYMENT,
    decorated_by,
    deployed_by_call,
    resolves_to,
)
from mmlint.facts.shape_words import PROGRAM_MAIN, ROUTE_DECORATORS

ROUTE = "route"
EXCEPTION_HANDLER = "exception handler"
MIDDLEWARE = "middleware"
DEPENDENCY = "dependency"
LOOP_HANDOFF = "coroutine run on another loop"
CALLBACK = "callback"
PROTOCOL = "async protocol method"
ACTOR_INIT = "actor `async __init__`"
OVERRIDE = "override of an async method"
ACTOR_METHOD = "actor method"
SERVICER = "gRPC servicer method"
DEPLOYMENT = "Ray Serve deployment method"
STARTUP = "start-up or shutdown hook"
ACTOR_LIFECYCLE = "actor lifecycle hook"
MAIN = "the program's main coroutine"
# Contexts that run once per process or per actor, never per request: what
# runs only there is not the loop's per-request cost (WeightAnalysis.once_only).
ONCE_CONTEXTS = frozenset({STARTUP, ACTOR_LIFECYCLE, MAIN})
# An `xoscar` actor's hooks, run once when the actor is created and destroyed.
ACTOR_HOOKS = frozenset({"__post_create__", "__pre_destroy__"})

# Bases that make a class an actor, by their last name, when imported from `xoscar`.
ACTOR_BASES = frozenset({"StatelessActor", "Actor"})

# `on_event` takes only "startup" and "shutdown" (FastAPI, Starlette).
_DECORATOR_CONTEXTS = {"exception_handler": EXCEPTION_HANDLER, "middleware": MIDDLEWARE, "on_event": STARTUP}
_HANDOFF_CONTEXTS = {
    "add_exception_handler": EXCEPTION_HANDLER,
    "exception_handler": EXCEPTION_HANDLER,
    "add_middleware": MIDDLEWARE,
    "middleware": MIDDLEWARE,
    "Depends": DEPENDENCY,
    "Security": DEPENDENCY,
    "add_api_route": ROUTE,
    "add_route": ROUTE,
    "add_websocket_route": ROUTE,
    "run_coroutine_threadsafe": LOOP_HANDOFF,
    "call_soon_threadsafe": LOOP_HANDOFF,
    "add_event_handler": STARTUP,
    "lifespan": STARTUP,  # `FastAPI(lifespan=f)`
    PROGRAM_MAIN: MAIN,
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


def base_context(base: str, facts: FileFacts) -> str:
    """The context a base class, as written in ``facts``' module, gives its
    subclasses' methods: an `xoscar` actor, a generated gRPC servicer."""
    head = base.split(".", 1)[0]
    last = base.rsplit(".", 1)[-1]
    origin = next((fact.target for fact in facts.imports if fact.local == head), "")
    if last in ACTOR_BASES and (origin == "xoscar" or origin.startswith("xoscar.")):
        return ACTOR_METHOD
    if last.endswith("Servicer") and last != "Servicer" and ("pb2_grpc" in origin or "pb2_grpc" in base):
        return SERVICER
    return ""


def decorated_class_context(info: ClassInfo, facts: FileFacts) -> str:
    """The context a class's own decorator, resolved through ``facts``'
    imports, gives its methods: a Ray Serve deployment's (its async methods
    are coroutines on the replica's loop), a Ray actor's (`@ray.remote`: its
    async methods are actor methods on the actor's loop)."""
    if decorated_by(info, facts.imports, SERVE_DEPLOYMENT) or info.name in deployed_by_call(facts.values, facts.imports):
        return DEPLOYMENT
    if decorated_by(info, facts.imports, RAY_REMOTE):
        return ACTOR_METHOD
    return ""


class Contexts:
    """The must-be-a-coroutine context of each async def of a scan ("" for none)."""

    def __init__(self, files: dict[str, FileFacts], resolver: Resolver) -> None:
        self.files = files
        self.resolver = resolver
        self.handed: dict[str, str] = {}  # by the function's last name, from any file
        self.handed_in: dict[tuple[str, str], str] = {}  # by (file, name): what a method may be
        # A program's main only in the runner's own file, or the def the
        # runner's file imports under that name: a test's
        # `asyncio.run(process(...))` says nothing of another file's
        # `process` it does not import.
        self.mains: set[tuple[str, str]] = set()
        for path, facts in files.items():
            for name, consumer in facts.handed_coroutines:
                context = _HANDOFF_CONTEXTS.get(consumer, CALLBACK)
                if context == MAIN:
                    self.mains.add((path, name))
                    self.mains.update(self._imported_defs(path, facts, name))
                    continue
                self.handed.setdefault(name, context)
                self.handed_in.setdefault((path, name), context)

    def _imported_defs(self, path: str, facts: FileFacts, name: str) -> list[tuple[str, str]]:
        """(file, name) of the async defs of other files that ``name`` is
        imported as in ``path``, at module level or in a def
        (``from .host import serve`` then ``asyncio.run(serve(...))``): the
        runner's import names the def, so it is that def's main, not any
        `serve`'s."""
        symbols = [self.resolver.resolve_name(path, name)]
        symbols += [
            self.resolver.resolve_import(fact.source, fact.keys)
            for fact in facts.values
            if fact.kind == "import" and fact.name == name
        ]
        found = []
        for symbol in symbols:
            if isinstance(symbol, DefSymbol) and symbol.key[0] != path:
                target = self.files[symbol.key[0]].async_defs[symbol.key[1]]
                found.append((symbol.key[0], target.name))
        return found

    def of(self, key: DefKey, info: AsyncDef) -> str:
        context = decorator_context(info)
        if context:
            return context
        if info.class_name is None:
            if self._deploys(key[0], info.opaque_decorators, info):
                return DEPLOYMENT  # a function deployment: the replica runs it on its loop
            # Its own file's hand-off first; another file's by name only for a
            # def another file can name (a nested def cannot be imported).
            own = self.handed_in.get((key[0], info.name)) or (MAIN if (key[0], info.name) in self.mains else "")
            return own or ("" if "<locals>" in info.qualname else self.handed.get(info.name, ""))
        if info.name == "__init__":
            return ACTOR_INIT
        context = self.class_context(key[0], info.class_name)
        if (context == ACTOR_METHOD and info.name in ACTOR_HOOKS) or (
            context == DEPLOYMENT and info.name in ONCE_PER_REPLICA
        ):
            return ACTOR_LIFECYCLE  # a replica's `async def reconfigure`: once per configuration change
        if context:
            return context
        facts = self.files.get(key[0])
        if facts is not None and info.name not in facts.functions:
            if (key[0], info.name) in self.handed_in:
                return self.handed_in[(key[0], info.name)]
            if (key[0], info.name) in self.mains:
                return MAIN
        if info.name in PROTOCOL_METHODS:
            return PROTOCOL
        base = self.resolver.lookup_method((key[0], info.class_name), info.name, after=True)
        if base is not None:
            return OVERRIDE
        return ""

    def _deploys(self, path: str, decorators: tuple[str, ...], info: AsyncDef) -> bool:
        """Whether a module-level async def is a function deployment: decorated, or deployed by a call."""
        facts = self.files.get(path)
        if facts is None or len(info.owner) != 1:
            return False
        return (bool(decorators) and resolves_to(decorators, facts.imports, SERVE_DEPLOYMENT)) or (
            info.name in deployed_by_call(facts.values, facts.imports)
        )

    def class_context(self, path: str, class_name: str) -> str:
        """The context a class's decorator (a Ray Serve deployment, a Ray
        actor) or hierarchy (actor, servicer) gives its methods, or ""."""
        key = (path, class_name)
        if key not in self.resolver.classes:
            return ""
        facts, own = self.resolver.classes[key]
        context = decorated_class_context(own, facts)
        if context:
            return context
        for entry in self.resolver.mro(key):
            if isinstance(entry, External):
                continue
            facts, info = self.resolver.classes[entry]
            for base in info.bases:
                context = base_context(base, facts)
                if context:
                    return context
        return ""


def advice(context: str, is_method: bool, costliest: str) -> str:
    """What to do about a heavy coroutine that never suspends, for its context."""
    offload = (
        f"offload {costliest} (`await asyncio.to_thread(...)`)"
        if costliest
        else "offload the heavy call (`await asyncio.to_thread(...)`)"
    )
    if context == ROUTE:
        return f"{offload}, or make the route a plain `def` if that work is safe on a worker thread"
    if context == ACTOR_METHOD:
        return f"keep it a coroutine (actor method: the actor's other calls wait on its loop meanwhile) and {offload}"
    if context:
        return f"keep it a coroutine ({context}) and {offload}"
    if is_method:
        return f"keep it `async` and {offload}"
    return f"{offload}, or make it a plain `def` if no caller needs a coroutine"
