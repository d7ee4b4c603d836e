"""Round-robin fixed points without the idle visits.

The weight analysis states its fixed points as passes: visit every key in
order, again and again, until a whole pass changes nothing. What a visit
decides can depend on the order (the first callee found blocking names the
chain), so the order is kept exactly; only visits that cannot change
anything are skipped: a key is visited again only when one of its
dependencies changed since its last visit. The result is the one the plain
passes reach, at a cost that grows with the changes, not with passes × keys.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def passes_until_stable(keys: Sequence[K], dependents: Mapping[K, Sequence[K]], visit: Callable[[K], bool]) -> None:
    """As ``while any(visit(k) for k in keys)`` with every key visited in each
    pass (``visit`` returns whether it changed the key's state; a visit
    reads only the key's own state and its dependencies'), visiting a key
    only when a dependency changed since its previous visit. ``dependents``:
    the keys whose visit reads a key's state."""
    position = {key: index for index, key in enumerate(keys)}
    pending = list(range(len(keys)))  # this pass, by position: a sorted list is a heap
    while pending:
        queued = set(pending)
        later: set[int] = set()  # the next pass
        while pending:
            index = heapq.heappop(pending)
            queued.discard(index)
            if not visit(keys[index]):
                continue
            for dependent in dependents.get(keys[index], ()):
                at = position.get(dependent)
                if at is None:
                    continue
                if at > index:  # not visited yet in this pass: it sees the change in this pass
                    if at not in queued:
                        heapq.heappush(pending, at)
                        queued.add(at)
                else:  # visited already (or itself): the next pass
                    later.add(at)
        pending = sorted(later)
