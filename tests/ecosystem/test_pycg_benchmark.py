"""PyCG's call-graph micro-benchmark (the `pycg==0.0.8` sdist's
`micro-benchmark/snippets`, 118 programs in 18 categories): `mmlint graph` on
each, precision and recall over all edges, overall and per category. Edges into
builtins and the standard library (`<builtin>.len`, `<**PyStr**>.join`) are
left out of both sides: mmlint names no builtin. `pytest -s` prints the table
(so does `python benchmarks/pycg_benchmark.py`).

Measured (issue 39): overall 99.2 % precision, 94.4 % recall (PyCG's paper:
99.2 % / 69.9 %; the issue's targets were 99 % / 85 %; first measured 96.0 % /
77.2 %). The floors sit just below, so a regression fails. What is missed:
builtins' callbacks (`map`), `eval`, members of classes outside the scan
(`ext.Cls.fun`), a decorator that is a call's result applied, a slice of a
list; the two extra edges are a list indexed by a value the run cannot know
(an import, a parameter), which PyCG reads as one element.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .releases import pycg_snippets

pytestmark = [pytest.mark.ecosystem, pytest.mark.slow]

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from pycg_benchmark import score_all, table, totals  # noqa: E402

OVERALL_PRECISION, OVERALL_RECALL = 0.99, 0.94
# Per category: (precision, recall) floors, just below what was measured.
FLOORS = {
    "args": (1.0, 1.0), "assignments": (1.0, 1.0), "builtins": (1.0, 0.2), "classes": (1.0, 1.0),
    "decorators": (1.0, 0.9), "dicts": (1.0, 1.0), "direct_calls": (1.0, 1.0), "dynamic": (1.0, 0.0),
    "exceptions": (1.0, 1.0), "external": (1.0, 0.63), "functions": (1.0, 1.0), "generators": (1.0, 1.0),
    "imports": (1.0, 0.92), "kwargs": (1.0, 1.0), "lambdas": (1.0, 1.0), "lists": (0.85, 0.92),
    "mro": (1.0, 0.93), "returns": (1.0, 1.0),
}  # fmt: skip


@pytest.fixture(scope="module")
def scores() -> dict:  # type: ignore[type-arg]
    import os

    os.environ.setdefault("MMLINT_NO_CACHE", "1")
    snippets = pycg_snippets()
    return score_all(snippets)


def test_the_benchmark_holds_118_programs(scores: dict) -> None:  # type: ignore[type-arg]
    assert sum(len(programs) for programs in scores.values()) == 118
    assert set(scores) == set(FLOORS)


def test_precision_and_recall_stay_above_the_floors(scores: dict) -> None:  # type: ignore[type-arg]
    print()
    print(table(scores))
    per_category, overall = totals(scores)
    assert overall.precision >= OVERALL_PRECISION and overall.recall >= OVERALL_RECALL, table(scores)
    below = {
        category: (round(total.precision, 3), round(total.recall, 3))
        for category, total in per_category.items()
        if total.precision < FLOORS[category][0] or total.recall < FLOORS[category][1]
    }
    assert not below, table(scores)
