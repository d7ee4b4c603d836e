"""Running the per-file pass over many files: in this process for a handful,
in a pool of worker processes for many (the per-file pass is a pure function
of plain data, so its outcomes travel back pickled).

`MMLINT_JOBS=N` sets the number of processes (1: no pool)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

Task = TypeVar("Task")
Result = TypeVar("Result")

# Below this many files to parse, starting processes costs more than it saves
# (and pre-commit, which passes a few files per hook call, stays in-process).
MIN_FILES_FOR_POOL = 16
FILES_PER_WORKER = 8


def worker_count(files: int) -> int:
    configured = os.environ.get("MMLINT_JOBS", "").strip()
    if configured.isdigit() and int(configured) > 0:
        return min(int(configured), max(files, 1))
    if files < MIN_FILES_FOR_POOL:
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cpus, files // FILES_PER_WORKER))


def run_all(function: Callable[..., Result], tasks: Sequence[tuple], on_done: Callable[[], None]) -> Iterator[Result]:
    """``function(*task)`` for every task, results in task order."""
    workers = worker_count(len(tasks))
    if workers <= 1:
        for task in tasks:
            yield function(*task)
            on_done()
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(function, *task) for task in tasks]
        for future in futures:
            yield future.result()
            on_done()
