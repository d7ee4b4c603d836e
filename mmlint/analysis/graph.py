"""The resolved call graph (`mmlint graph`), in PyCG's format: every def and
every module body of the scan, each with the defs its calls may run.

A name is module-qualified (``pkg.mod.Class.method``; a nested def drops
``<locals>``: ``pkg.mod.outer.inner``) and a module's own body is the module
itself (``pkg.mod``). Each call is resolved by the project's Resolver, as the
rules see it: names through imports and re-exports, ``self.``/``cls.`` with
dispatch over scanned subclasses, ``super()`` along the MRO, and everything
else through the provenance layer (mmlint.analysis.values). A call of a
class runs its ``__init__``; of an instance, its ``__call__``. A callee outside
the scan is named by where it comes from (``ext.function``) when that is an
imported name; a builtin, or a value of unknown origin, is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from mmlint.analysis.resolve import Resolver
from mmlint.analysis.values import Place, ref_path
from mmlint.core.knowledge import UNKNOWN_ORIGIN
from mmlint.facts.model import DOTTED, NAME, SUPER, UNKNOWN, CalleeKind, CalleeRef, FileFacts

Graph = dict[str, list[str]]


def call_graph(files: Mapping[str, FileFacts], module_names: Callable[[FileFacts], str] | None = None) -> Graph:
    """The graph over ``files`` (display path -> facts); ``module_names``
    names each file's module (default: its dotted module name)."""
    resolver = Resolver(dict(files))
    name_of = module_names or (lambda facts: facts.module)
    modules = {path: name_of(facts) for path, facts in files.items()}
    lambdas = {path: _lambda_names(facts) for path, facts in files.items()}

    def sync_name(key: tuple[str, int]) -> str:
        return _qualified(modules[key[0]], _shown(files[key[0]].sync_defs[key[1]].qualname, lambdas[key[0]]))

    def async_name(key: tuple[str, int]) -> str:
        return _qualified(modules[key[0]], files[key[0]].async_defs[key[1]].qualname)

    graph: Graph = {}
    for path, facts in sorted(files.items(), key=lambda item: modules[item[0]]):
        module = modules[path]
        graph.setdefault(module, []).extend(
            _edges(resolver, facts, None, None, "", (c.callee for c in facts.module_calls), sync_name, async_name)
        )
        for info in facts.sync_defs:
            if info.decorators:  # applied where the def is: by the enclosing def, else the module's body
                enclosing = [part for part in info.owner[:-1] if part.kind != "class"]
                where = (
                    next((d for d in facts.sync_defs if d.owner == info.owner[: len(info.owner) - 1]), None)
                    if enclosing
                    else None
                )
                kind: tuple[CalleeKind, CalleeKind] = (
                    (NAME, DOTTED) if where is None else (UNKNOWN, UNKNOWN)
                )  # its locals
                refs = [CalleeRef(kind["." in text], text) for text in info.decorators if text != "<expr>"]
                scope = where.qualname if where is not None else ""
                graph.setdefault(_qualified(module, scope) if scope else module, []).extend(
                    _edges(resolver, facts, None, None, scope, refs, sync_name, async_name)
                )
            graph.setdefault(_qualified(module, _shown(info.qualname, lambdas[path])), []).extend(
                _edges(
                    resolver,
                    facts,
                    info.class_name,
                    info.name,
                    info.qualname,
                    (c.callee for c in info.calls),
                    sync_name,
                    async_name,
                )
            )
        for fact in facts.values:
            if fact.kind == "implicit":
                holder = _shown(fact.holder, lambdas[path])
                graph.setdefault(_qualified(module, holder) if holder else module, []).extend(
                    sync_name(key) for key in _implicit(resolver, facts, fact.holder, fact.name, fact.source)
                )
        for coroutine in facts.async_defs:
            refs = [*(c.callee for c in coroutine.calls), *(a.callee for a in coroutine.awaits if a.callee is not None)]
            graph.setdefault(_qualified(module, coroutine.qualname), []).extend(
                _edges(
                    resolver,
                    facts,
                    coroutine.class_name,
                    coroutine.name,
                    coroutine.qualname,
                    refs,
                    sync_name,
                    async_name,
                )
            )
    return {node: sorted(set(edges)) for node, edges in graph.items()}


