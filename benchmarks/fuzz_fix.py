"""A fuzz campaign for `mmlint fix`: generated modules through check → fix → fix → check.

    python benchmarks/fuzz_fix.py                          # 10,000 modules, seed 0
    python benchmarks/fuzz_fix.py --count 2000 --seed 7 --jobs 2 --out /tmp/fuzz-failures

Modules come from templates (processor-shaped code with the twins called in
every context, dressed with odd comments, suppressions, whitespace, line
endings and encodings) and from hypothesmith (arbitrary grammar with twin calls
spliced in); see fuzz_gen.py. Each batch of modules is written to a temporary
directory with an mmlint.toml and run through the real CLI: `check --format
json`, `fix`, `fix`, `check --format json`. Per module it asserts:

- no crash: exit codes 0 or 1, no traceback, no internal-error diagnostic, and
  no MM999 for a file CPython compiles;
- a fixed file compiles when the original did, and a file CPython rejects is
  never changed;
- every byte outside the edit spans is the same (fuzz_verify.py), and every
  fixable MM001 site was rewritten;
- the second fix changes nothing, and no fixable (`[*]`) diagnostic is left;
- `check` exits 1 exactly when it reports diagnostics; both fixes exit alike.

Each failure is saved under --out as `<kind>/<module>.py` (the input) with a
`.txt` beside it saying what failed. Exit status: 0 with no failures, else 1.
The same --seed generates the same modules.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_gen import Module, hypothesmith_modules, template_modules  # noqa: E402
from fuzz_verify import Site, byte_problems  # noqa: E402

CONFIG = 'select = ["MM"]\n'
SAVED_PER_KIND = 40  # reproducers written per failure kind; all are counted


@dataclass
class Failure:
    kind: str
    module: str | None  # None: the failure belongs to the batch, not one file
    detail: str


@dataclass
class BatchResult:
    generated: Counter = field(default_factory=Counter)  # by source
    compiled: int = 0
    checked: int = 0
    diagnostics: int = 0
    fixable_sites: int = 0
    files_fixed: int = 0
    failures: list[Failure] = field(default_factory=list)
    modules: dict[str, bytes] = field(default_factory=dict)  # only those that failed


@dataclass
class Run:
    """One `mmlint` invocation; ``code`` is None when it timed out."""

    code: int | None
    stdout: str
    stderr: str

    @property
    def crashed(self) -> bool:
        return self.code not in (0, 1) or "Traceback" in self.stderr or "internal error" in self.stderr


def _mmlint(args: list[str], cwd: Path, cache: Path, timeout: float) -> Run:
    env = dict(os.environ, MMLINT_JOBS="1", MMLINT_CACHE_DIR=str(cache), NO_COLOR="1")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mmlint", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as expired:
        return Run(None, str(expired.stdout or ""), f"timed out after {timeout:.0f} s")
    return Run(done.returncode, done.stdout, done.stderr)


def _report(run: Run) -> dict[str, list[dict]] | None:
    """Diagnostics by path from a `check --format json`, None if it is not JSON."""
    try:
        payload = json.loads(run.stdout)
    except ValueError:
        return None
    by_path: dict[str, list[dict]] = {}
    for d in payload.get("diagnostics", []):
        by_path.setdefault(d["path"], []).append(d)
    return by_path


def _compiles(data: bytes) -> bool:
    try:
        compile(data, "<fuzz>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def _pipeline(modules: dict[str, bytes], timeout: float) -> tuple[BatchResult, list[str] | None]:
    """Run the four steps over ``modules`` in one directory. Returns the result
    and, when a step crashed, its description (the caller narrows it down)."""
    result = BatchResult()
    with tempfile.TemporaryDirectory(prefix="mmlint-fuzz-") as scratch:
        root, cache = Path(scratch) / "modules", Path(scratch) / "cache"
        root.mkdir()
        (root / "mmlint.toml").write_text(CONFIG)
        for name, data in modules.items():
            (root / name).write_bytes(data)
        steps: list[tuple[str, Run]] = []

        def step(name: str, args: list[str]) -> Run | None:
            run = _mmlint(args, root, cache, timeout)
            steps.append((name, run))
            return None if run.crashed else run

        first = step("check", ["check", "--format", "json", "."])
        first_report = _report(first) if first else None
        if first is None or first_report is None:
            return result, _describe(steps)
        fix1 = step("fix", ["fix", "."])
        if fix1 is None:
            return result, _describe(steps)
        after_fix1 = {name: (root / name).read_bytes() for name in modules}
        fix2 = step("second fix", ["fix", "."])
        if fix2 is None:
            return result, _describe(steps)
        after_fix2 = {name: (root / name).read_bytes() for name in modules}
        last = step("final check", ["check", "--format", "json", "."])
        last_report = _report(last) if last else None
        if last is None or last_report is None:
            return result, _describe(steps)

    for label, run, report in (("check", first, first_report), ("final check", last, last_report)):
        count = sum(len(v) for v in report.values())
        if run.code != (1 if count else 0):
            result.failures.append(
                Failure("check-exit-code", None, f"{label} exited {run.code} with {count} diagnostics")
            )
    if fix1.code != fix2.code:
        result.failures.append(
            Failure("fix-exit-code", None, f"first fix exited {fix1.code}, second {fix2.code}:\n{fix2.stdout}")
        )
    result.checked = len(modules)
    for name, original in modules.items():
        _judge(
            result,
            name,
            original,
            after_fix1[name],
            after_fix2[name],
            first_report.get(name, []),
            last_report.get(name, []),
            fix1.stdout,
        )
    return result, None


def _describe(steps: list[tuple[str, Run]]) -> list[str]:
    name, run = steps[-1]
    return [f"step `{name}` exited {run.code}", f"stderr:\n{run.stderr[-4000:]}", f"stdout:\n{run.stdout[-2000:]}"]


def _judge(
    result: BatchResult,
    name: str,
    original: bytes,
    fixed: bytes,
    fixed_again: bytes,
    before: list[dict],
    after: list[dict],
    fix_output: str,
) -> None:
    def fail(kind: str, detail: str) -> None:
        lines = [line for line in fix_output.splitlines() if name in line]
        context = "\n".join(
            [
                "",
                "check before the fix:",
                *(json.dumps(d, ensure_ascii=False) for d in before),
                "fix said:",
                *lines,
                "check after the fixes:",
                *(json.dumps(d, ensure_ascii=False) for d in after),
            ]
        )
        result.failures.append(Failure(kind, name, detail + "\n" + context))

    compiles = _compiles(original)
    result.compiled += compiles
    result.diagnostics += len(before)
    for d in before + after:
        if "internal error" in d["message"]:
            fail("internal-error", d["message"])
        elif d["code"] == "MM999" and compiles:
            fail("mm999-on-valid", d["message"])
    sites = [
        Site(d["line"], d["column"], d["end_line"], d["end_column"])
        for d in before
        if d["code"] == "MM001" and d["fixable"]
    ]
    result.fixable_sites += len(sites)
    if fixed != original:
        result.files_fixed += 1
        if not compiles:
            fail("changed-uncompilable", "fix changed a file CPython does not compile")
        elif not _compiles(fixed):
            try:
                compile(fixed, name, "exec", dont_inherit=True)
            except Exception as error:  # noqa: BLE001  (reported, whatever it is)
                fail("fixed-does-not-compile", f"{type(error).__name__}: {error}")
    problems = byte_problems(original, fixed, sites)
    if problems:
        unfixed = any("not rewritten" in p for p in problems)
        fail("fixable-not-fixed" if unfixed else "bytes-outside-edits", "\n".join(problems[:20]))
    if fixed_again != fixed:
        fail("second-fix-not-noop", "the second fix changed the file again")
    left = [d for d in after if d["fixable"]]
    if left:
        fail(
            "fixable-left",
            f"{len(left)} fixable diagnostic(s) left after fix: "
            + "; ".join(f"{d['line']}:{d['column']} {d['code']}" for d in left),
        )


def _narrow(modules: dict[str, bytes], timeout: float) -> BatchResult:
    """The pipeline over ``modules``; when a step crashes, halve the set until
    the crash is pinned on single modules."""
    result, crash = _pipeline(modules, timeout)
    if crash is None:
        return result
    if len(modules) == 1:
        (name,) = modules
        kind = "timeout" if "timed out" in "".join(crash) else "crash"
        result.failures.append(Failure(kind, name, "\n".join(crash)))
        result.checked = 1
        return result
    names = sorted(modules)
    half = len(names) // 2
    merged = BatchResult()
    for part in (names[:half], names[half:]):
        _merge(merged, _narrow({n: modules[n] for n in part}, timeout))
    return merged


def _merge(into: BatchResult, other: BatchResult) -> None:
    into.generated.update(other.generated)
    for attribute in ("compiled", "checked", "diagnostics", "fixable_sites", "files_fixed"):
        setattr(into, attribute, getattr(into, attribute) + getattr(other, attribute))
    into.failures.extend(other.failures)
    into.modules.update(other.modules)


@dataclass(frozen=True)
class Batch:
    index: int
    seed: int
    templates: int
    hypothesmith: int
    timeout: float


def generate(batch: Batch) -> list[Module]:
    """The batch's modules, the same for the same seed and index."""
    seed = batch.seed * 100_003 + batch.index
    prefix = f"b{batch.index:03d}"
    modules = template_modules(seed, batch.templates, prefix)
    if batch.hypothesmith:
        modules += hypothesmith_modules(seed, batch.hypothesmith, prefix)
    return modules


