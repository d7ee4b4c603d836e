"""Clean deaths, with real signals sent to a real `mmlint check` that is busy
in its worker pool: Ctrl-C and SIGTERM stop it at once with a defined code and
one line, SIGKILL to the parent alone takes the workers down too. Linux only:
the process tree is read from /proc."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc"),
]

JOBS = 2
FILES = 40
DEFS_PER_FILE = 300  # each file takes a few tenths of a second to parse: the run lasts far longer than the test
EXIT_WITHIN = 3.0
WORKERS_GONE_WITHIN = 2.0


def slow_tree(root: Path) -> Path:
    tree = root / "slow"
    tree.mkdir()
    body = "".join(
        f"async def handler_{n}(self, a):\n    x = await other_{n}(a)\n    return [x, a, {n}]\n\n"
        for n in range(DEFS_PER_FILE)
    )
    for index in range(FILES):
        (tree / f"module_{index:02d}.py").write_text(body)
    return tree


def parents() -> dict[int, int]:
    """pid -> parent pid of every process."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # gone meanwhile
            continue
        found[int(entry)] = int(stat.rpartition(")")[2].split()[1])  # the name in (...) may hold spaces
    return found


def descendants(pid: int) -> dict[int, list[int]]:
    """Every process below ``pid``, with its children."""
    children: dict[int, list[int]] = {}
    for child, parent in parents().items():
        children.setdefault(parent, []).append(child)
    found, frontier = {}, [pid]
    while frontier:
        frontier = [child for parent in frontier for child in children.get(parent, ())]
        found.update((child, children.get(child, [])) for child in frontier)
    return found


def workers(below: dict[int, list[int]]) -> list[int]:
    """The processes that do the work, whichever way the pool starts them: those
    without children of their own (not a fork server), other than
    multiprocessing's resource tracker."""
    return [pid for pid, children in below.items() if not children and b"resource_tracker" not in cmdline(pid)]


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def alive(pid: int) -> bool:
    """Running, or at least not yet a zombie (a zombie has exited; only its
    exit status waits for whoever reaps it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def start_busy_check(tmp_path: Path) -> tuple[subprocess.Popen, dict[int, list[int]]]:
    """A `mmlint check` of many slow files, returned once its workers are parsing,
    with every process below it."""
    tree = slow_tree(tmp_path)
    env = {**os.environ, "MMLINT_JOBS": str(JOBS), "MMLINT_NO_CACHE": "1"}
    env.pop("MMLINT_DEBUG", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "mmlint", "check", str(tree)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "stderr", "wb"),  # a file: a pipe would stay open while any worker lives
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if len(workers(descendants(process.pid))) >= JOBS:
            time.sleep(0.5)  # into their first files
            return process, descendants(process.pid)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    pytest.fail(f"the workers never started (exit {process.poll()}): {(tmp_path / 'stderr').read_text()}")


def assert_all_gone(pids: dict[int, list[int]]) -> None:
    deadline = time.monotonic() + WORKERS_GONE_WITHIN
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = [pid for pid in pids if alive(pid)]
    for pid in survivors:  # leave nothing behind, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not survivors, f"still alive {WORKERS_GONE_WITHIN}s after the parent: {survivors}"


def wait_for_exit(process: subprocess.Popen, sent_at: float) -> int:
    try:
        code = process.wait(timeout=EXIT_WITHIN + 10)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    assert time.monotonic() - sent_at <= EXIT_WITHIN
    return code


@pytest.mark.parametrize(
    ("signum", "code", "message"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")]
)
def test_signal_stops_the_run_and_its_workers(tmp_path, signum, code, message):
    process, below = start_busy_check(tmp_path)
    sent_at = time.monotonic()
    process.send_signal(signum)
    assert wait_for_exit(process, sent_at) == code
    assert_all_gone(below)
    assert (tmp_path / "stderr").read_text() == f"mmlint: {message}\n"  # one line: no traceback, from anyone


def test_workers_die_with_a_killed_parent(tmp_path):
    process, below = start_busy_check(tmp_path)
    process.kill()  # the parent alone: it can clean up nothing
    assert process.wait(timeout=10) == -signal.SIGKILL
    assert_all_gone(below)


LIBRARY_CALLER_WITH_A_THREAD = """
import os, threading, time
threading.Thread(target=time.sleep, args=(600,), daemon=True).start()  # a fork would be unsafe now
from mmlint.check.workers import run_all, start_method
assert start_method() != "fork"
os.environ["MMLINT_JOBS"] = "2"
for _ in run_all(time.sleep, [(60,)] * 8, lambda: None):
    pass
"""


def test_workers_of_a_forkserver_pool_die_with_a_killed_parent(tmp_path):
    """The same, for the pool a caller with threads gets: the workers are forks
    of a fork server, not children of the killed process."""
    process = subprocess.Popen([sys.executable, "-c", LIBRARY_CALLER_WITH_A_THREAD], cwd=tmp_path)
    deadline = time.monotonic() + 60
    while len(workers(descendants(process.pid))) < JOBS and time.monotonic() < deadline:
        assert process.poll() is None
        time.sleep(0.05)
    below = descendants(process.pid)
    assert any(children for children in below.values())  # a server with workers below it
    process.kill()
    process.wait(timeout=10)
    assert_all_gone(below)
