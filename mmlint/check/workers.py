"""Running the per-file pass over many files: in this process for a handful,
in a pool of worker processes for many (the per-file pass is a pure function
of plain data, so its outcomes travel back pickled).

`MMLINT_JOBS=N` sets the number of processes (1: no pool).

Results come back as they complete, so one slow file holds back nothing but
itself. Leaving `run_all` early, for whatever reason (Ctrl-C, SIGTERM, an
error in the caller), cancels the queued work and kills the workers at once.
A worker also dies with its parent when the parent is killed outright
(SIGKILL), which no clean-up code in the parent can catch.

Start method (`start_method`): ``fork`` when this process has no thread but
its main one, which is how the command line starts the pool (the progress bar
redraws without a thread of its own for this reason): a fork starts in a
millisecond and shares the modules already imported, where a fresh process
would import libcst again (a third of a second). A fork made while another
thread holds a lock gives the child that lock, held forever, so a caller with
threads (mmlint used as a library) gets ``forkserver`` instead: a fresh
single-threaded server that imports the per-file pass once and forks the
workers from itself. ``spawn`` where neither exists."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

Result = TypeVar("Result")
# A task: the arguments of one call of the function run_all runs.
Task = TypeVar("Task", bound=tuple[Any, ...])
StartMethod = Literal["fork", "forkserver", "spawn"]

# Below this many files to parse, starting processes costs more than it saves
# (and pre-commit, which passes a few files per hook call, stays in-process).
MIN_FILES_FOR_POOL = 16
FILES_PER_WORKER = 8
# Where workers do not fork from this process (a caller with threads: the
# language server, mmlint as a library), each pool starts processes that
# import the per-file pass afresh and costs about half a second more; the
# pass reads about 0.3 MB a second, so below this many bytes in all, one
# process is faster (28 small files: 0.3 s in-process, 0.7 s pooled;
# sglang's srt/multimodal, 1.1 MB: 4 s and 2.4 s).
MIN_BYTES_FOR_FRESH_POOL = 256 * 1024


# How often a worker checks that its parent is still there, where the kernel
# cannot be asked to kill it (prctl exists on Linux only).
PARENT_CHECK_SECONDS = 0.5

# How long to wait for a killed worker to be reaped before giving up on it.
_REAP_SECONDS = 2.0

_HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def worker_count(files: int, total_bytes: int | None = None) -> int:
    """Processes for ``files`` tasks (``total_bytes``: their input's size, when the caller knows it)."""
    configured = _configured_jobs()
    if configured is not None:
        return min(configured, max(files, 1))
    if files < MIN_FILES_FOR_POOL:
        return 1
    if total_bytes is not None and total_bytes < MIN_BYTES_FOR_FRESH_POOL and start_method() != "fork":
        return 1
    return max(1, min(_cpus(), files // FILES_PER_WORKER))


def _configured_jobs() -> int | None:
    """MMLINT_JOBS when it is a positive number."""
    configured = os.environ.get("MMLINT_JOBS", "").strip()
    return int(configured) if configured.isdigit() and int(configured) > 0 else None


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@dataclass(frozen=True)
class WorkerDeath:
    """How a process running one task ended without its result: its exit
    status (negative: the signal that killed it) and the last line it wrote
    on stderr (known when it ran alone)."""

    exitcode: int | None
    last_words: str = ""

    def __str__(self) -> str:
        how = ""
        if self.exitcode is not None and self.exitcode < 0:
            how = f" of {_signal_name(-self.exitcode)}"
        elif self.exitcode:
            how = f" with exit status {self.exitcode}"
        said = f": {self.last_words}" if self.last_words else ""
        return f"the worker process analysing it died{how} (a crash, or out of memory){said}"


def run_all(
    function: Callable[..., Result],
    tasks: Sequence[Task],
    on_done: Callable[[], None],
    crashed: Callable[[Task, WorkerDeath], Result] | None = None,
    worker_setup: Callable[[], None] | None = None,
    isolate: Callable[[Task], bool] | None = None,
    meanwhile: Callable[[], None] | None = None,
    preload: Callable[[], None] | None = None,
    size: Callable[[Task], int] | None = None,
) -> Iterator[tuple[int, Result]]:
    """``(index, function(*tasks[index]))`` for every task, each as soon as it
    is done (in task order in-process, in completion order from the pool);
    ``on_done()`` is called once per finished task, before it is yielded.

    A worker that dies (a native crash, the kernel's out-of-memory killer, a
    budget mmlint.check.limits enforces) costs only its own task: the tasks
    the broken pool left unfinished are run again one at a time, each in a
    process of its own, and a task that kills that one too gets
    ``crashed(task, death)`` as its result (without ``crashed``, the error
    propagates). In a run without a pool, a task ``isolate(task)`` is true of
    runs in a process of its own all the same. ``worker_setup`` (a
    module-level function) runs first in each worker process, never in this
    one.

    ``meanwhile``: work of this process's own (decoding cached outcomes) to
    do while the tasks run: the tasks then run in a pool even when they are
    too few for one, and it is called once their workers have started,
    before the first result is yielded.

    ``preload``: the imports ``function`` needs (libcst, a third of a second),
    done in this process before a pool of two or more workers forks, so that
    they inherit them instead of each importing them again: one import's CPU
    less on the cores the workers share. Not called when the pool overlaps
    ``meanwhile`` (a worker's import then runs beside this process's own work),
    nor where workers do not fork.

    ``size``: a task's input in bytes, which decides whether a pool of
    workers that do not fork pays for itself (MIN_BYTES_FOR_FRESH_POOL)."""
    workers = worker_count(len(tasks), None if size is None else sum(map(size, tasks)))
    if meanwhile is not None and (not tasks or _configured_jobs() == 1):
        meanwhile()  # nothing to overlap, or no pool wanted (MMLINT_JOBS=1)
        meanwhile = None
    if meanwhile is not None:
        workers = max(workers, 2 if len(tasks) > 1 and _cpus() > 1 else 1)
        unfinished = yield from _run_in_pool(
            function, tasks, range(len(tasks)), workers, on_done, worker_setup, meanwhile
        )
        for index in unfinished:
            yield from _run_isolated(function, tasks, index, on_done, crashed, worker_setup)
        return
    if workers <= 1:
        for index, task in enumerate(tasks):
            if isolate is not None and isolate(task):
                yield from _run_isolated(function, tasks, index, on_done, crashed, worker_setup)
                continue
            result = function(*task)
            on_done()
            yield index, result
        return
    if preload is not None and start_method() == "fork":
        preload()
    unfinished = yield from _run_in_pool(function, tasks, range(len(tasks)), workers, on_done, worker_setup)
    for index in unfinished:  # after a crash: isolate the culprit
        yield from _run_isolated(function, tasks, index, on_done, crashed, worker_setup)


def _run_isolated(
    function: Callable[..., Result],
    tasks: Sequence[Task],
    index: int,
    on_done: Callable[[], None],
    crashed: Callable[[Task, WorkerDeath], Result] | None,
    worker_setup: Callable[[], None] | None,
) -> Iterator[tuple[int, Result]]:
    outcome = run_alone(function, tasks[index], worker_setup)
    if outcome[0]:
        value = outcome[1]
    else:
        if crashed is None:
            raise BrokenProcessPool(f"a worker died running task {index}: {outcome[1]}")
        value = crashed(tasks[index], outcome[1])
    on_done()
    yield index, value


def run_alone(
    function: Callable[..., Result], task: Task, worker_setup: Callable[[], None] | None = None
) -> tuple[Literal[True], Result] | tuple[Literal[False], WorkerDeath]:
    """``(True, function(*task))`` from a process started for this task alone,
    or ``(False, how it died)``. An exception ``function`` raises is raised
    here. The process's stderr goes to a scratch file, whose last line tells
    the death's cause (an allocation that failed, a fatal error)."""
    method = start_method()
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(["mmlint.check._pool_server", function.__module__])
    receiver, sender = context.Pipe(duplex=False)
    handle, stderr_path = tempfile.mkstemp(prefix="mmlint-worker-", suffix=".err")
    os.close(handle)
    process = context.Process(  # type: ignore[attr-defined]  # typeshed's get_context(str) is a BaseContext, without Process
        target=_alone, args=(sender, stderr_path, function, task, worker_setup), name="mmlint-alone", daemon=True
    )
    try:
        with _signals_held():
            process.start()
        sender.close()
        try:
            succeeded, value = receiver.recv()
        except EOFError:  # it died before it could answer
            process.join()
            return False, WorkerDeath(process.exitcode, _last_line(stderr_path))
        process.join()
    except BaseException:  # Ctrl-C, a signal, the consumer closing us: stop it now
        if process.pid is not None:  # None: start() itself failed, and that error is the one to raise
            process.kill()
            process.join(_REAP_SECONDS)
        raise
    finally:
        receiver.close()
        with contextlib.suppress(OSError):
            os.unlink(stderr_path)
    if not succeeded:
        raise value
    return True, value


def _alone(
    sender: Connection,
    stderr_path: str,
    function: Callable[..., object],
    task: Task,
    worker_setup: Callable[[], None] | None,
) -> None:
    """The body of run_alone's process."""
    descriptor = os.open(stderr_path, os.O_WRONLY | os.O_APPEND)
    os.dup2(descriptor, 2)
    os.close(descriptor)
    _init_worker(worker_setup)
    try:
        answer = (True, function(*task))
    except Exception as error:  # the caller raises it, as the pool would
        answer = (False, error)
    sender.send(answer)
    sender.close()


def _last_line(path: str) -> str:
    try:
        with open(path, "rb") as file:
            file.seek(max(0, os.fstat(file.fileno()).st_size - 4096))
            lines = file.read().decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1].strip()[:200] if lines else ""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _run_in_pool(
    function: Callable[..., Result],
    tasks: Sequence[Task],
    indexes: Sequence[int],
    workers: int,
    on_done: Callable[[], None],
    worker_setup: Callable[[], None] | None,
    meanwhile: Callable[[], None] | None = None,
) -> Generator[tuple[int, Result], None, list[int]]:
    """Run the tasks at ``indexes``; return the indexes left unfinished when a
    worker died (the pool is then broken), else an empty list."""
    pool = _start_pool(workers, function, worker_setup)
    done: set[int] = set()
    try:
        with _signals_held():  # the pool starts its workers during the first submits
            futures: dict[Future[Result], int] = {pool.submit(function, *tasks[index]): index for index in indexes}
        if meanwhile is not None:
            meanwhile()
        for future in as_completed(futures):
            try:
                result = future.result()
            except BrokenProcessPool:
                _kill_pool(pool)
                return sorted(set(indexes) - done)
            done.add(futures[future])
            on_done()
            yield futures[future], result
    except BaseException:  # KeyboardInterrupt, a signal, the consumer closing us: stop now
        _kill_pool(pool)
        raise
    pool.shutdown()
    return []


def start_method() -> StartMethod:
    """``fork`` when this process has no other thread (a fork copies a lock
    held by another thread, held forever), on Linux (fork is unsafe with
    macOS system libraries); else ``forkserver`` where there is one, else
    ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    if sys.platform.startswith("linux") and "fork" in methods and _thread_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def _thread_count() -> int:
    """Threads of this process, those started outside Python included where
    the system tells."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def _start_pool(
    workers: int, function: Callable[..., object], worker_setup: Callable[[], None] | None
) -> ProcessPoolExecutor:
    method = start_method()
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        # Imported once in the server, inherited by every worker it forks;
        # mmlint.check._pool_server also ties the server's life to this process.
        context.set_forkserver_preload(["mmlint.check._pool_server", function.__module__])
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_init_worker, initargs=(worker_setup,)
    )


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back until the block ends, then deliver them.

    A signal that interrupts a worker's start leaves a process the pool does
    not know of yet, so cannot kill: it starts later, finds the parent's queues
    gone and prints a traceback. Outside the main thread, where Python runs
    signal handlers, there is nothing to hold."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    previous = {
        signum: signal.signal(signum, lambda signum, _frame: arrived.append(signum))
        for signum in _HELD_SIGNALS
        if signal.getsignal(signum) is not None  # a handler set outside Python could not be put back
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for number in dict.fromkeys(arrived):
            signal.raise_signal(number)


