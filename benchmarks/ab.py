"""A/B of two mmlint trees: does a layer earn a figure beyond the machine's noise?

    python benchmarks/ab.py --a /path/to/tree-with-layer --b /path/to/tree-without \\
        [--target whole --target vllm] [--scenario edited --scenario warm] [--runs 5]

Each tree is put first on PYTHONPATH of a fresh `python -m mmlint check`
process, with a cache directory of its own filled by an untimed run. Runs
alternate A, B, A, B... so load falls on both alike. "edited" appends a
comment line to one analysed file before every run (benchmarks/targets.py's
OneFileEdits, one copy of the package per tree); "warm" changes nothing;
"cold" empties the cache each time.

Prints, per target and scenario, the medians of CPU seconds (user + system
of the whole process tree, which load moves much less than wall time) and of
wall seconds, B ÷ A, and the noise: the spread (max ÷ min) of A's own CPU
times. A difference smaller than that spread is no figure.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from targets import OneFileEdits, prefiltered, resolve

SCENARIOS = ("cold", "warm", "edited")


def timed(tree: Path, root: Path, cache: Path) -> tuple[float, float]:
    """(CPU seconds of the process tree, wall seconds) of one `mmlint check` over ``root``."""
    env = {**os.environ, "PYTHONPATH": str(tree), "MMLINT_CACHE_DIR": str(cache)}
    env.pop("MMLINT_NO_CACHE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "--exit-zero", "-q", str(root)],
        env=env,
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"mmlint from {tree} failed on {root}:\n{result.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def compare(trees: dict[str, Path], target: str, scenario: str, runs: int, scratch: Path) -> None:
    package = resolve(target, "0.5.23", scratch)
    _, passed, _, _ = prefiltered(package)
    roots: dict[str, Path] = {}
    edits: dict[str, OneFileEdits] = {}
    caches = {label: scratch / f"cache-{target}-{scenario}-{label}" for label in trees}
    for label in trees:
        if scenario == "edited":
            edits[label] = OneFileEdits(package, passed, scratch, f"{target}-{label}")
            roots[label] = edits[label].root
        else:
            roots[label] = package
        if scenario != "cold":
            timed(trees[label], roots[label], caches[label])  # fill the cache, untimed
    figures: dict[str, list[tuple[float, float]]] = {label: [] for label in trees}
    for _ in range(runs):
        for label, tree in trees.items():
            if scenario == "edited":
                edits[label].edit()
            elif scenario == "cold":
                shutil.rmtree(caches[label], ignore_errors=True)
            figures[label].append(timed(tree, roots[label], caches[label]))
    cpu = {label: statistics.median(c for c, _ in runs_) for label, runs_ in figures.items()}
    wall = {label: statistics.median(w for _, w in runs_) for label, runs_ in figures.items()}
    a_cpu = [c for c, _ in figures["A"]]
    noise = max(a_cpu) / min(a_cpu)
    print(
        f"{target:6s} {scenario:7s}  CPU A {cpu['A']:6.2f} s  B {cpu['B']:6.2f} s  B/A {cpu['B'] / cpu['A']:5.3f}"
        f"   wall A {wall['A']:6.2f} s  B {wall['B']:6.2f} s  B/A {wall['B'] / wall['A']:5.3f}"
        f"   A's own spread {noise:5.3f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", type=Path, required=True, help="the tree with the layer")
    parser.add_argument("--b", type=Path, required=True, help="the tree without it")
    parser.add_argument("--target", action="append", choices=("whole", "vllm", "multimodal"))
    parser.add_argument("--scenario", action="append", choices=SCENARIOS)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    trees = {"A": args.a.resolve(), "B": args.b.resolve()}
    with tempfile.TemporaryDirectory(prefix="mmlint-ab-") as scratch:
        for target in args.target or ["whole", "vllm"]:
            for scenario in args.scenario or ["edited", "warm"]:
                compare(trees, target, scenario, args.runs, Path(scratch))


if __name__ == "__main__":
    main()