def run_batch(batch: Batch) -> BatchResult:
    modules = generate(batch)
    data = {m.name: m.data for m in modules}
    result = _narrow(data, batch.timeout)
    result.generated = Counter(m.source for m in modules)
    failed = {f.module for f in result.failures if f.module}
    result.modules = {name: data[name] for name in failed}
    return result


def batches(count: int, seed: int, batch_size: int, hypothesmith_share: float, timeout: float) -> list[Batch]:
    out = []
    for index, start in enumerate(range(0, count, batch_size)):
        size = min(batch_size, count - start)
        generated = round(size * hypothesmith_share)
        out.append(Batch(index, seed, size - generated, generated, timeout))
    return out


def run_campaign(
    count: int,
    seed: int,
    jobs: int,
    batch_size: int = 200,
    hypothesmith_share: float = 0.3,
    timeout: float = 900.0,
    progress=None,
) -> BatchResult:
    total = BatchResult()
    plan = batches(count, seed, batch_size, hypothesmith_share, timeout)
    if jobs <= 1:
        results = map(run_batch, plan)
        for done, result in enumerate(results, 1):
            _merge(total, result)
            if progress:
                progress(done, len(plan), total)
        return total
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for done, result in enumerate(pool.imap_unordered(run_batch, plan), 1):
            _merge(total, result)
            if progress:
                progress(done, len(plan), total)
    return total


