"""Where mmlint's per-file pass spends its time: the pass over the files a
target's prefilter passes, in ONE process, under cProfile.

    python benchmarks/profile_file_pass.py                   # sglang 0.5.23 srt/multimodal
    python benchmarks/profile_file_pass.py whole --limit 40
    python benchmarks/profile_file_pass.py path/to/dir --save pass.pstats

The per-file function (today mmlint.check.per_file.analyse_file) runs its work
on a thread of its own, which a plain cProfile in the main thread sees only as
a wait in Thread.join. So every thread started during the pass gets a
profiler of its own, and those are what is printed (the main thread's only
when no thread did any work). Prints the slowest files, then the top entries
by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import inspect
import pkgutil
import pstats
import sys
import tempfile
import threading
import time
from pathlib import Path

from targets import TARGET_NAMES, prefiltered, resolve

# Where the per-file function lives (searched for elsewhere if it moves).
_CANDIDATE_MODULES = ("mmlint.check.per_file",)
_FUNCTION_NAME = "analyse_file"


def find_file_pass():
    """(function, where) — the per-file pass, wherever the package keeps it now."""
    for module_name in _CANDIDATE_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        if callable(getattr(module, _FUNCTION_NAME, None)):
            return getattr(module, _FUNCTION_NAME), module_name
    import mmlint

    for info in pkgutil.walk_packages(mmlint.__path__, "mmlint."):
        try:
            module = importlib.import_module(info.name)
        except Exception:  # a half-rewritten module must not stop the search
            continue
        function = getattr(module, _FUNCTION_NAME, None)
        if callable(function) and getattr(function, "__module__", "") == info.name:
            return function, info.name
    sys.exit(f"profile_file_pass: error: no function {_FUNCTION_NAME} found in the mmlint package")


def default_twins():
    from mmlint.config.settings import DEFAULT_TWINS

    return DEFAULT_TWINS


def arguments_for(function, data: bytes, path: Path) -> dict:
    """Fill the pass's parameters by name, so a reordered signature still works."""
    known = {
        "data": data, "source": data, "content": data,
        "real_path": path, "path": path,
        "display_path": str(path), "shown": str(path), "relpath": str(path),
        "twins": tuple(default_twins()),
    }  # fmt: skip
    arguments = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if name in known:
            arguments[name] = known[name]
        elif parameter.default is inspect.Parameter.empty and parameter.kind not in (
            parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD
        ):  # fmt: skip
            sys.exit(f"profile_file_pass: error: do not know what to pass as {function.__name__}'s {name!r}")
    return arguments


class ThreadProfiles:
    """A cProfile.Profile for every thread started while installed."""

    def __init__(self) -> None:
        self.profiles: list[cProfile.Profile] = []
        self._lock = threading.Lock()
        self._original_run = threading.Thread.run

    def __enter__(self) -> "ThreadProfiles":
        collector, original_run = self, self._original_run

        def profiled_run(thread: threading.Thread) -> None:
            profile = cProfile.Profile()
            with collector._lock:
                collector.profiles.append(profile)
            profile.enable()
            try:
                original_run(thread)
            finally:
                profile.disable()

        threading.Thread.run = profiled_run
        return self

    def __exit__(self, *exc: object) -> None:
        threading.Thread.run = self._original_run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", nargs="?", default="multimodal", help=f"{'|'.join(TARGET_NAMES)} or a path")
    parser.add_argument("--sglang", default="0.5.23", metavar="VERSION")
    parser.add_argument("--limit", type=int, default=25, help="entries per table (default: 25)")
    parser.add_argument("--save", type=Path, metavar="FILE", help="also write the merged stats (pstats format)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="mmlint-profile-") as scratch:
        if args.target in TARGET_NAMES:
            target = resolve(args.target, args.sglang, Path(scratch))
        else:
            target = Path(args.target)
            if not target.exists():
                sys.exit(f"profile_file_pass: error: {target} does not exist")
        _, passed, _, prefilter_source = prefiltered(target)
        file_pass, where = find_file_pass()
        inputs = [(path, path.read_bytes()) for path in passed]
        print(f"{where}.{_FUNCTION_NAME} over {len(inputs)} files of {target} ({prefilter_source})\n")

        timings = []
        main_profile = cProfile.Profile()
        started = time.perf_counter()
        with ThreadProfiles() as threads:
            for path, data in inputs:
                arguments = arguments_for(file_pass, data, path)
                before = time.perf_counter()
                main_profile.enable()
                outcome = file_pass(**arguments)
                main_profile.disable()
                timings.append((time.perf_counter() - before, path, type(outcome).__name__))
        total = time.perf_counter() - started

    print(f"total {total:.2f} s under the profiler; slowest files:")
    for seconds, path, outcome in sorted(timings, reverse=True)[:10]:
        print(f"  {seconds:7.3f} s  {outcome:12}  {path}")
    worked = [p for p in threads.profiles if pstats.Stats(p).total_calls > 0]
    if worked:
        stats = pstats.Stats(*worked)
        print(f"\nprofiled inside {len(worked)} analysis thread(s)")
    else:
        stats = pstats.Stats(main_profile)
        print("\nno thread did any work: profiled in the main thread")
    if args.save:
        stats.dump_stats(args.save)
    for order in ("cumulative", "tottime"):
        print(f"\n=== top {args.limit} by {order} ===")
        stats.sort_stats(order).print_stats(args.limit)


if __name__ == "__main__":
    main()
