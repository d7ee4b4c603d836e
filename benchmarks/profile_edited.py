"""Where a re-check after one file changed spends its time, in ONE process
under cProfile: the benchmark's "edited" row (targets.OneFileEdits).

    python benchmarks/profile_edited.py                  # sglang 0.5.23's whole package
    python benchmarks/profile_edited.py vllm --limit 30
    python benchmarks/profile_edited.py whole --save /tmp/edited.pstats

A copy of the package gets its caches filled by an untimed run; then one
analysed file gets a comment line appended and the check runs again under
the profiler, with the worker pool off (MMLINT_JOBS=1) and every thread the
run starts profiled too (the analysis runs on a thread of its own). Prints
the wall time of the profiled run, then the top entries by cumulative and
by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import threading
import time
from pathlib import Path

from targets import OneFileEdits, prefiltered, resolve

SGLANG = "0.5.23"  # as benchmarks/scan.py


def _check(root: Path) -> None:
    from mmlint.cli import cli
    from mmlint.core.gc_tuning import collect_less_often

    # As mmlint.cli.main does before it runs a command: without it the profile
    # shows the collector's passes over the decoded facts (a fifth of sglang's
    # re-check under the default thresholds) that no real run pays.
    collect_less_often()

    try:
        cli.main(["check", str(root), "--quiet", "--exit-zero"], prog_name="mmlint", standalone_mode=False)
    except SystemExit as stop:
        if stop.code not in (0, None):
            raise


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", nargs="?", default="whole", choices=("whole", "vllm", "multimodal"))
    parser.add_argument("--limit", type=int, default=25, help="entries per table")
    parser.add_argument("--save", type=Path, help="write the merged pstats here")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="mmlint-profile-edited-") as scratch:
        package = resolve(args.target, SGLANG, Path(scratch))
        os.environ["MMLINT_CACHE_DIR"] = str(Path(scratch) / "cache")
        os.environ["MMLINT_JOBS"] = "1"
        _, passed, _, _ = prefiltered(package)
        edits = OneFileEdits(package, passed, Path(scratch), "profile")
        _check(edits.root)  # fills the facts and results caches
        edits.edit()

        profiles: list[cProfile.Profile] = []

        def profile_thread(frame, event, arg):  # the first event of each new thread
            sys.setprofile(None)
            profile = cProfile.Profile()
            profiles.append(profile)
            profile.enable()

        main_profile = cProfile.Profile()
        threading.setprofile(profile_thread)
        started = time.perf_counter()
        main_profile.enable()
        _check(edits.root)
        main_profile.disable()
        elapsed = time.perf_counter() - started
        threading.setprofile(None)
        for profile in profiles:
            profile.disable()

    print(f"edited re-check of {package} ({edits.edited.name} changed): {elapsed:.2f} s wall, profiled")
    stats = pstats.Stats(main_profile)
    for profile in profiles:
        stats.add(profile)
    if args.save:
        stats.dump_stats(str(args.save))
    stats.sort_stats("cumulative").print_stats(args.limit)
    stats.sort_stats("tottime").print_stats(args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
