"""The per-file cost estimate (mmlint.check.cost) against what files of
several shapes really cost: libcst's parse alone and mmlint's whole check,
each in a fresh process (peak RSS and CPU time above an empty file's).

    python benchmarks/budget_shapes.py [--scale 1.0] [--repeat 1]

The shapes: many short statements, one call of many arguments on one line,
one list of one item per line, a data table (a dict of tuples), long string
constants, the benchmark's generated module, nested lists and nested calls
(one statement, and fifty of them). The coefficients in mmlint/check/cost.py
were set from this table: the estimate should be at or above every measured
figure (an estimate errs high; the worker enforces what it misses), and
not far above. mmlint is run with its budgets raised, so that it analyses
every shape."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import json
import subprocess

from measure import WRAPPER
from targets import generated_source

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mmlint.check.cost import estimate  # noqa: E402

FLOORS = Path(__file__).resolve().parent / "floors.py"
RAISED = "max-file-size = 67108864\nmax-file-memory = 65536\nmax-file-seconds = 3600\nmax-nesting-depth = 100000\n"
HEADER = "async def entry():\n    return 1\n"  # passes mmlint's prefilter


def _nested(opening: str, closing: str, depth: int, lines: int) -> str:
    return "".join(f"x{i} = " + opening * depth + closing * depth + "\n" for i in range(lines))


SHAPES: dict[str, Callable[[float], str]] = {
    "short statements": lambda s: "".join(f"a{i} = b{i} + {i}\n" for i in range(int(40_000 * s))),
    "one long call": lambda s: "x = f(" + ", ".join(f"a{i}" for i in range(int(40_000 * s))) + ")\n",
    "a list, an item a line": lambda s: "x = [\n" + "".join(f"    a{i},\n" for i in range(int(20_000 * s))) + "]\n",
    "a data table": lambda s: (
        "T = {\n" + "".join(f"    'k{i}': ({i}, 'v{i}'),\n" for i in range(int(20_000 * s))) + "}\n"
    ),
    "long strings": lambda s: "".join(f"s{i} = '{'x' * 200}'\n" for i in range(int(5_000 * s))),
    "generated module": lambda s: generated_source(int(2_000 * s)),
    # CPython refuses more than 200 nested brackets: mmlint reports such a file without parsing it.
    "nested lists, 1 x 190": lambda s: _nested("[", "]", int(190 * min(s, 1) ** 0.5), 1),
    "nested calls, 1 x 190": lambda s: _nested("f(", ")", int(190 * min(s, 1) ** 0.5), 1),
    "nested lists, 50 x 150": lambda s: _nested("[", "]", int(150 * min(s, 1) ** 0.5), int(50 * s)),
    "nested calls, 20 x 150": lambda s: _nested("f(", ")", int(150 * min(s, 1) ** 0.5), int(20 * s)),
}


def run_once(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(CPU seconds, peak RSS MiB) of one fresh run of ``command``, which must succeed."""
    with tempfile.TemporaryDirectory(prefix="mmlint-shapes-out-") as scratch:
        out, err = Path(scratch, "out"), Path(scratch, "err")
        result = subprocess.run(
            [sys.executable, str(WRAPPER), str(out), str(err), "--", *command],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
        )
        figures = json.loads(result.stdout)
        if figures["exit_code"] != 0:
            raise SystemExit(f"{' '.join(command)} exited {figures['exit_code']}: {err.read_text()[-2000:]}")
        return figures["cpu_seconds"], figures["peak_kib"] / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="size of every shape (default: 1.0)")
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes per figure; the median (default: 1)")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MMLINT_")} | {
        "MMLINT_NO_CACHE": "1",
        "NO_COLOR": "1",
    }
    mmlint = [sys.executable, "-m", "mmlint", "check", "--quiet", "--exit-zero"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="mmlint-shapes-") as scratch_name:
        scratch = Path(scratch_name)
        (scratch / "mmlint.toml").write_text(RAISED, "utf-8")

        def measured(source: str, name: str) -> tuple[float, float, float, float]:
            path = scratch / f"{name}.py"
            path.write_text(source, "utf-8")
            listing = scratch / f"{name}.list"
            listing.write_text(f"{path}\n", "utf-8")
            parse = [
                run_once([sys.executable, str(FLOORS), "parse", str(listing)], env, scratch) for _ in range(args.repeat)
            ]
            check = [run_once([*mmlint, str(path)], env, scratch) for _ in range(args.repeat)]
            return (
                statistics.median(r[0] for r in parse), statistics.median(r[1] for r in parse),
                statistics.median(r[0] for r in check), statistics.median(r[1] for r in check),
            )  # fmt: skip

        empty = measured(HEADER, "empty")
        for index, (label, shape) in enumerate(SHAPES.items()):
            print(f"measuring {label} ...", file=sys.stderr)
            source = HEADER + shape(args.scale)
            cost = estimate(source.encode())
            parse_s, parse_mib, check_s, check_mib = measured(source, f"shape{index}")
            rows.append(
                [label, f"{len(source.encode()) / 1e6:.2f}", f"{cost.tokens:,}", f"{cost.depth_sum:,}",
                 f"{parse_mib - empty[1]:.0f}", f"{check_mib - empty[3]:.0f}", f"{cost.memory_mib:,}",
                 f"{parse_s - empty[0]:.1f}", f"{check_s - empty[2]:.1f}", f"{cost.seconds:.1f}"]
            )  # fmt: skip
    header = ["shape", "MB", "tokens", "depth sum", "parse MiB", "mmlint MiB", "estimate MiB",
              "parse s", "mmlint s", "estimate s"]  # fmt: skip
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    print("\nMiB: peak RSS above an empty file's; s: CPU seconds above an empty file's (the time budget is CPU time).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