def save_failures(result: BatchResult, out: Path) -> list[Path]:
    """Each failing module as `<kind>/<module>.py` plus a `.txt` of what failed."""
    written, per_kind = [], Counter()
    for failure in result.failures:
        per_kind[failure.kind] += 1
        if per_kind[failure.kind] > SAVED_PER_KIND:
            continue
        folder = out / failure.kind
        folder.mkdir(parents=True, exist_ok=True)
        stem = failure.module[:-3] if failure.module else f"batch{per_kind[failure.kind]:03d}"
        if failure.module:
            (folder / f"{stem}.py").write_bytes(result.modules[failure.module])
        (folder / f"{stem}.txt").write_text(
            f"{failure.kind}: {failure.module or 'the whole batch'}\n{failure.detail}\n",
            encoding="utf-8",
            errors="backslashreplace",
        )
        written.append(folder / f"{stem}.txt")
    return written


def summary(result: BatchResult, elapsed: float) -> str:
    kinds = Counter(f.kind for f in result.failures)
    lines = [
        f"modules generated: {sum(result.generated.values())} "
        f"(template {result.generated['template']}, hypothesmith {result.generated['hypothesmith']}); "
        f"{result.compiled} compile with CPython",
        f"checked: {result.checked}, diagnostics: {result.diagnostics}, fixable MM001 sites: {result.fixable_sites}, "
        f"files fixed: {result.files_fixed}",
        f"failures: {len(result.failures)}" + "".join(f"\n  {kind}: {n}" for kind, n in kinds.most_common()),
        f"elapsed: {elapsed:.0f} s",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000, help="modules to generate (default 10000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="batches run in parallel")
    parser.add_argument("--batch-size", type=int, default=200)
    parser.add_argument("--hypothesmith-share", type=float, default=0.3)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per mmlint run")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "mmlint-fuzz-failures")
    args = parser.parse_args(argv)
    started = time.monotonic()

    def progress(done: int, total: int, so_far: BatchResult) -> None:
        print(
            f"batch {done}/{total}: {so_far.checked} modules, {len(so_far.failures)} failures, "
            f"{time.monotonic() - started:.0f} s",
            flush=True,
        )

    result = run_campaign(
        args.count, args.seed, args.jobs, args.batch_size, args.hypothesmith_share, args.timeout, progress
    )
    if result.failures:
        save_failures(result, args.out)
        print(f"reproducers: {args.out}")
    print(summary(result, time.monotonic() - started))
    return 1 if result.failures else 0


if __name__ == "__main__":
    sys.exit(main())
