"""The worker pool changes how fast, never what: a pool and a single process
give the same report, in the same order."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mmlint.api import check
from mmlint.check.workers import (
    MIN_BYTES_FOR_FRESH_POOL,
    MIN_FILES_FOR_POOL,
    PARENT_CHECK_SECONDS,
    run_all,
    run_alone,
    worker_count,
)

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "processors"


def summary(report):
    return (report.files_scanned, report.call_sites, [(d.path, d.span, d.code, d.message) for d in report.diagnostics])


@pytest.mark.slow
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


@pytest.mark.parametrize(
    ("method", "total_bytes", "pooled"),
    [
        ("fork", MIN_BYTES_FOR_FRESH_POOL - 1, True),  # a fork costs a millisecond: the file count decides
        ("forkserver", MIN_BYTES_FOR_FRESH_POOL - 1, False),  # fresh processes: too little to parse for them
        ("spawn", MIN_BYTES_FOR_FRESH_POOL - 1, False),
        ("forkserver", MIN_BYTES_FOR_FRESH_POOL, True),
        ("forkserver", None, True),  # the size unknown: the file count decides
    ],
)
def test_a_pool_that_does_not_fork_needs_enough_bytes_to_pay(method, total_bytes, pooled, monkeypatch):
    import mmlint.check.workers as workers

    monkeypatch.delenv("MMLINT_JOBS", raising=False)
    monkeypatch.setattr(workers, "_cpus", lambda: 2)
    monkeypatch.setattr(workers, "start_method", lambda: method)
    assert (worker_count(4 * MIN_FILES_FOR_POOL, total_bytes) > 1) is pooled
    monkeypatch.setenv("MMLINT_JOBS", "2")  # what is asked for is what runs
    assert worker_count(4 * MIN_FILES_FOR_POOL, 1) == 2


def test_a_run_of_small_files_in_a_threaded_process_parses_them_in_process(tmp_path, monkeypatch):
    """A caller with threads (this test runner's worker, a language server)
    would get workers that do not fork: for a few kilobytes, none start."""
    import threading

    import mmlint.check.workers as workers

    started = []
    monkeypatch.setattr(workers, "_start_pool", lambda *args: started.append(args) or pytest.fail("a pool started"))
    monkeypatch.delenv("MMLINT_JOBS", raising=False)
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    monkeypatch.setattr(workers, "_cpus", lambda: 2)
    project = tmp_path / "processors"
    shutil.copytree(FIXTURE, project)
    assert len(list(project.rglob("*.py"))) >= MIN_FILES_FOR_POOL  # enough files for a pool, too few bytes
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        report = check(cwd=project)
    finally:
        stop.set()
        thread.join()
    assert report.diagnostics and not started


def test_fixing_a_few_small_files_in_a_threaded_process_fixes_them_in_process(tmp_path, monkeypatch):
    """`fix` follows the same pool rule as `check`: for a few kilobytes, a
    caller with threads gets no workers that do not fork."""
    import threading

    import mmlint.api
    import mmlint.check.workers as workers

    monkeypatch.delenv("MMLINT_JOBS", raising=False)
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    monkeypatch.setattr(workers, "_cpus", lambda: 2)
    project = tmp_path / "processors"
    shutil.copytree(FIXTURE, project)
    llava = project / "mmproc/processors/llava.py"
    for number in range(MIN_FILES_FOR_POOL):
        shutil.copy(llava, llava.with_name(f"llava_{number}.py"))
    started = []
    monkeypatch.setattr(workers, "_start_pool", lambda *args: started.append(args) or pytest.fail("a pool started"))
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        run = mmlint.api.fix(cwd=project, write=False)
    finally:
        stop.set()
        thread.join()
    assert len(run.changed) > MIN_FILES_FOR_POOL and not started


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
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert chosen == "fork"


def _double_or_die(value: int) -> int:
    """A task that kills its worker process outright on 7 (as a native crash would)."""
    if value == 7:
        os._exit(3)
    time.sleep(0.01)
    return value * 2


@pytest.mark.slow
def test_a_worker_that_dies_costs_only_its_own_task(monkeypatch):
    monkeypatch.setenv("MMLINT_JOBS", "2")
    tasks = [(value,) for value in range(MIN_FILES_FOR_POOL + 4)]
    done = []
    results = dict(run_all(_double_or_die, tasks, lambda: done.append(1), crashed=lambda task, why: f"crashed: {why}"))
    assert sorted(results) == list(range(len(tasks)))
    assert results[7].startswith("crashed: the worker process analysing it died")
    assert all(results[index] == index * 2 for index in results if index != 7)
    assert len(done) == len(tasks)


def _crash_on_poison(data, *rest):
    """The per-file pass, except that a file saying POISON kills its worker."""
    from mmlint.check.per_file import analyse_file

    if b"POISON" in data:
        os._exit(9)
    return analyse_file(data, *rest)


@pytest.mark.slow
def test_a_crash_file_is_mm999_and_the_others_are_checked(tmp_path, monkeypatch):
    import mmlint.check.findings as findings

    monkeypatch.setattr(findings, "analyse_file", _crash_on_poison)
    monkeypatch.setenv("MMLINT_JOBS", "2")
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    (tmp_path / "mmlint.toml").write_text("", encoding="utf-8")
    for index in range(MIN_FILES_FOR_POOL + 2):
        (tmp_path / f"m{index}.py").write_text(
            f"async def f{index}(self):\n    for item in self:\n        decode(item)\n", encoding="utf-8"
        )
    (tmp_path / "m3.py").write_text("async def f(self):\n    return 'POISON'\n", encoding="utf-8")
    report = check(cwd=tmp_path)
    by_code = sorted((d.path, d.code) for d in report.diagnostics)
    assert ("m3.py", "MM999") in by_code
    assert [d.message for d in report.diagnostics if d.code == "MM999"] == [
        "analysis failed: the worker process analysing it died with exit status 9 (a crash, or out of memory)"
    ]
    assert sum(code == "MM003" for _, code in by_code) == MIN_FILES_FOR_POOL + 1


def _fix_waiting_for_the_others(file, write, buffer=None):
    """fix_file, except that a_slow.py (first in path order) waits (up to 30 s) until every other file
    is written: it passes only if the others' writes do not wait for it."""
    from mmlint.fix.pipeline import fix_file

    if file.path == "a_slow.py":
        others = [path for path in file.abs_path.parent.glob("m*.py")]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not all(b"_async(" in path.read_bytes() for path in others):
            time.sleep(0.05)
        if not all(b"_async(" in path.read_bytes() for path in others):
            raise AssertionError("the other files were not written while a_slow.py was being fixed")
    return fix_file(file, write=write) if buffer is None else fix_file(file, write=write, source=buffer)


@pytest.mark.slow
def test_fix_writes_each_file_without_waiting_for_a_slow_one(tmp_path, monkeypatch):
    from cli_support import CliRunner

    import mmlint.fix.run as fix_run
    from mmlint.cli import cli

    monkeypatch.setattr(fix_run, "fix_file", lambda file, write: _fix_waiting_for_the_others(file, write))
    monkeypatch.setattr(fix_run, "_fix_one", _fix_waiting_for_the_others)
    monkeypatch.setenv("MMLINT_JOBS", "2")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mmlint.toml").write_text("", encoding="utf-8")
    source = "class P:\n    async def f(self, a):\n        return self.process_and_combine_mm_data(a)\n"
    for name in ["a_slow", *(f"m{index}" for index in range(MIN_FILES_FOR_POOL + 2))]:
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    result = CliRunner().invoke(cli, ["fix", "--no-cache", "."])
    assert result.exit_code == 0, result.output
    assert all(b"process_and_combine_mm_data_async(" in path.read_bytes() for path in tmp_path.glob("*.py"))


# -- a file whose analysis ends its process costs only that file (issues 17.11 and 23.3) ----------

# A sitecustomize module on PYTHONPATH, so that every process of the run
# imports it (the command's own, forked workers, and a fork server's): the
# per-file pass, except that a file holding one of these words does what a
# native crash, a runaway allocation or a runaway loop would.
_HOOKS = """
import os, time
import mmlint.check.per_file as per_file

_analyse = per_file._analyse

def _hooked(data, *rest):
    if b"ABORT" + b"-HERE" in data:
        os.abort()
    if b"ALLOCATE" + b"-HERE" in data:  # 1.5 GiB in 64 MiB pieces: past a small memory budget
        held = [bytearray(64 * 1024 * 1024) for _ in range(24)]
        del held
    if b"SPIN" + b"-HERE" in data:  # 20 s of CPU time, then on as usual
        deadline = time.process_time() + 20
        while time.process_time() < deadline:
            pass
    return _analyse(data, *rest)

per_file._analyse = _hooked
"""


def _run_hooked(
    tmp_path: Path, config: str, jobs: str, *args: str
) -> tuple[int, dict[str, list[tuple[str, str]]], str]:
    hooks = tmp_path / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "sitecustomize.py").write_text(_HOOKS, encoding="utf-8")
    project = tmp_path / "project"
    (project / "mmlint.toml").write_text(config, encoding="utf-8")
    path = os.pathsep.join(filter(None, [str(hooks), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "MMLINT_NO_CACHE": "1", "MMLINT_JOBS": jobs, "PWD": str(project), "PYTHONPATH": path}
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "--format", "json", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    found: dict[str, list[tuple[str, str]]] = {}
    if result.stdout.strip():
        for d in json.loads(result.stdout)["diagnostics"]:
            found.setdefault(d["path"], []).append((d["code"], d["message"]))
    return result.returncode, found, result.stderr


_CLEAN_ASYNC = "async def f(self, items):\n    for item in items:\n        decode(item)\n"  # heavy by evidence: MM003
_LARGE = "async def f(self):\n    return 'ABORT-HERE'\n" + "DATA = '" + "x" * (1024 * 1024 + 10) + "'\n"


def _project(tmp_path: Path, files: dict[str, str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name, text in files.items():
        (project / name).write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_a_native_abort_costs_only_its_file_in_a_pool(tmp_path):
    _project(
        tmp_path,
        {"m0.py": _CLEAN_ASYNC, "m1.py": _CLEAN_ASYNC, "m2.py": "async def f(self):\n    return 'ABORT-HERE'\n"},
    )
    code, found, stderr = _run_hooked(tmp_path, "", "2", ".")
    assert code == 1, stderr
    assert found["m2.py"] == [
        ("MM999", "analysis failed: the worker process analysing it died of SIGABRT (a crash, or out of memory)")
    ]
    assert [c for c, _ in found["m0.py"]] == [c for c, _ in found["m1.py"]] == ["MM003"]


@pytest.mark.slow
def test_a_large_file_runs_in_a_process_of_its_own_even_alone(tmp_path):
    """One file, one job: nothing would start a pool, so a large (risky) file
    gets a process of its own, and a native abort there costs only that file."""
    _project(tmp_path, {"big.py": _LARGE})
    code, found, stderr = _run_hooked(tmp_path, "", "1", "big.py")
    assert code == 1, stderr
    assert found == {
        "big.py": [
            ("MM999", "analysis failed: the worker process analysing it died of SIGABRT (a crash, or out of memory)")
        ]
    }
    # A small file stays in this process (no process is started for it) and is analysed as usual.
    (tmp_path / "project" / "small.py").write_text(_CLEAN_ASYNC, encoding="utf-8")
    code, found, stderr = _run_hooked(tmp_path, "", "1", "small.py")
    assert [c for c, _ in found["small.py"]] == ["MM003"], stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the memory budget is enforced on Linux")
@pytest.mark.slow
def test_a_worker_past_its_memory_budget_is_stopped_and_named(tmp_path):
    _project(tmp_path, {"m0.py": _CLEAN_ASYNC, "m1.py": "async def f(self):\n    return 'ALLOCATE-HERE'\n"})
    code, found, stderr = _run_hooked(tmp_path, "max-file-memory = 256\n", "2", ".")
    assert found["m1.py"] == [
        ("MM999", "analysis failed: stopped: out of memory (max-file-memory = 256 MiB, or the machine's)")
    ], stderr
    assert [c for c, _ in found["m0.py"]] == ["MM003"]


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_CPU is POSIX")
@pytest.mark.slow
def test_a_worker_past_its_time_budget_is_stopped_and_named(tmp_path):
    _project(tmp_path, {"m0.py": _CLEAN_ASYNC, "m1.py": "async def f(self):\n    return 'SPIN-HERE'\n"})
    started = time.monotonic()
    code, found, stderr = _run_hooked(tmp_path, "max-file-seconds = 1\n", "2", ".")
    assert found["m1.py"] == [
        ("MM999", "analysis failed: stopped after 1 s of CPU time, over the time budget (max-file-seconds = 1)")
    ], stderr
    assert [c for c, _ in found["m0.py"]] == ["MM003"]
    assert time.monotonic() - started < 20  # stopped, not let run its 20 s (twice: the pool, then alone)


def test_meanwhile_runs_while_the_tasks_run_in_a_pool_even_for_one(monkeypatch):
    """A caller's own work (decoding cached outcomes) overlaps the tasks: they
    run in a worker process even when one task would stay in-process."""
    monkeypatch.delenv("MMLINT_JOBS", raising=False)
    calls: list[str] = []
    results = list(run_all(os.getpid, [()], lambda: calls.append("done"), meanwhile=lambda: calls.append("meanwhile")))
    assert calls == ["meanwhile", "done"]
    assert [index for index, _ in results] == [0] and results[0][1] != os.getpid()


def test_meanwhile_without_a_pool_when_one_job_is_asked_for(monkeypatch):
    monkeypatch.setenv("MMLINT_JOBS", "1")
    calls: list[str] = []
    results = list(
        run_all(os.getpid, [(), ()], lambda: calls.append("done"), meanwhile=lambda: calls.append("meanwhile"))
    )
    assert calls == ["meanwhile", "done", "done"]
    assert [pid for _, pid in results] == [os.getpid(), os.getpid()]


@pytest.mark.slow
def test_a_recheck_decoding_while_the_changed_file_parses_reports_the_same(tmp_path, monkeypatch):
    import mmlint.check.findings as findings

    project = tmp_path / "processors"
    shutil.copytree(FIXTURE, project)
    monkeypatch.setenv("MMLINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MMLINT_NO_CACHE", raising=False)
    monkeypatch.delenv("MMLINT_JOBS", raising=False)
    check(cwd=project)  # fills the facts cache
    changed = next(path for path in sorted(project.rglob("*.py")) if "async def" in path.read_text(encoding="utf-8"))
    with changed.open("a", encoding="utf-8") as handle:
        handle.write("\n# edited\n")
    monkeypatch.setattr(findings, "OVERLAP_MIN_ENTRIES", 1)
    passed_meanwhile: list[bool] = []
    real_run_all = findings.run_all

    def recording(*args, meanwhile=None, **kwargs):
        passed_meanwhile.append(meanwhile is not None)
        return real_run_all(*args, meanwhile=meanwhile, **kwargs)

    monkeypatch.setattr(findings, "run_all", recording)
    overlapped = check(cwd=project)
    assert passed_meanwhile == [True]  # the changed file parsed while the others decoded
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    fresh = check(cwd=project)
    assert summary(overlapped) == summary(fresh) and fresh.diagnostics


_PRELOAD_SCRIPT = """
import os, sys
from mmlint.check.workers import run_all, start_method
calls = []
def preload():
    calls.append("preload")
    os.environ["MMLINT_TEST_PRELOADED"] = "inherited"  # what an import would leave behind
os.environ["MMLINT_JOBS"] = sys.argv[1]
meanwhile = (lambda: calls.append("meanwhile")) if sys.argv[2] == "meanwhile" else None
tasks = [("MMLINT_TEST_PRELOADED",)] * 2
method = start_method()  # before the pool: its threads outlive it a moment
results = dict(run_all(os.getenv, tasks, lambda: None, meanwhile=meanwhile, preload=preload))
print(method, calls, sorted(results.items()))
"""


def _preloading(jobs: str, meanwhile: str) -> list[str]:
    ran = subprocess.run(
        [sys.executable, "-c", _PRELOAD_SCRIPT, jobs, meanwhile], capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stdout.rstrip("\n").split(" ", 1)


@pytest.mark.skipif(sys.platform != "linux", reason="workers fork on Linux only")
def test_preload_runs_here_before_the_workers_fork():
    """What the tasks import is imported once, here, and the forked workers
    inherit it. (In processes of their own: this one may have a test runner's
    threads, and a process with threads does not fork its workers.)"""
    assert _preloading("2", "") == ["fork", "['preload'] [(0, 'inherited'), (1, 'inherited')]"]


@pytest.mark.skipif(sys.platform != "linux", reason="workers fork on Linux only")
def test_no_preload_where_the_tasks_run_here_or_beside_work_of_this_process():
    """In-process, the task imports what it needs itself; beside ``meanwhile``
    (a re-check's decoding), a worker's own import runs while this process works."""
    assert _preloading("1", "") == ["fork", "[] [(0, None), (1, None)]"]
    assert _preloading("2", "meanwhile") == ["fork", "['meanwhile'] [(0, None), (1, None)]"]


def test_a_process_that_cannot_start_raises_its_own_error(monkeypatch):
    """When start() itself fails (a task that cannot be sent to a fresh
    process, a forkserver that cannot start), that error reaches the caller,
    not a secondary one from stopping a process that never ran."""
    import multiprocessing.process

    def refuse(self):
        raise OSError("cannot start a process here")

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", refuse)
    with pytest.raises(OSError, match="cannot start a process here"):
        run_alone(len, ("abc",))