def _implicit(resolver: Resolver, facts: FileFacts, scope: str, how: str, path: str) -> list[tuple[str, int]]:
    """The sync defs a call without parentheses runs (mmlint.facts.model.ValueKind
    "implicit"): ``raise E``, E's ``__init__``; ``for x in c``, c's ``__iter__``
    and the ``__next__`` of what that returns."""
    located = next((d for d in facts.sync_defs if d.qualname == scope), None) if scope else None
    place = Place(facts.path, located.class_name if located else None, scope)
    found: list[tuple[str, int]] = []
    if how == "raise":
        for atom in resolver.values.of(place, path).atoms:
            init = resolver.lookup_sync_method(atom[1], "__init__") if atom[0] == "class" else None  # type: ignore[arg-type]
            if init is not None:
                found.append(init)
        return found
    for text in (f"{path}.__iter__", f"{path}.__iter__().__next__"):
        found.extend(
            (str(atom[1]), int(atom[3]))  # type: ignore[call-overload]
            for atom in resolver.values.of(place, text).atoms
            if atom[0] == "def" and not atom[2]
        )
    return found


def _lambda_names(facts: FileFacts) -> dict[str, str]:
    """PyCG's names of a file's lambdas (mmlint.facts.values.lambda_name):
    ``<lambda1>``, ``<lambda2>``... in each scope, in source order."""
    by_scope: dict[str, list[tuple[int, int, str]]] = {}
    for info in facts.sync_defs:
        if info.name.startswith("<lambda@"):
            line, _, column = info.name[len("<lambda@") : -1].partition(":")
            by_scope.setdefault(info.qualname.rpartition(".")[0], []).append((int(line), int(column), info.qualname))
    return {
        qualname: f"<lambda{number}>"
        for found in by_scope.values()
        for number, (_, _, qualname) in enumerate(sorted(found), 1)
    }


def _shown(qualname: str, lambdas: dict[str, str]) -> str:
    """A qualname with its lambdas named as PyCG names them."""
    if "<lambda@" not in qualname:
        return qualname
    parts = qualname.split(".")
    return ".".join(lambdas.get(".".join(parts[: i + 1]), part) for i, part in enumerate(parts))


def _qualified(module: str, qualname: str) -> str:
    return f"{module}.{qualname.replace('.<locals>', '')}" if module else qualname.replace(".<locals>", "")


def _edges(
    resolver: Resolver,
    facts: FileFacts,
    class_name: str | None,
    method: str | None,
    scope: str,
    refs: Iterable[CalleeRef],
    sync_name: Callable[[tuple[str, int]], str],
    async_name: Callable[[tuple[str, int]], str],
) -> list[str]:
    found: list[str] = []
    for ref in dict.fromkeys(refs):
        call = resolver.resolve_sync_call(facts, class_name, ref, method, scope or None)
        found.extend(sync_name(key) for key in call.targets)
        if call.coroutine or not call.complete:
            found.extend(
                async_name(key)
                for key in resolver.resolve_callee(facts, class_name, ref, method, scope or None).targets
            )
        if not call.targets and not call.complete and ref.kind != SUPER:
            found.extend(_external(resolver, facts, class_name, scope, ref))
    return found


def _external(resolver: Resolver, facts: FileFacts, class_name: str | None, scope: str, ref: CalleeRef) -> list[str]:
    """A callee outside the scan, by the imported name it comes from."""
    text = ref_path(ref)
    if text is None or (ref.kind not in (NAME, DOTTED) and "(" in text):
        return []
    value = resolver.values.of(Place(facts.path, class_name, scope), text)
    names = []
    for atom in value.atoms:
        if atom[0] != "library":
            continue
        provenance = str(atom[1])
        if provenance.startswith(UNKNOWN_ORIGIN) or "(" in provenance or "[" in provenance:
            continue
        if not _imported(facts, provenance.split(".", 1)[0], ref.text.split(".", 1)[0]):
            continue
        names.append(provenance)
    return names


def _imported(facts: FileFacts, head: str, local: str) -> bool:
    """Whether the provenance comes from an import (not a builtin name)."""
    return any(fact.target.split(".", 1)[0] == head for fact in facts.imports) or any(
        fact.local == local for fact in facts.imports
    )
