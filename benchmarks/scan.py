"""Speed and memory of mmlint against floors measured in the same run (issue 8).

    python benchmarks/scan.py                        # all five targets, medians of 3
    python benchmarks/scan.py --only multimodal --repeat 5
    python benchmarks/scan.py --markdown             # tables as Markdown, for the README
    python benchmarks/scan.py --mmlint "/other/venv/bin/python -m mmlint"

Targets: sglang's whole package and its srt/multimodal, vLLM's whole package
and litellm's proxy package (wheels cached by the
ecosystem test harness, tests/ecosystem), and a generated ~5.6 MB module of
20,000 async defs, checked with the per-file budgets raised by an mmlint.toml
beside it (it is past the defaults: targets.GENERATED_BUDGETS). Floors: the stdlib-`ast` script doing MM001-MM003, reading
and sha256-hashing every .py file, and libcst's parse_module alone of the files
mmlint's prefilter passes, in one process. mmlint runs through its command line
only: cold (a fresh empty MMLINT_CACHE_DIR per run) and warm (a cache filled by
an untimed run first); for the whole packages also edited (a copy of it,
its caches filled by an untimed run, with one analysed file changed by an
appended comment line before each timed run: targets.OneFileEdits).
Every figure is the median of --repeat fresh processes (with bytecode: a
PYTHONDONTWRITEBYTECODE in the environment is not passed on, so the untimed
runs write it, as an installed package has it),
the runs interleaved so machine load falls on all rows alike; wall time
includes interpreter start-up. Peak RSS is that of the largest single process
of the run's tree (the main process or one pool worker, whichever is larger),
measured by benchmarks/run_measured.py. Prints figures and PASS/FAIL against
the issue's targets; exits 0 either way (1 if a measured command failed).
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import MeasureError, Samples, run_once
from report import checks, checks_table, figures_table
from targets import (
    EDITED_TARGETS,
    REPO,
    TARGET_NAMES,
    OneFileEdits,
    prefiltered,
    resolve,
)

FLOORS = Path(__file__).resolve().parent / "floors.py"
TARGET_LABELS = {
    "whole": "sglang/",
    "multimodal": "srt/multimodal",
    "generated": "5 MB module",
    "vllm": "vllm/",
    "litellm": "litellm/proxy",
}
ROWS = [
    ("ast", "stdlib-ast script, MM001-MM003, every file"),
    ("hash", "read + sha256 every .py file"),
    ("astparse", "CPython ast.parse of prefiltered files, 1 process"),
    ("parse", "libcst parse_module of prefiltered files, 1 process"),
    ("cold", "mmlint check, cold (empty cache)"),
    ("warm", "mmlint check, warm (nothing changed)"),
    ("edited", "mmlint check, warm, one analysed file changed"),
]
# Variables that would change what a run does or prints; and PYTHONDONTWRITEBYTECODE,
# under which a source checkout's mmlint compiles every module it imports in every
# run and every worker (a fifth of a cold multimodal run), as no installed
# package does: the untimed runs before the clock write the bytecode.
_SCRUBBED = (
    "CI", "GITHUB_ACTIONS", "MMLINT_JOBS", "MMLINT_NO_CACHE", "MMLINT_CACHE_DIR", "MMLINT_DEBUG", "FORCE_COLOR",
    "PYTHONDONTWRITEBYTECODE",
)  # fmt: skip


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--sglang", default="0.5.23", metavar="VERSION", help="sglang release to scan (default: 0.5.23)"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="fresh processes per figure; the median is shown (default: 3)"
    )
    parser.add_argument(
        "--only", action="append", choices=TARGET_NAMES, help="run only this target (repeatable; default: all five)"
    )
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument(
        "--mmlint", metavar="CMD", help="command that runs mmlint, shell-split (default: this Python's -m mmlint)"
    )
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    args.mmlint = shlex.split(args.mmlint) if args.mmlint else [sys.executable, "-m", "mmlint"]
    if not args.mmlint:
        parser.error("--mmlint is empty")
    return args


def main() -> int:
    args = parse_arguments()
    names = [name for name in TARGET_NAMES if name in (args.only or TARGET_NAMES)]
    base_env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED} | {"NO_COLOR": "1"}
    figures: dict[tuple[str, str], Samples] = {}
    with tempfile.TemporaryDirectory(prefix="mmlint-bench-") as scratch_name:
        scratch = Path(scratch_name)
        cwd = scratch / "cwd"  # no configuration file above it: mmlint's defaults
        cwd.mkdir()
        counter = itertools.count()

        def fresh_cache() -> dict[str, str]:
            directory = scratch / f"cold-cache-{next(counter)}"
            directory.mkdir()
            return base_env | {"MMLINT_CACHE_DIR": str(directory)}

        try:
            _, _, version_text = run_once([*args.mmlint, "--version"], base_env, cwd)
            jobs = [("", "python", [sys.executable, "-c", "pass"], lambda: base_env),
                    ("", "version", [*args.mmlint, "--version"], lambda: base_env)]  # fmt: skip
            info = []
            for name in names:
                target = resolve(name, args.sglang, scratch)
                files, passed, lines, prefilter_source = prefiltered(target)
                listing = scratch / f"{name}.parse-list"
                listing.write_text("".join(f"{p}\n" for p in passed), "utf-8")
                size = sum(f.stat().st_size for f in files) / 1e6
                info.append(
                    f"{TARGET_LABELS[name]}: {target}\n    {len(files)} file{'' if len(files) == 1 else 's'}, {lines:,} lines, {size:.1f} MB; "
                    f"{len(passed)} pass the prefilter ({prefilter_source})"
                )
                check = [*args.mmlint, "check", str(target), "--quiet", "--exit-zero"]
                warm_env = base_env | {"MMLINT_CACHE_DIR": str(scratch / f"warm-cache-{name}")}
                print(f"filling the warm cache for {TARGET_LABELS[name]} ...", file=sys.stderr)
                run_once(check, warm_env, cwd)
                jobs += [
                    (name, "ast", [sys.executable, str(FLOORS), "ast", str(target)], lambda: base_env),
                    (name, "hash", [sys.executable, str(FLOORS), "hash", str(target)], lambda: base_env),
                    (name, "astparse", [sys.executable, str(FLOORS), "astparse", str(listing)], lambda: base_env),
                    (name, "parse", [sys.executable, str(FLOORS), "parse", str(listing)], lambda: base_env),
                    (name, "cold", check, fresh_cache),
                    (name, "warm", check, lambda env=warm_env: env),
                ]
                if name in EDITED_TARGETS:
                    # A copy whose warm cache is filled, then one file edited before each timed run.
                    edits = OneFileEdits(target, passed, scratch, name)
                    edited_env = base_env | {"MMLINT_CACHE_DIR": str(scratch / f"edited-cache-{name}")}
                    edited_check = [*args.mmlint, "check", str(edits.root), "--quiet", "--exit-zero"]
                    run_once(edited_check, edited_env, cwd)

                    def edited(env: dict[str, str] = edited_env, edits: OneFileEdits = edits) -> dict[str, str]:
                        edits.edit()  # before the clock starts: run_once times the command alone
                        return env

                    jobs.append((name, "edited", edited_check, edited))
                    info.append(
                        f"    edited: {edits.edited.relative_to(edits.root.parent)} gets a comment line before each run"
                    )
            load_before = _load()
            for round_number in range(1, args.repeat + 1):
                for name, key, command, env in jobs:
                    print(f"[{round_number}/{args.repeat}] {TARGET_LABELS.get(name, '-')} {key}", file=sys.stderr)
                    seconds, peak_mib, _ = run_once(command, env(), cwd)
                    samples = figures.setdefault((name, key), Samples())
                    samples.seconds.append(seconds)
                    samples.peak_mib.append(peak_mib)
        except MeasureError as error:
            print(f"benchmark: error: {error}", file=sys.stderr)
            return 1

    invocation = "python benchmarks/scan.py" + "".join(f" {shlex.quote(a)}" for a in sys.argv[1:])
    mmlint_label = " ".join(args.mmlint)
    revision = _revision() if args.mmlint[1:] == ["-m", "mmlint"] and args.mmlint[0] == sys.executable else ""
    context = [
        f"command: {invocation}",
        f"mmlint: {version_text.strip()} via `{mmlint_label}`{revision}",
        f"machine: {platform.python_implementation()} {platform.python_version()}, {_cpus()} CPUs, "
        f"load average {load_before} before, {_load()} after; {args.repeat} fresh processes per figure",
        f"bytecode: written by the untimed runs, as an installed package has it"
        f"{' (PYTHONDONTWRITEBYTECODE unset for the runs)' if os.environ.get('PYTHONDONTWRITEBYTECODE') else ''}",
        *info,
    ]
    python_start = figures[("", "python")]
    version = figures[("", "version")]
    startup = (
        f"interpreter start-up (python -c pass): {python_start.median_seconds:.2f} s, {python_start.median_peak_mib:.0f} MiB; "
        f"mmlint --version: {version.median_seconds:.2f} s, {version.median_peak_mib:.0f} MiB"
    )
    note = (
        "Wall time includes interpreter start-up. Peak RSS: the largest single process of a run "
        "(main process or one pool worker), not their sum. Ratios use the medians above."
    )
    tables = [
        figures_table(figures, [(n, TARGET_LABELS[n]) for n in names], ROWS, args.markdown),
        checks_table(checks(figures), args.markdown),
    ]
    if args.markdown:
        print("\n".join(f"- {line.strip()}" for line in [*context, startup]))
    else:
        print("\n".join([*context, startup]))
    for table in tables:
        print()
        print(table)
    print()
    print(note)
    return 0


def _load() -> str:
    try:
        return ", ".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _revision() -> str:
    result = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"], capture_output=True, text=True)
    return f" (checkout {result.stdout.strip()})" if result.returncode == 0 and result.stdout.strip() else ""


if __name__ == "__main__":
    sys.exit(main())
