"""PyCG's call-graph micro-benchmark (pycg 0.0.8's sdist, `micro-benchmark/snippets`):
`mmlint graph` on each of its programs, precision and recall over all edges,
overall and per category.

    python benchmarks/pycg_benchmark.py [SNIPPETS_DIR]

Without a directory the sdist is downloaded once into the ecosystem cache
(tests/ecosystem/releases.py). Edges into builtins and the standard library
(``<builtin>.len``, ``<**PyStr**>.join``, ``os.path.join``) are left out of
both sides: mmlint names no builtin. The ecosystem test
tests/ecosystem/test_pycg_benchmark.py asserts floors on the same table.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

Edge = tuple[str, str]


@dataclass
class Score:
    found: int = 0  # edges mmlint reports
    expected: int = 0  # edges PyCG's benchmark expects
    right: int = 0  # in both
    misses: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        self.found += other.found
        self.expected += other.expected
        self.right += other.right

    @property
    def precision(self) -> float:
        return self.right / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.expected if self.expected else 1.0


def _outside(name: str) -> bool:
    """A builtin or standard-library callee, left out of both sides."""
    return name.startswith("<") or name.split(".", 1)[0] in sys.stdlib_module_names


def edges(graph: dict[str, Iterable[str]]) -> set[Edge]:
    return {
        (source, target)
        for source, targets in graph.items()
        for target in targets
        if not _outside(target) and not _outside(source)
    }


def mmlint_graph(directory: Path) -> dict[str, list[str]]:
    """`mmlint graph DIRECTORY --format json`, in this process (the command line's own code)."""
    from click.testing import CliRunner

    from mmlint.cli import cli

    result = CliRunner().invoke(
        cli, ["graph", str(directory), "--format", "json", "--no-cache", "-q"], catch_exceptions=False
    )
    if result.exit_code != 0:
        raise RuntimeError(f"mmlint graph {directory} exited {result.exit_code}: {result.output}")
    graph: dict[str, list[str]] = json.loads(result.stdout)
    return graph


def score_snippet(directory: Path) -> Score:
    expected = edges(json.loads((directory / "callgraph.json").read_text(encoding="utf-8")))
    found = edges(mmlint_graph(directory))
    return Score(
        len(found), len(expected), len(found & expected),
        misses=sorted(f"{a} -> {b}" for a, b in expected - found),
        extras=sorted(f"{a} -> {b}" for a, b in found - expected),
    )  # fmt: skip


def score_all(snippets: Path) -> dict[str, dict[str, Score]]:
    """category -> program -> its score."""
    scores: dict[str, dict[str, Score]] = {}
    for expected in sorted(snippets.glob("*/*/callgraph.json")):
        program = expected.parent
        scores.setdefault(program.parent.name, {})[program.name] = score_snippet(program)
    return scores


def totals(scores: dict[str, dict[str, Score]]) -> tuple[dict[str, Score], Score]:
    per_category: dict[str, Score] = {}
    overall = Score()
    for category, programs in scores.items():
        total = per_category[category] = Score()
        for score in programs.values():
            total.add(score)
        overall.add(total)
    return per_category, overall


def table(scores: dict[str, dict[str, Score]]) -> str:
    per_category, overall = totals(scores)
    lines = [f"{'category':<14} {'programs':>8} {'edges':>6} {'found':>6} {'right':>6} {'precision':>9} {'recall':>7}"]
    for category, total in per_category.items():
        lines.append(
            f"{category:<14} {len(scores[category]):>8} {total.expected:>6} {total.found:>6} {total.right:>6}"
            f" {total.precision:>9.1%} {total.recall:>7.1%}"
        )
    count = sum(len(programs) for programs in scores.values())
    lines.append(
        f"{'overall':<14} {count:>8} {overall.expected:>6} {overall.found:>6} {overall.right:>6}"
        f" {overall.precision:>9.1%} {overall.recall:>7.1%}"
    )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    os.environ.setdefault("MMLINT_NO_CACHE", "1")
    given = [a for a in argv if not a.startswith("-")]
    if given:
        snippets = Path(given[0])
    else:
        sys.path.insert(0, str(REPO / "tests" / "ecosystem"))
        from releases import pycg_snippets  # type: ignore[import-not-found]

        snippets = pycg_snippets()
    scores = score_all(snippets)
    verbose = "-v" in argv
    if verbose:
        for category, programs in scores.items():
            for name, score in programs.items():
                for line in score.misses:
                    print(f"miss  {category}/{name}: {line}")
                for line in score.extras:
                    print(f"extra {category}/{name}: {line}")
    print(table(scores))
    return 0


if __name__ == "__main__":
    raise SystemExit(main([a for a in sys.argv[1:]]))
