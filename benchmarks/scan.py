"""Scan speed and memory, against a plain stdlib-`ast` script over the same files.

    python benchmarks/scan.py                  # sglang 0.5.23 srt/multimodal
    python benchmarks/scan.py --whole          # the whole sglang package of the wheel
    python benchmarks/scan.py --version 0.5.14 --repeat 5

Prints figures; asserts nothing. Each tool runs in a fresh subprocess (start-up
included), best wall time of --repeat runs, peak RSS of that process. The
wheel is fetched and cached by the ecosystem test harness (tests/ecosystem).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from ecosystem.sglang import _cached_wheel, _download_wheel, cache_dir, sglang_multimodal  # noqa: E402

# The hand-rolled check mmlint replaces: parse every file, find sync twin calls
# and async defs without await. No prefilter, no positions beyond lineno.
AST_SCRIPT = r"""
import ast, sys, pathlib
TWIN = "process_and_combine_mm_data"
found = 0
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.py")):
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        continue
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            found += name == TWIN
        elif isinstance(node, ast.AsyncFunctionDef):
            found += not any(isinstance(n, (ast.Await, ast.AsyncFor, ast.AsyncWith)) for n in ast.walk(node))
print(found)
"""


def whole_package(version: str) -> Path:
    root = cache_dir() / f"sglang-{version}-full"
    if not (root / "sglang").is_dir():
        wheels = cache_dir() / "wheels"
        wheel = _cached_wheel(wheels, version) or _download_wheel(wheels, version)
        staging = root.with_name(root.name + ".partial")
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(staging, [n for n in archive.namelist() if n.startswith("sglang/") and n.endswith(".py")])
        staging.rename(root)
    return root / "sglang"


def timed(command: list[str], cwd: Path, env: dict[str, str], repeat: int) -> tuple[float, float]:
    """Best wall time (s) of ``repeat`` runs, and the largest peak RSS (MiB) of one
    run's process tree (the main process or, with a pool, its largest worker)."""
    best, peak_kib = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(process.pid, 0)
        process.returncode = 0  # reaped by wait4
        best = min(best, time.perf_counter() - start)
        peak_kib = max(peak_kib, usage.ru_maxrss)
    return best, peak_kib / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", default="0.5.23")
    parser.add_argument("--whole", action="store_true", help="scan the whole sglang package, not srt/multimodal")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    target = whole_package(args.version) if args.whole else sglang_multimodal(args.version)
    files = sorted(target.rglob("*.py"))
    data = [f.read_bytes() for f in files]
    lines = sum(d.count(b"\n") for d in data)
    from mmlint.check.prefilter import Prefilter
    from mmlint.config.settings import DEFAULT_TWINS

    prefilter = Prefilter(DEFAULT_TWINS)
    candidates = sum(prefilter.could_hold_finding(d) for d in data)
    print(f"target: {target}")
    print(f"files: {len(files)}, lines: {lines:,}, passing the prefilter (parsed by mmlint): {candidates}")

    env = {**os.environ, "NO_COLOR": "1"}
    for variable in ("CI", "MMLINT_JOBS", "MMLINT_NO_CACHE"):
        env.pop(variable, None)
    cold = {**env, "MMLINT_NO_CACHE": "1"}
    with tempfile.TemporaryDirectory(prefix="mmlint-bench-cache-") as cache:
        warm = {**env, "MMLINT_CACHE_DIR": cache}
        check = [sys.executable, "-m", "mmlint", "check", str(target), "--exit-zero", "--quiet"]
        audit = [sys.executable, "-m", "mmlint", "audit", str(target)]
        subprocess.run(check, cwd=REPO, env=warm, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fill it
        rows = [
            ("stdlib ast script (parses every file)", [sys.executable, "-c", AST_SCRIPT, str(target)], env),
            ("mmlint check, cold, 1 process", check, {**cold, "MMLINT_JOBS": "1"}),
            ("mmlint check, cold, worker pool", check, cold),
            ("mmlint check, warm cache", check, warm),
            ("mmlint audit, warm cache", audit, warm),
        ]
        print(f"{'':40} {'best of ' + str(args.repeat):>12} {'peak RSS':>10}")
        for label, command, run_env in rows:
            seconds, rss = timed(command, REPO, run_env, args.repeat)
            print(f"{label:40} {seconds:>10.2f} s {rss:>7.0f} MiB")


if __name__ == "__main__":
    main()
