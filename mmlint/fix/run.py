"""Fixing every target file of a check report, and the values describing the run."""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mmlint.check.workers import WorkerDeath, run_all
from mmlint.core.diagnostics import Diagnostic
from mmlint.core.report import AnalysedReport, Report
from mmlint.core.source import split_lines
from mmlint.core.write import remove_leftovers
from mmlint.fix.model import FileFixResult, UnfixedSite
from mmlint.fix.pipeline import SYNTAX_ERROR_CODE, FileToFix, fix_file, fix_kind_of
from mmlint.reporters.escaping import visible, visible_line


# How many rounds `fix` goes before it says it stopped with files still changing.
MAX_FIX_ROUNDS = 20


@dataclass(frozen=True)
class FixRun:
    """The outcome of one ``mmlint fix`` run: one result per file that had
    something to fix, report or refuse, in path order."""

    results: tuple[FileFixResult, ...]
    # Files another run had already fixed when this one came to write them.
    already_fixed: tuple[str, ...] = ()
    # Files that changed on disk while being fixed and were planned again from
    # what they then held (fix_in_rounds).
    replanned: tuple[str, ...] = ()
    # The rounds fix_in_rounds went before stopping with files still changing (0: it settled).
    stopped_after: int = 0
    # The display paths this run looked at (None: every file of its report).
    scope: frozenset[str] | None = None

    @property
    def changed(self) -> tuple[FileFixResult, ...]:
        return tuple(result for result in self.results if result.changed)

    @property
    def errors(self) -> tuple[FileFixResult, ...]:
        return tuple(result for result in self.results if result.error is not None)

    @property
    def stale(self) -> tuple[FileFixResult, ...]:
        """Files left as they are because they changed since they were analysed."""
        return tuple(result for result in self.results if result.stale and result.error is None)

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
        """Every fixable site fixed, none left over, no file refused, nothing
        still changing."""
        return not self.errors and not self.unfixed and not self.stale and not self.stopped_after


def _is_fix_relevant(diagnostic: Diagnostic) -> bool:
    return diagnostic.code == SYNTAX_ERROR_CODE or fix_kind_of(diagnostic) is not None


def fix_report(
    report: AnalysedReport,
    *,
    write: bool,
    only: Collection[str] | None = None,
    links: Mapping[Path, Path] | None = None,
    buffers: Mapping[str, bytes] | None = None,
) -> FixRun:
    """Fix the fixable diagnostics of ``report``,
    writing changed files only when ``write`` is true; ``only``: just these
    display paths; ``links``: symbolic links named on the command line, to the
    targets they had when the run started (named_links), fixed through them;
    ``buffers``: display paths whose bytes are these rather than the disk's
    (standard input): planned and verified on them, never written."""
    by_path: dict[str, list[Diagnostic]] = defaultdict(list)
    for diagnostic in report.diagnostics:
        if diagnostic.path in report.file_paths and _is_fix_relevant(diagnostic):
            if only is None or diagnostic.path in only:
                by_path[diagnostic.path].append(diagnostic)
    links = links or {}
    buffers = buffers or {}
    tasks: list[tuple[FileToFix, bool, bytes | None]] = []
    for path in sorted(by_path):
        abs_path = report.file_paths[path]
        file = FileToFix(
            path,
            abs_path,
            tuple(by_path[path]),
            report.project.files.get(path),
            digest=report.digests.get(path),
            real_path=links.get(abs_path),
        )
        tasks.append((file, write, buffers.get(path)))
    try:
        # Each file is fixed (and written) in a worker as soon as one is free: a slow
        # file holds back nobody else's write, and a crash costs only its own file.
        results = dict(run_all(_fix_one, tasks, lambda: None, crashed=_crashed, size=_fix_task_size))
    finally:
        if write:
            # A worker killed mid-write (a crash, or the pool torn down on
            # Ctrl-C or SIGTERM) cannot remove its temporary file: we do.
            _remove_temporary_files([task[0] for task in tasks if task[2] is None])
    ordered = tuple(results[index] for index in range(len(tasks)))
    return FixRun(
        ordered,
        already_fixed=tuple(r.path for r in ordered if r.already_fixed),
        scope=None if only is None else frozenset(only),
    )


def _fix_task_size(task: tuple[FileToFix, bool, bytes | None]) -> int:
    """A fix task's input in bytes (mmlint.check.workers.run_all's pool rule): its buffer, else the file's size."""
    file, _, buffer = task
    if buffer is not None:
        return len(buffer)
    try:
        return os.stat(file.real_path or file.abs_path).st_size
    except OSError:  # gone or unreadable: _fix_one reports it
        return 0


def _fix_one(file: FileToFix, write: bool, buffer: bytes | None) -> FileFixResult:
    if buffer is None:
        return fix_file(file, write=write)
    return fix_file(file, write=write, source=buffer)


def _crashed(task: tuple[FileToFix, bool, bytes | None], why: WorkerDeath) -> FileFixResult:
    file = task[0]
    return FileFixResult(file.path, file.abs_path, error=f"left untouched: {why}", diagnostics=file.diagnostics)


def _remove_temporary_files(files: Sequence[FileToFix]) -> None:
    names: dict[Path, set[str]] = defaultdict(set)
    for file in files:
        real = file.real_path or file.abs_path
        names[real.parent].add(real.name)
    for directory, in_it in names.items():
        remove_leftovers(directory, names=frozenset(in_it), min_age=0)


