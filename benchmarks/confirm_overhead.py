"""The watchdog's overhead: a generated suite of 200 async tests that never
block, run with and without `--mmlint-confirm` (interleaved runs, median
wall time of each), under pytest-asyncio.

    python benchmarks/confirm_overhead.py [--runs 5] [--tests 200]

Prints each run's seconds, the medians and the overhead in percent (the goal:
at most 10 %), of wall time and of CPU time (user + system of the pytest
process and its children): on a shared, loaded machine wall time moves by
more than the overhead between two runs, CPU time much less. The plugin reads a report `mmlint check` made once
(`--mmlint-report`), so the figure is the watchdog's and the interceptors';
analysing instead adds the one `mmlint check` of the project. Everything is
written under a temporary directory."""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SERVICE = """\
import asyncio


async def answer(value):
    await asyncio.sleep(0)
    return value * 2
"""


def write_suite(root: Path, tests: int) -> None:
    (root / "svc").mkdir()
    (root / "svc" / "__init__.py").write_text("")
    (root / "svc" / "work.py").write_text(SERVICE)
    (root / "tests").mkdir()
    body = ["import asyncio", "", "from svc import work", ""]
    for index in range(tests):
        body += [
            f"async def test_answer_{index}():",
            "    for _ in range(20):",
            f"        assert await work.answer({index}) == {index * 2}",
            "    await asyncio.sleep(0.002)",
            "",
        ]
    (root / "tests" / "test_many.py").write_text("\n".join(body))
    (root / "pyproject.toml").write_text(
        '[tool.mmlint]\npaths = ["svc"]\n\n[tool.pytest.ini_options]\nasyncio_mode = "auto"\n'
        'asyncio_default_fixture_loop_scope = "function"\n'
    )


def timed_run(root: Path, confirm: bool) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one pytest run."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "mmlint.confirm.plugin"]
    if confirm:  # the static report made once: the runs time the watchdog, not the analysis
        command += ["--mmlint-confirm", "--mmlint-report=static.json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=root, env=env, check=True, capture_output=True, timeout=600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tests", type=int, default=200)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mmlint-confirm-bench-") as directory:
        root = Path(directory)
        write_suite(root, options.tests)
        subprocess.run(
            [sys.executable, "-m", "mmlint", "check", "--exit-zero", "--format", "json", "-o", "static.json"],
            cwd=root,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            check=True,
            timeout=600,
        )
        timed_run(root, False)  # warm the bytecode and the page cache
        plain: list[tuple[float, float]] = []
        confirmed: list[tuple[float, float]] = []
        for run in range(options.runs):
            order = (False, True) if run % 2 == 0 else (True, False)
            for confirm in order:
                wall, cpu = timed_run(root, confirm)
                (confirmed if confirm else plain).append((wall, cpu))
                print(
                    f"run {run + 1}: {'with' if confirm else 'without'} the plugin: {wall:.2f} s wall, {cpu:.2f} s CPU",
                    flush=True,
                )
        for index, what in ((0, "wall"), (1, "CPU")):
            base = statistics.median(r[index] for r in plain)
            watched = statistics.median(r[index] for r in confirmed)
            print(
                f"{what}: median without {base:.2f} s, with --mmlint-confirm {watched:.2f} s, "
                f"overhead {100 * (watched - base) / base:+.1f} % ({options.tests} tests, {options.runs} runs each)"
            )


if __name__ == "__main__":
    main()
