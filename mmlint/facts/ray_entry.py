"""Classes a Ray decorator makes entry points, recognised from the decorator
resolved through the file's module-level imports, never from a bare name:
`@serve.deployment` after `from ray import serve` is a Ray Serve deployment,
a `deployment` imported from anywhere else is not. The call forms at module
level make one too (`Model = serve.deployment(Model)`,
`app = serve.deployment(num_replicas=2)(Model).bind()`), of a class or a
function of the same file, read from the file's argument facts. A handle may
call a method the deployment inherits: those of its bases in the same module
count as its own (a base in another module is not followed).

A deployment's replica runs its sync methods (`__call__` and the methods a
handle calls) on the replica's event loop unless its thread pool is on
(`RAY_SERVE_RUN_SYNC_IN_THREADPOOL=1`), so a blocking call there stalls every
request of the replica: those methods are roots of MM005 as an `async def`
is, and so is a function deployment (`@serve.deployment` on a `def`). `__init__` runs once per replica and `reconfigure` once per
configuration change, not per request (an `async def reconfigure` is a
lifecycle hook, mmlint.analysis.contexts); `_private` helpers are reached, if at
all, through the methods that call them; a property is no handle method; and
in an ingress deployment (`@serve.ingress(app)`) a method with a route
decorator follows FastAPI's rules (a plain `def` route runs in its thread
pool). A `@ray.remote` class is a Ray actor: its async methods are actor
methods on the actor's loop, its sync methods run in the actor's own thread(s).
"""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.facts.model import ClassInfo, FileFacts, ImportFact, ValueFact
from mmlint.facts.shape_words import ROUTE_DECORATORS

SERVE_DEPLOYMENT = frozenset({"ray.serve.deployment", "ray.serve.api.deployment"})
RAY_REMOTE = frozenset({"ray.remote"})

# Methods of a deployment that run once per replica or per configuration
# change, not per request.
ONCE_PER_REPLICA = frozenset({"__init__", "reconfigure"})
# Decorators that make a method something other than a handle's target.
_NOT_HANDLE_METHODS = frozenset({"property", "setter", "getter", "deleter", "cached_property"})


def resolved_decorator(text: str, imports: Iterable[ImportFact]) -> str:
    """A decorator's dotted text with its first name replaced by what the
    module imports under it (`serve.deployment` → `ray.serve.deployment`),
    or "" when no module-level import binds that name."""
    head, dot, rest = text.partition(".")
    origin = next((fact.target for fact in imports if fact.local == head and not fact.anchor), "")
    if not origin:
        return ""
    return f"{origin}{dot}{rest}"


def decorated_by(info: ClassInfo, imports: Iterable[ImportFact], wanted: frozenset[str]) -> bool:
    """Whether one of the class's decorators resolves to one of ``wanted``."""
    return resolves_to(info.decorators, imports, wanted)


def resolves_to(decorators: Iterable[str], imports: Iterable[ImportFact], wanted: frozenset[str]) -> bool:
    """Whether one of ``decorators`` (dotted texts) resolves to one of ``wanted``."""
    facts = tuple(imports)
    return any(resolved_decorator(text, facts) in wanted for text in decorators)


def deployment_classes(
    classes: Iterable[ClassInfo], imports: Iterable[ImportFact], values: Iterable[ValueFact] = ()
) -> frozenset[str]:
    """The (qualified) names of the Ray Serve deployments among ``classes``:
    decorated, or passed to a `serve.deployment` call at module level."""
    facts = tuple(imports)
    infos = tuple(classes)
    called = deployed_by_call(values, facts)
    return frozenset(
        info.name
        for info in infos
        if (info.decorators and decorated_by(info, facts, SERVE_DEPLOYMENT)) or info.name in called
    )


def imports_ray(imports: Iterable[ImportFact]) -> bool:
    """Whether the module imports Ray at all: else nothing in it deploys."""
    return any(fact.target == "ray" or fact.target.startswith("ray.") for fact in imports)


def deployed_by_call(values: Iterable[ValueFact], imports: Iterable[ImportFact]) -> frozenset[str]:
    """The names a module-level `serve.deployment(X)` or
    `serve.deployment(...)(X)` deploys (its first positional argument, a
    plain name: a class or function of the file when one bears it)."""
    facts = tuple(imports)
    if not imports_ray(facts):
        return frozenset()
    return frozenset(
        fact.source
        for fact in values
        if fact.kind == "argument"
        and not fact.context
        and fact.name == "0"
        and fact.source.isidentifier()
        and resolved_decorator(fact.holder.removesuffix("()"), facts) in SERVE_DEPLOYMENT
    )


def is_deployment_function(
    owner_depth: int,
    decorators: tuple[str, ...],
    imports: Iterable[ImportFact],
    name: str = "",
    called: frozenset[str] = frozenset(),
) -> bool:
    """Whether a sync def is a function deployment (`@serve.deployment` on a
    module-level `def`, or its ``name`` among those a call deploys:
    ``called``, deployed_by_call), which the replica runs on its loop as a method."""
    if owner_depth != 1:
        return False
    return name in called or (bool(decorators) and resolves_to(decorators, imports, SERVE_DEPLOYMENT))


def inherited_by_deployments(classes: Iterable[ClassInfo], deployments: frozenset[str]) -> dict[str, frozenset[str]]:
    """The classes of the same module a deployment inherits from (its bases
    named by a plain name, transitively), each with the method names a class
    between it and every deployment defines (which a handle's call of the
    name runs instead). A base in another module is not followed."""
    by_name = {info.name: info for info in classes}
    shadowed: dict[str, frozenset[str]] = {}
    pending = [(name, frozenset(by_name[name].methods)) for name in deployments if name in by_name]
    seen: set[tuple[str, frozenset[str]]] = set()
    while pending:
        name, hidden = pending.pop()
        for base in by_name[name].bases:
            if base not in by_name or base in deployments or (base, hidden) in seen:
                continue
            seen.add((base, hidden))
            # Reached along several paths, a name is hidden only where it is on every one.
            shadowed[base] = hidden & shadowed[base] if base in shadowed else hidden
            pending.append((base, hidden | frozenset(by_name[base].methods)))
    return shadowed


def runs_per_request(name: str, decorators: Iterable[str]) -> bool:
    """Whether a sync method of a deployment, by its name and decorators'
    dotted texts, is one a request runs on the replica's loop."""
    if name in ONCE_PER_REPLICA or (name.startswith("_") and name != "__call__"):
        return False
    for text in decorators:
        last = text.rsplit(".", 1)[-1]
        if last in _NOT_HANDLE_METHODS or ("." in text and last in ROUTE_DECORATORS):
            return False
    return True


def replica_loop_methods(facts: FileFacts) -> tuple[int, ...]:
    """The indices, among ``facts.sync_defs``, of the sync methods of its Ray
    Serve deployments that run on the replica's event loop per request, and
    of its function deployments."""
    if not imports_ray(facts.imports):
        return ()
    called = deployed_by_call(facts.values, facts.imports)
    deployments = deployment_classes(facts.classes, facts.imports, facts.values)
    inherited = inherited_by_deployments(facts.classes, deployments) if deployments else {}
    return tuple(
        index
        for index, info in enumerate(facts.sync_defs)
        if not info.is_stub
        and (
            (
                (
                    info.class_name in deployments
                    or (info.class_name in inherited and info.name not in inherited[info.class_name])
                )
                and runs_per_request(info.name, info.decorators)
            )
            or is_deployment_function(len(info.owner), info.decorators, facts.imports, info.name, called)
        )
    )
