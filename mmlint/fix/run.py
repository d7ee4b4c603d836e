"""Fixing every target file of a check report, and the values describing the run."""

from __future__ import annotations

import dataclasses
import difflib
from collections import defaultdict
from dataclasses import dataclass

from mmlint.check.workers import run_all
from mmlint.core.diagnostics import Diagnostic
from mmlint.core.source import split_lines
from mmlint.fix.model import FileFixResult, UnfixedSite
from mmlint.fix.pipeline import SYNTAX_ERROR_CODE, FileToFix, fix_file, fix_kind_of


@dataclass(frozen=True)
class FixRun:
    """The outcome of one ``mmlint fix`` run: one result per file that had
    something to fix, report or refuse, in path order."""

    results: tuple[FileFixResult, ...]

    @property
    def changed(self) -> tuple[FileFixResult, ...]:
        return tuple(result for result in self.results if result.changed)

    @property
    def errors(self) -> tuple[FileFixResult, ...]:
        return tuple(result for result in self.results if result.error is not None)

    @property
    def untouched_by_errors(self) -> tuple[FileFixResult, ...]:
        return tuple(result for result in self.errors if not result.partial)

    @property
    def sites_fixed(self) -> int:
        return sum(len(result.fixed) for result in self.changed)

    @property
    def unfixed(self) -> tuple[tuple[str, UnfixedSite], ...]:
        return tuple((result.path, site) for result in self.results if result.error is None for site in result.unfixed)

    @property
    def clean(self) -> bool:
        """Every fixable site fixed, none left over, no file refused."""
        return not self.errors and not self.unfixed


def _is_fix_relevant(diagnostic: Diagnostic) -> bool:
    return diagnostic.code == SYNTAX_ERROR_CODE or fix_kind_of(diagnostic.code) is not None


def fix_report(report, *, write: bool) -> FixRun:
    """Fix the fixable diagnostics of ``report`` (an ``mmlint.check.engine.Report``),
    writing changed files only when ``write`` is true."""
    by_path: dict[str, list[Diagnostic]] = defaultdict(list)
    for diagnostic in report.diagnostics:
        if diagnostic.path in report.file_paths and _is_fix_relevant(diagnostic):
            by_path[diagnostic.path].append(diagnostic)
    tasks = [
        (FileToFix(path, report.file_paths[path], tuple(by_path[path]), report.project.files.get(path)), write)
        for path in sorted(by_path)
    ]
    # Each file is fixed (and written) in a worker as soon as one is free: a slow
    # file holds back nobody else's write, and a crash costs only its own file.
    results = dict(run_all(_fix_one, tasks, lambda: None, crashed=_crashed))
    return FixRun(tuple(results[index] for index in range(len(tasks))))


def _fix_one(file: FileToFix, write: bool) -> FileFixResult:
    return fix_file(file, write=write)


def _crashed(task: tuple, why: str) -> FileFixResult:
    file = task[0]
    return FileFixResult(file.path, file.abs_path, error=f"left untouched: {why}", diagnostics=file.diagnostics)


def merge_rounds(rounds: list[FixRun]) -> FixRun:
    """One run out of successive rounds over the same files: sites fixed in every
    round, the bytes from before the first to after the last, and what is left
    (unfixed sites, errors) as the last round saw it."""
    merged: dict[str, FileFixResult] = {}
    for index, run in enumerate(rounds):
        last = index == len(rounds) - 1
        for result in run.results:
            earlier = merged.get(result.path)
            if earlier is None:
                merged[result.path] = result
                continue
            merged[result.path] = dataclasses.replace(
                result,
                fixed=earlier.fixed + result.fixed,
                old=earlier.old,
                new=result.new if result.changed else earlier.new,
                # A later round's error does not undo what an earlier one wrote.
                partial=result.error is not None and earlier.changed,
            )
        if not last:
            continue
        # A file the last round did not visit has nothing left: keep its fixes only.
        seen = {result.path for result in run.results}
        for path, result in list(merged.items()):
            if path not in seen:
                merged[path] = dataclasses.replace(result, unfixed=(), error=None, partial=False)
    return FixRun(tuple(merged[path] for path in sorted(merged)))


def unified_diff(result: FileFixResult) -> str:
    """The change to one file as a unified diff with ``a/<path>`` / ``b/<path>``
    headers (the display path). Lines are decoded leniently: the diff is for
    reading; the bytes written are exactly ``result.new``."""
    from mmlint.core.source import decode_keeping_format

    def lines(data: bytes) -> list[str]:
        try:
            text, _ = decode_keeping_format(data)
        except (SyntaxError, UnicodeError):
            text = data.decode("utf-8", errors="replace")
        return split_lines(text, keepends=True)

    old_lines, new_lines = lines(result.old), lines(result.new)
    diff = difflib.unified_diff(old_lines, new_lines, f"a/{result.path}", f"b/{result.path}")
    out = []
    for line in diff:
        # A last line without a newline gets the marker `diff` and `patch` use.
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)