def _kill_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel everything queued and kill the workers without waiting for the
    files they are on (the pool's own shutdown would wait for them), then see
    that the pool's manager thread ends: Python's exit waits for it."""
    processes = list((pool._processes or {}).values())  # shutdown() forgets them
    # Private state, not in typeshed (or, for the manager, typed as its wake-up object).
    manager = pool._executor_manager_thread
    call_queue = pool._call_queue  # type: ignore[attr-defined]
    result_queue = pool._result_queue
    if call_queue is not None:
        # Tasks queued for a worker we kill are never read: the queue's feeder
        # thread may block writing them, and the manager thread must not wait
        # for it (CPython 3.11; later versions do this themselves, gh-94777).
        call_queue.cancel_join_thread()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        try:
            process.kill()
        except (ProcessLookupError, ValueError):  # already gone, or already reaped
            continue
    for process in processes:
        try:
            process.join(_REAP_SECONDS)
        except ValueError:
            continue
    if result_queue is not None:
        # A worker killed while writing its result leaves half a message in the
        # result pipe, and the manager thread waits for the rest forever. With
        # every worker gone, closing this process's end for writing is the
        # pipe's last: the manager reads end-of-file and stops.
        with contextlib.suppress(OSError):
            result_queue._writer.close()  # type: ignore[attr-defined]  # SimpleQueue's pipe end: private, not in typeshed
    if manager is not None:
        manager.join(_REAP_SECONDS)  # type: ignore[attr-defined]  # typeshed has _ThreadWakeup; it is the manager Thread


def _init_worker(worker_setup: Callable[[], None] | None = None) -> None:
    """Runs first in every worker. Interrupts are the parent's to handle: it
    cancels the pool and kills the workers, so a worker ignores Ctrl-C (which
    the terminal sends to the whole process group) instead of dying with a
    traceback of its own, and dies silently on SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    if worker_setup is not None:
        worker_setup()


def _die_with_parent() -> None:
    """Make this worker exit when its parent goes, however the parent goes.

    On Linux the kernel sends SIGKILL when the parent exits (prctl
    PR_SET_PDEATHSIG); everywhere, a daemon thread watches the parent and
    exits the process when it is gone: when the pipe multiprocessing keeps
    open to the parent closes, or when the parent process id changes (the
    worker was re-parented)."""
    parent_pid = os.getppid()
    die_with_parent_on_linux()
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="mmlint-parent-watch", daemon=True).start()


def die_with_parent_on_linux() -> None:
    """Ask the kernel to SIGKILL this process when its parent exits (Linux
    only; elsewhere, and without a usable libc, nothing happens)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no libc, or no prctl in it
        pass


def _watch_parent(parent_pid: int) -> None:
    parent = multiprocessing.parent_process()
    while True:
        if parent is not None:
            parent.join(PARENT_CHECK_SECONDS)  # returns at once when the parent's pipe closes
            if not parent.is_alive():
                break
        else:
            threading.Event().wait(PARENT_CHECK_SECONDS)
        if os.getppid() != parent_pid:
            break
    os._exit(1)
