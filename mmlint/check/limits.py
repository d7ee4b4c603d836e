"""A file's memory and time budgets, enforced on the process analysing it.

Only in a worker process (a pool worker, or the process of its own a risky
file gets): limits on the caller's process would be a library's hostility
to its host. Both are the kernel's, so they hold while libcst's native
parser runs (it keeps the interpreter's lock: no Python thread could watch
it), and both are set for each file and put back after it:

- memory: the address space the process may grow by (RLIMIT_AS, Linux; other
  systems do not enforce it alike), its present size plus the budget. Past
  it an allocation fails: MemoryError in Python, an abort in the parser
  (which says "memory allocation of N bytes failed" on stderr).
- time: CPU seconds (RLIMIT_CPU), the CPU time used so far plus the budget;
  past it the kernel ends the process with SIGXCPU. CPU time, not wall
  time: a loaded machine (CI, other jobs) slows a file without making it
  costlier, and must not turn a good file into a refusal.

Core dumps are off in workers (RLIMIT_CORE 0): a stopped or crashed worker
writes nothing. The parent tells which budget stopped a process from how it
ended (mmlint.check.per_file.outcome_of_death)."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

try:
    import resource
except ImportError:  # not POSIX: nothing is enforced
    resource = None  # type: ignore[assignment]

OVER_TIME_SIGNAL = getattr(signal, "SIGXCPU", None)


def prepare_process() -> None:
    """Once, in a worker: no core files, and SIGXCPU ends the process."""
    if resource is None:
        return
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    except (OSError, ValueError):
        pass
    if OVER_TIME_SIGNAL is not None:
        signal.signal(OVER_TIME_SIGNAL, signal.SIG_DFL)


@contextmanager
def enforced(memory_mib: int, seconds: int) -> Iterator[None]:
    """The block runs within ``memory_mib`` more MiB of address space and
    ``seconds`` more CPU seconds, or the process ends."""
    if resource is None:
        yield
        return
    restores = [_limit_cpu(seconds), _limit_memory(memory_mib * 1024 * 1024)]
    try:
        yield
    finally:
        for restore in restores:
            if restore is not None:
                restore()


def _limit_cpu(seconds: int) -> Callable[[], None] | None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return _lower(resource.RLIMIT_CPU, int(usage.ru_utime + usage.ru_stime) + 1 + seconds)


def _limit_memory(extra: int) -> Callable[[], None] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        with open("/proc/self/statm", "rb") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None
    return _lower(resource.RLIMIT_AS, size + extra)


def _lower(which: int, limit: int) -> Callable[[], None] | None:
    """Lower the soft limit ``which`` to ``limit`` (never raise it); the
    function that puts it back, or None when it could not be set."""
    try:
        soft, hard = resource.getrlimit(which)
        for bound in (soft, hard):
            if bound != resource.RLIM_INFINITY:
                limit = min(limit, bound)
        resource.setrlimit(which, (limit, hard))
    except (OSError, ValueError):
        return None
    return lambda: resource.setrlimit(which, (soft, hard))