def remove_old_leftovers(report: Report, links: Mapping[Path, Path] | None = None) -> list[str]:
    """Remove the temporary files an interrupted `mmlint fix` (kill -9, the OOM
    killer) left beside the files of ``report``, when old enough that no live
    run is writing them; return them as display paths."""
    directories: dict[Path, str] = {}
    for shown, path in report.file_paths.items():
        real = (links or {}).get(path, path)
        directories.setdefault(real.parent, os.path.dirname(shown) if real == path else str(real.parent))
    removed: list[str] = []
    for directory, shown in directories.items():
        removed.extend(os.path.join(shown, leftover.name) for leftover in remove_leftovers(directory))
    return removed


def named_links(paths: Sequence[Path], cwd: Path) -> dict[Path, Path]:
    """The symbolic links to files among ``paths`` (as named on the command
    line), each to its target as it is now: `fix` writes through such a link,
    which the user named, and through no other (walks never yield links)."""
    links: dict[Path, Path] = {}
    for path in paths:
        absolute = Path(os.path.abspath(cwd / path))
        if str(path) != "-" and os.path.islink(absolute) and os.path.isfile(absolute):
            links[absolute] = Path(os.path.realpath(absolute))
    return links


def fix_in_rounds(
    report: AnalysedReport,
    rescan: Callable[[Mapping[str, bytes]], AnalysedReport],
    *,
    write: bool,
    links: Mapping[Path, Path] | None = None,
    max_rounds: int = MAX_FIX_ROUNDS,
    buffers: Mapping[str, bytes] | None = None,
) -> tuple[FixRun, AnalysedReport]:
    """Fix ``report``, then go again on a fresh scan (``rescan(buffers)``) while a
    round changed something (a fix can make another site fixable: a twin pair
    whose async member now suspends, a suppression now unused) or found a file
    changed meanwhile, so that a second `mmlint fix` is a no-op. Without
    ``write`` only the changed files are planned again. ``buffers``: files
    fixed from these bytes instead of the disk's, never written (standard
    input, by its display path); each round's rescan is handed what the
    rounds so far made of them, and with ``write`` their rounds go on as a
    written file's do. Stops after ``max_rounds``, saying so
    (``stopped_after``). Returns the merged run and the last report."""
    current = dict(buffers or {})
    rounds = [fix_report(report, write=write, links=links, buffers=current)]
    while len(rounds) < max_rounds:
        last = rounds[-1]
        stale = [result.path for result in last.stale]
        if not (stale or (write and last.changed)):
            break
        current.update((result.path, result.new) for result in last.changed if result.path in current)
        report = rescan(dict(current))
        rounds.append(fix_report(report, write=write, only=None if write else stale, links=links, buffers=current))
    last = rounds[-1]
    run = merge_rounds(rounds)
    if last.stale or (write and last.changed):
        gone_on = [
            dataclasses.replace(
                result,
                stale=False,
                error=f"changed on disk while it was being fixed, in each of {len(rounds)} rounds: left as it is now",
            )
            if result.stale
            else result
            for result in run.results
        ]
        run = dataclasses.replace(run, results=tuple(gone_on), stopped_after=len(rounds))
    return run, report


def merge_rounds(rounds: list[FixRun]) -> FixRun:
    """One run out of successive rounds over the same files: sites fixed in every
    round, the bytes from before the first change to after the last, and what
    is left (unfixed sites, errors, files still changing) as the last round
    that looked at the file saw it."""
    merged: dict[str, FileFixResult] = {}
    was_stale: set[str] = set()
    for index, run in enumerate(rounds):
        last = index == len(rounds) - 1
        for result in run.results:
            if result.stale:
                was_stale.add(result.path)
            earlier = merged.get(result.path)
            if earlier is None:
                merged[result.path] = result
                continue
            merged[result.path] = dataclasses.replace(
                result,
                fixed=earlier.fixed + result.fixed,
                old=earlier.old if earlier.changed else result.old,
                new=result.new if result.changed else earlier.new,
                # A later round's error does not undo what an earlier one wrote.
                partial=result.error is not None and earlier.changed,
                already_fixed=result.already_fixed and not earlier.changed,
            )
        if not last:
            continue
        # A file the last round looked at but did not visit has nothing left: keep its fixes only.
        seen = {result.path for result in run.results}
        for path, result in list(merged.items()):
            if path not in seen and (run.scope is None or path in run.scope):
                merged[path] = dataclasses.replace(result, unfixed=(), error=None, partial=False, stale=False)
    results = tuple(merged[path] for path in sorted(merged))
    already = tuple(dict.fromkeys(path for run in rounds for path in run.already_fixed))
    replanned = tuple(sorted(path for path in was_stale if not merged[path].stale))
    return FixRun(results, already_fixed=already, replanned=replanned)


def unified_diff(result: FileFixResult) -> str:
    """The change to one file as a unified diff with ``a/<path>`` / ``b/<path>``
    headers (the display path). Lines are decoded leniently: the diff is for
    reading; the bytes written are exactly ``result.new``. Control characters
    of the path and the lines are escaped (mmlint.reporters.escaping.visible_line):
    tabs and the lines' own breaks stay, so an ordinary diff still applies."""
    from mmlint.core.source import decode_keeping_format

    def lines(data: bytes) -> list[str]:
        try:
            text, _ = decode_keeping_format(data)
        except (SyntaxError, UnicodeError):
            text = data.decode("utf-8", errors="replace")
        return split_lines(text, keepends=True)

    old_lines, new_lines = lines(result.old), lines(result.new)
    shown = visible(result.path)
    diff = difflib.unified_diff(old_lines, new_lines, f"a/{shown}", f"b/{shown}")
    out = []
    for line in map(visible_line, diff):  # what a terminal would act on is shown, never sent
        # A last line without a newline gets the marker `diff` and `patch` use.
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
