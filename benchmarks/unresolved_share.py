"""The share of calls whose callee mmlint cannot resolve, inside async defs
and the sync chains they reach (issue 39), on a package (default: vLLM
0.33.0's whole package from the ecosystem cache).

    PYTHONPATH=<checkout> python benchmarks/unresolved_share.py [--why] [PACKAGE_DIR]

Run it with PYTHONPATH pointing at different checkouts to compare them (it
uses only mmlint.api and the Resolver's resolve_sync_call, which every
release since typed receivers' predecessor has). A call is resolved when it
runs scanned code (sync defs, a class's __init__, a coroutine function), is
known to run none (a scanned class without __init__), or is named outside the
scan: through an import (``time.sleep``) or a library value's provenance
(``requests.Session()::get``). Each sync def reached counts once.

``--why`` also prints the unresolved calls by cause: the first reason the
resolver gives (SyncCall.why, its quoted names left out), or the callee's
kind when it gives none.
"""

from __future__ import annotations

import inspect
import os
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path


def _package() -> Path:
    return (
        Path(os.environ.get("MMLINT_ECOSYSTEM_CACHE", Path.home() / ".cache" / "mmlint-ecosystem"))
        / "vllm-0.33.0-full"
        / "vllm"
    )


def count(package: Path, causes: Counter[str] | None = None) -> tuple[dict[str, list[int]], int]:
    """Per kind ("async", "sync"): [calls, unresolved]; and how many sync
    defs are reached. ``causes``, when given, counts the unresolved calls by cause."""
    from mmlint.api import check

    with tempfile.TemporaryDirectory() as empty:
        config = Path(empty) / "mmlint.toml"
        config.write_text("", encoding="utf-8")
        report = check([package], cwd=package.parent, config=config)
    project = report.project
    resolver = getattr(project, "resolver", None)
    if resolver is None:  # before the Project kept one
        from mmlint.analysis.resolve import Resolver

        resolver = Resolver(project.files)
    takes_scope = "scope" in inspect.signature(resolver.resolve_sync_call).parameters

    def resolve(facts, class_name, ref, method, scope):  # type: ignore[no-untyped-def]
        if takes_scope:
            return resolver.resolve_sync_call(facts, class_name, ref, method, scope)
        return resolver.resolve_sync_call(facts, class_name, ref, method)

    def is_resolved(call, dotted: str, ref) -> bool:  # type: ignore[no-untyped-def]
        if call.targets or call.coroutine or call.complete or getattr(call, "library", ()):
            return True
        if ref.kind in ("name", "dotted") and dotted != ref.text and not dotted.startswith("<"):
            return True
        if causes is not None:
            why = getattr(call, "why", "")
            causes[re.sub(r"`[^`]*`", "`…`", why) if why else f"(no reason given: a callee of kind {ref.kind})"] += 1
        return False

    counts = {"async": [0, 0], "sync": [0, 0]}  # calls, unresolved
    reached: set[tuple[str, int]] = set()
    todo: list[tuple[str, int]] = []
    for path in sorted(project.targets):
        facts = project.files.get(path)
        if facts is None:
            continue
        for info in facts.async_defs:
            method = info.name if info.class_name else None
            for fact in info.calls:
                call = resolve(facts, info.class_name, fact.callee, method, info.qualname)
                counts["async"][0] += 1
                counts["async"][1] += not is_resolved(call, fact.dotted, fact.callee)
                todo.extend(call.targets)
    while todo:
        key = todo.pop()
        if key in reached or key[0] not in project.files:
            continue
        reached.add(key)
        facts = project.files[key[0]]
        info = facts.sync_defs[key[1]]
        method = info.name if info.class_name else None
        for ref_fact in info.calls:
            call = resolve(facts, info.class_name, ref_fact.callee, method, info.qualname)
            counts["sync"][0] += 1
            counts["sync"][1] += not is_resolved(call, ref_fact.dotted, ref_fact.callee)
            todo.extend(call.targets)
    return counts, len(reached)


def main(argv: list[str]) -> int:
    why = "--why" in argv
    argv = [arg for arg in argv if arg != "--why"]
    causes: Counter[str] = Counter()
    counts, reached = count(Path(argv[0]) if argv else _package(), causes if why else None)
    total = counts["async"][0] + counts["sync"][0]
    unresolved = counts["async"][1] + counts["sync"][1]
    print(f"mmlint from {Path(sys.modules['mmlint'].__file__ or '').parent.parent}")
    print(
        f"calls in async defs: {counts['async'][0]}, unresolved {counts['async'][1]} ({counts['async'][1] / max(1, counts['async'][0]):.1%})"
    )
    print(
        f"calls in the {reached} sync defs they reach: {counts['sync'][0]}, unresolved {counts['sync'][1]} ({counts['sync'][1] / max(1, counts['sync'][0]):.1%})"
    )
    print(f"unresolved share: {unresolved} of {total} ({unresolved / max(1, total):.1%})")
    if why:
        print("unresolved calls by cause:")
        for cause, calls in causes.most_common(15):
            print(f"  {calls:5d}  {cause}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
