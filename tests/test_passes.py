"""passes_until_stable reaches exactly what the plain passes reach, with
order-dependent visits (the first dependency seen decides), on any graph."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmlint.analysis.passes import passes_until_stable

graphs = st.integers(min_value=1, max_value=12).flatmap(
    lambda size: st.tuples(
        st.just(size),
        st.lists(st.lists(st.integers(0, size - 1), max_size=4), min_size=size, max_size=size),  # each key's callees
        st.sets(st.integers(0, size - 1)),  # the keys that block by themselves
        st.permutations(range(size)),  # the visiting order
    )
)


def _visitor(callees: list[list[int]], seeds: set[int], state: dict[int, tuple[int, ...]], visits: list[int]):
    """A key's state: the chain to a seed, taken through the first callee (in
    order) that has one when the key is visited; a seed's is itself. Then, a
    monotone part: a rank that grows with the longest chain among callees."""

    def visit(key: int) -> bool:
        visits.append(key)
        if key in state:
            return False
        if key in seeds:
            state[key] = (key,)
            return True
        for callee in callees[key]:
            if callee in state:
                state[key] = (key, *state[callee])
                return True
        return False

    return visit


def _plain(order: list[int], visit) -> None:
    changed = True
    while changed:
        changed = False
        for key in order:
            changed |= visit(key)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(graphs)
def test_the_same_chains_as_the_plain_passes(graph) -> None:
    size, callees, seeds, order = graph
    expected: dict[int, tuple[int, ...]] = {}
    plain_visits: list[int] = []
    _plain(order, _visitor(callees, seeds, expected, plain_visits))
    found: dict[int, tuple[int, ...]] = {}
    visits: list[int] = []
    dependents: dict[int, list[int]] = {}
    for key, targets in enumerate(callees):
        for target in set(targets):
            dependents.setdefault(target, []).append(key)
    passes_until_stable(order, dependents, _visitor(callees, seeds, found, visits))
    assert found == expected
    assert len(visits) <= len(plain_visits)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(graphs)
def test_monotone_ranks_as_the_plain_passes(graph) -> None:
    """A state that grows more than once (a rank raised by a callee's): each
    raise reaches the callers, in the plain passes' order."""
    size, callees, seeds, order = graph

    def run(driver) -> dict[int, int]:
        rank: dict[int, int] = {}

        def visit(key: int) -> bool:
            best = max([rank.get(c, 0) + 1 for c in callees[key] if c in rank] + [1 if key in seeds else 0])
            best = min(best, 6)  # bounded: a cycle stops growing
            if best and best > rank.get(key, 0):
                rank[key] = best
                return True
            return False

        driver(visit)
        return rank

    dependents: dict[int, list[int]] = {}
    for key, targets in enumerate(callees):
        for target in set(targets):
            dependents.setdefault(target, []).append(key)
    assert run(lambda visit: passes_until_stable(order, dependents, visit)) == run(lambda visit: _plain(order, visit))


def test_a_chain_is_found_in_one_pass_when_the_order_allows() -> None:
    visits: list[str] = []
    state: dict[str, bool] = {}

    def visit(key: str) -> bool:
        visits.append(key)
        if key in state:
            return False
        if key == "leaf" or state.get({"mid": "leaf", "top": "mid"}.get(key, ""), False):
            state[key] = True
            return True
        return False

    passes_until_stable(["leaf", "mid", "top"], {"leaf": ["mid"], "mid": ["top"]}, visit)
    assert state == {"leaf": True, "mid": True, "top": True}
    assert visits == ["leaf", "mid", "top"]
