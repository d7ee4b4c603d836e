"""The worker pool changes how fast, never what: a pool and a single process
give the same report, in the same order."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mmlint.api import check
from mmlint.check.workers import MIN_FILES_FOR_POOL, PARENT_CHECK_SECONDS, run_all, worker_count

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "processors"


def summary(report):
    return (report.files_scanned, report.call_sites, [(d.path, d.span, d.code, d.message) for d in report.diagnostics])


def test_pool_and_single_process_agree(tmp_path, monkeypatch):
    project = tmp_path / "processors"
    shutil.copytree(FIXTURE, project)
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    monkeypatch.setenv("MMLINT_JOBS", "1")
    alone = check(cwd=project)
    monkeypatch.setenv("MMLINT_JOBS", "2")
    pooled = check(cwd=project)
    assert summary(pooled) == summary(alone)
    assert alone.diagnostics  # the fixture has findings: the comparison is not vacuous


@pytest.mark.parametrize(
    ("files", "jobs", "expected"),
    [
        (MIN_FILES_FOR_POOL - 1, None, 1),  # pre-commit's few files stay in-process
        (5, "3", 3),
        (2, "8", 2),  # never more workers than files
        (40, "0", None),  # not a positive number: automatic
    ],
)
def test_worker_count(files, jobs, expected, monkeypatch):
    if jobs is None:
        monkeypatch.delenv("MMLINT_JOBS", raising=False)
    else:
        monkeypatch.setenv("MMLINT_JOBS", jobs)
    count = worker_count(files)
    if expected is None:
        assert 1 <= count <= files
    else:
        assert count == expected


@pytest.mark.slow
def test_results_come_as_they_complete(monkeypatch):
    """A slow first task holds back neither the others' results nor their
    progress (the bar advances per finished file)."""
    monkeypatch.setenv("MMLINT_JOBS", "2")
    tasks = [(1.5,)] + [(0,)] * 6
    events: list[str] = []
    for index, _ in run_all(time.sleep, tasks, lambda: events.append("done")):
        events.append(index)
    assert events[-2:] == ["done", 0]  # the slow one last
    assert sorted(e for e in events if e != "done") == list(range(len(tasks)))
    assert events.count("done") == len(tasks)


def test_in_process_results_in_task_order(monkeypatch):
    monkeypatch.setenv("MMLINT_JOBS", "1")
    assert list(run_all(abs, [(-3,), (4,), (-5,)], lambda: None)) == [(0, 3), (1, 4), (2, 5)]


def children_of(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and int(Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()[1]) == pid:
                found.add(int(entry))
        except OSError:
            continue
    return found


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
def test_leaving_early_cancels_queued_work_and_kills_the_workers(monkeypatch):
    """Whoever stops iterating (Ctrl-C, an error in the caller) does not wait for
    the queued work, nor for the tasks the workers are on."""
    monkeypatch.setenv("MMLINT_JOBS", "2")
    before = children_of(os.getpid())
    results = run_all(time.sleep, [(0,)] + [(60,)] * 8, lambda: None)
    assert next(results) == (0, None)
    started = time.monotonic()
    results.close()
    assert time.monotonic() - started < 5
    workers = {pid for child in children_of(os.getpid()) - before for pid in children_of(child) | {child}}
    alive = [pid for pid in workers if b"resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes()]
    # What is left is the fork server (idle, it lives as long as this process) and nothing below it.
    assert all(not children_of(pid) for pid in alive)


@pytest.mark.skipif(sys.platform == "win32", reason="a parent's death re-parents its children on POSIX only")
def test_watchdog_exits_an_orphaned_process(tmp_path):
    """The portable fallback alone (no prctl): a process whose parent dies exits
    within a check or two."""
    orphan = (
        "import os, threading, time\n"
        "from mmlint.check.workers import _watch_parent\n"
        "threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()\n"
        "print(os.getpid(), flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = (  # starts the orphan-to-be, tells its pid, and dies without waiting for it
        "import subprocess, sys\n"
        f"child = subprocess.Popen([sys.executable, '-c', {orphan!r}], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)\n"
        "print(child.stdout.readline().decode().strip(), flush=True)\n"
    )
    output = subprocess.run([sys.executable, "-c", parent], capture_output=True, check=True, timeout=30).stdout
    orphan_pid = int(output)
    deadline = time.monotonic() + 4 * PARENT_CHECK_SECONDS + 1
    while time.monotonic() < deadline and _running(orphan_pid):
        time.sleep(0.05)
    running = _running(orphan_pid)
    if running:
        os.kill(orphan_pid, 9)
    assert not running


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rpartition(")")[2].split()[0] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork is chosen on Linux only")
def test_a_single_threaded_process_forks_its_workers():
    """The command line's case: nothing to re-import, so workers start at once."""
    chosen = subprocess.run(
        [sys.executable, "-c", "from mmlint.check.workers import start_method; print(start_method())"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert chosen == "fork"
