"""Running the per-file pass on a thread with a deep stack.

libcst recurses a few frames per level of nesting (400 chained `+` exceed
Python's default limit of 1,000), and its native parser overflows an ordinary
8 MiB stack — a segfault, not an exception — long before a raised recursion
limit would stop it. So each analysis runs on a thread with a large stack and
a raised recursion limit.

A fresh thread per file costs about an eighth of the per-file pass (the
parser's allocations then come from memory the process has not touched
yet), so a worker process, where nothing forks after it, keeps one such
thread for all its files (``keep_one_thread``). Elsewhere (mmlint run
in-process on a few files, or as a library) each call gets a thread of its
own and leaves none behind: a process with an extra thread must not fork,
and the pool starts by forking (mmlint.check.workers.start_method).
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

Result = TypeVar("Result")

# Virtual memory: only the pages a deep file really touches are ever used.
DEEP_STACK_BYTES = 512 * 1024 * 1024
# Deep enough for any code a person writes (and 8,000 chained `+`), well
# inside DEEP_STACK_BYTES; past it, the file is MM999 "nested too deeply".
DEEP_RECURSION_LIMIT = 20_000

_LOCK = threading.Lock()  # one deep run at a time: the recursion limit is the process's
_kept: _KeptThread | None = None


def run_deep(job: Callable[[], Result]) -> Result | None:
    """``job()`` on a deep-stack thread; None if it raised (it should not)."""
    with _LOCK:
        previous_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(previous_limit, DEEP_RECURSION_LIMIT))
        try:
            if _kept is not None:
                return _kept.run(job)
            return _run_on_new_thread(job)
        finally:
            sys.setrecursionlimit(previous_limit)


def keep_one_thread() -> None:
    """From now on, run every job of this process on one kept thread. Only
    for a process that will not fork (a pool worker)."""
    global _kept
    with _LOCK:
        if _kept is None:
            _kept = _KeptThread()


def _run_on_new_thread(job: Callable[[], Result]) -> Result | None:
    pending = _Job(job)
    _deep_thread(pending.run_once).join()
    return pending.result  # type: ignore[return-value]


def _deep_thread(target: Callable[[], object]) -> threading.Thread:
    previous = threading.stack_size(DEEP_STACK_BYTES)
    try:
        # A daemon: Ctrl-C in the main thread must not wait for a long parse.
        thread = threading.Thread(target=target, name="mmlint-analyse", daemon=True)
        thread.start()
    finally:
        threading.stack_size(previous)
    return thread


class _Job:
    __slots__ = ("job", "result", "done")

    def __init__(self, job: Callable[[], object]) -> None:
        self.job = job
        self.result: object = None
        self.done = threading.Event()

    def run_once(self) -> None:
        try:
            self.result = self.job()
        except BaseException:  # noqa: BLE001 - the caller reports a failed analysis (and a kept thread serves on)
            self.result = None
        finally:
            self.done.set()


class _KeptThread:
    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        _deep_thread(self._serve)

    def run(self, job: Callable[[], Result]) -> Result | None:
        pending = _Job(job)
        self._jobs.put(pending)
        pending.done.wait()
        return pending.result  # type: ignore[return-value]

    def _serve(self) -> None:
        while True:
            self._jobs.get().run_once()
