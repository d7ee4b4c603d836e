"""The check pipeline as named stages:

    discover → hash (`check` with a cache) → results cache → on a miss, read
    (hash, prefilter) → the analysis (mmlint.check.findings: per-file outcomes
    from the facts cache or workers → project → rules per file → filters →
    project rules) → Report

Each file is governed by its own configuration (mmlint.config.resolve): the
walk, the per-file pass (twins, budgets), the rules and filters use that
file's; the stages after the project run once per configuration (a scope,
mmlint.check.scopes), over the targets it governs. The project itself is
one: cross-file analyses see every file, targets and context alike.

Every stage takes and returns plain values; only the caches do I/O beyond
reading the files."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from mmlint.check.cache import CacheOpening, PrefilterVerdicts, open_cache
from mmlint.check.discovery import (
    Discovery,
    as_resolver,
    context_files,
    discover,
    discover_stdin,
)
from mmlint.check.cost import over_size_budget
from mmlint.check.prefilter import Prefilter
from mmlint.check.results import RunResults, ScopeInput, run_key
from mmlint.check.scopes import scopes_of
from mmlint.config.resolve import ConfigResolver
from mmlint.config.settings import Budgets, Settings
from mmlint.core.paths import display_path
from mmlint.core.report import AnalysedReport, Report
from mmlint.core.twins import TwinPair

if TYPE_CHECKING:
    from mmlint.analysis.project import Project
    from mmlint.check.per_file import FileTask
    from mmlint.facts.outcome import FileOutcome

__all__ = ["AnalysedReport", "Report", "StdinSource", "run_check"]


@dataclass(frozen=True)
class StdinSource:
    """A file given on standard input (an editor's unsaved buffer): its bytes,
    and the path it stands for (``--stdin-filename``; it need not exist), whose
    configuration, exemptions and context apply. Without one, it is ``-`` in
    the working directory."""

    data: bytes
    filename: Path | None = None
    # False: the stream holds more than ``data``; reading stopped one byte
    # past the file's size budget (mmlint.cli.common.read_stdin): refused.
    complete: bool = True


@overload
def run_check(
    paths: Sequence[Path] | None,
    config: Settings | ConfigResolver,
    cwd: Path,
    *,
    progress: bool = False,
    use_cache: bool = True,
    stdin: StdinSource | None = None,
    findings_only: Literal[False] = False,
    overlay: Mapping[Path, bytes] | None = None,
    extra_context: Sequence[Path] = (),
    caches: CacheOpening | None = None,
) -> AnalysedReport: ...


@overload
def run_check(
    paths: Sequence[Path] | None,
    config: Settings | ConfigResolver,
    cwd: Path,
    *,
    progress: bool = False,
    use_cache: bool = True,
    stdin: StdinSource | None = None,
    findings_only: bool,
    overlay: Mapping[Path, bytes] | None = None,
    extra_context: Sequence[Path] = (),
    caches: CacheOpening | None = None,
) -> Report: ...


def run_check(
    paths: Sequence[Path] | None,
    config: Settings | ConfigResolver,
    cwd: Path,
    *,
    progress: bool = False,
    use_cache: bool = True,
    stdin: StdinSource | None = None,
    findings_only: bool = False,
    overlay: Mapping[Path, bytes] | None = None,
    extra_context: Sequence[Path] = (),
    caches: CacheOpening | None = None,
) -> Report:
    """Check ``paths`` (None: the configured paths of the cwd's configuration,
    else the cwd), or ``stdin``. ``config``: a resolver giving each file the
    configuration that governs it, or one Settings for every file.

    ``findings_only``: the caller reads the findings and counts, not the
    project or the outcomes (`check`). Such a run whose every input matches a
    stored run's takes that run's findings from the results cache, and its
    Report has no project; every other run returns an AnalysedReport.

    ``overlay``: these (absolute) paths have this text, whatever the disk says
    (an editor's unsaved buffers); ``extra_context``: more files read as
    context (an editor's workspace); ``caches``: the caches to use instead of
    opening the user's (a server keeps decoded facts in memory). The three
    are for `mmlint server`."""
    cwd = Path(os.path.abspath(cwd))
    resolver = as_resolver(config, cwd)
    sources: dict[str, StdinSource] = {}
    if stdin is None:
        discovery = discover(paths, resolver, cwd)
        targets = _one_per_file(discovery.files, cwd)
    else:
        real = Path(os.path.abspath(cwd / (stdin.filename or "-")))
        discovery = discover_stdin(real, resolver, cwd)
        shown = str(stdin.filename) if stdin.filename is not None else "-"
        targets = {shown: discovery.files[-1]} if discovery.files else {}
        sources = {shown: stdin}
    scopes = scopes_of(targets, discovery, resolver)
    # Cross-file rules read the configured paths as context when the run covers only part of them.
    context = {
        display_path(p, cwd): p for scope in scopes if not scope.full_scan for p in context_files(scope.settings, cwd, resolver)
    }
    context.update((display_path(p, cwd), p) for p in extra_context)
    # A cache inside what the run reads is one the code under check could have written.
    scanned = [*discovery.walked, *(scope.settings.root for scope in scopes if scope.settings.config_file is not None)]
    opening = caches if caches is not None else open_cache(use_cache, scanned)
    files = {**context, **targets}
    if overlay:
        buffers = {shown: StdinSource(overlay[real], real) for shown, real in files.items() if real in overlay}
        sources = {**buffers, **sources}
    results_key = None
    keyed: list[tuple[str, Path, bytes]] | None = None
    if findings_only and stdin is None and not overlay and opening.results is not None:
        # Hashing alone decides a hit; the prefilter (which costs more than
        # reading and hashing) runs only on a miss, over the files read again.
        keyed = _digests(files, resolver)
        if keyed is not None:
            results_key = run_key(
                keyed,
                [ScopeInput(scope.settings, tuple(scope.targets), scope.full_scan) for scope in scopes],
                resolver.for_cwd,
                cwd,
            )
            stored = opening.results.load(results_key)
            if stored is not None:
                return _report(stored, None, {}, targets, discovery, resolver, opening.warning)
    # A run the results cache missed: bytes the prefilter rejected before need no second read.
    seen = _SeenVerdicts(opening.verdicts, keyed) if keyed is not None and opening.verdicts is not None else None
    read = _read(files, resolver, sources, seen=seen)
    # Imported only now: a run the results cache answers needs no rules and no analysis.
    from mmlint.check.findings import find

    found = find(read, opening.cache, scopes, targets, discovery, resolver, cwd, progress=progress)
    results = RunResults(found.reported, found.suppressed, found.project.call_site_count, found.project.full_scan)
    # Stored only when what was analysed is what was keyed: no file changed in between.
    if results_key is not None and opening.results is not None and not found.crashed and read.digests == keyed:
        opening.results.store(results_key, results)
        opening.results.finish()
    outcomes = {shown: found.outcomes[shown] for shown in targets}
    report = _report(results, found.project, outcomes, targets, discovery, resolver, opening.warning)
    return replace(report, digests={shown: digest for shown, _, digest in read.digests})


def _report(
    results: RunResults,
    project: Project | None,
    outcomes: dict[str, FileOutcome],
    targets: dict[str, Path],
    discovery: Discovery,
    resolver: ConfigResolver,
    cache_warning: str | None,
) -> Report:
    """An AnalysedReport with the project, else (findings from the results cache) a Report."""
    report = Report(
        files_scanned=len(targets),
        call_sites=results.call_sites,
        diagnostics=results.diagnostics,
        file_paths=targets,
        settings=resolver.for_cwd,
        explicitly_excluded=discovery.explicitly_excluded,
        suppressed=results.suppressed,
        outcomes=outcomes,
        discovery_warnings=discovery.warnings,
        cache_warning=cache_warning,
        full_scan=results.full_scan,
    )
    if project is None:
        return report
    return AnalysedReport(**{f.name: getattr(report, f.name) for f in fields(report)}, project=project)


# -- read, hash, prefilter ---------------------------------------------------------------


@dataclass(frozen=True)
class FilesRead:
    """The files as the analysis reads them: the ones that could not be read,
    the ones over their size budget (never read whole), the ones the
    prefilter says cannot hold a finding, the bytes of the others (to
    analyse), and every file's digest (the facts cache's keys; of a refused
    file, of its refusal)."""

    files: tuple[str, ...]  # display paths, the run's order
    unreadable: dict[str, str]  # display path -> why
    prefiltered: tuple[str, ...]
    tasks: list[FileTask]
    digests: list[tuple[str, Path, bytes]]  # (display path, real path, sha256 of the bytes)
    refused: dict[str, str] = field(default_factory=dict)  # display path -> the size budget it is over
    # The bytes of prefiltered files that did not come from the disk (an
    # editor's buffers): the reach (mmlint.check.reach) reads the others again.
    held: dict[str, bytes] = field(default_factory=dict)


class _OverSizeBudget(Exception):
    """A file holds more bytes than its size budget: ``str()`` says so."""


def _read_within(real: Path, budgets: Budgets) -> bytes:
    """The file's bytes, checking the size budget before reading and reading
    no more than one byte past it (a file that grows meanwhile, a device)."""
    limit = budgets.max_file_size
    with open(real, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        if size > limit:
            raise _OverSizeBudget(over_size_budget(size, budgets))
        data = file.read(limit + 1)
    if len(data) > limit:
        raise _OverSizeBudget(over_size_budget(None, budgets))
    return data


def _refusal_digest(why: str) -> bytes:
    """The digest a refused file is keyed by: its findings are its refusal."""
    return hashlib.sha256(b"mmlint: not read: " + why.encode()).digest()


def _digests(files: Mapping[str, Path], resolver: ConfigResolver) -> list[tuple[str, Path, bytes]] | None:
    """(display path, real path, sha256 of the bytes) of every file, in the
    run's order, as _read gives them; None when one cannot be read."""
    digests: list[tuple[str, Path, bytes]] = []
    for shown, real in files.items():
        try:
            digest = hashlib.sha256(_read_within(real, resolver.settings_for(real).budgets)).digest()
        except _OverSizeBudget as refusal:
            digest = _refusal_digest(str(refusal))
        except OSError:
            return None
        digests.append((shown, real, digest))
    return digests


class _SeenVerdicts:
    """The prefilter's verdicts of earlier runs (mmlint.check.cache.PrefilterVerdicts),
    for the files of a run already hashed (``keyed``: the results key's
    digests), and what this run adds to them, stored by ``finish``."""

    def __init__(self, store: PrefilterVerdicts, keyed: Sequence[tuple[str, Path, bytes]]) -> None:
        self._store = store
        self.digests = {shown: digest for shown, _, digest in keyed}
        self._loaded: dict[object, dict[bytes, bool]] = {}
        self._now: dict[object, dict[bytes, bool]] = {}

    def verdict(self, twins: object, digest: bytes) -> bool | None:
        if twins not in self._loaded:
            self._loaded[twins] = self._store.load(self._store.key(twins))
        return self._loaded[twins].get(digest)

    def record(self, twins: object, digest: bytes, passed: bool) -> None:
        self._now.setdefault(twins, {})[digest] = passed

    def finish(self) -> None:
        """Store this run's verdicts where they differ from what was loaded."""
        for twins, verdicts in self._now.items():
            if verdicts != self._loaded.get(twins):
                self._store.store(self._store.key(twins), verdicts)
        self._store.finish()


def _read(
    files: Mapping[str, Path],
    resolver: ConfigResolver,
    sources: Mapping[str, StdinSource],
    *,
    seen: _SeenVerdicts | None = None,
) -> FilesRead:
    """Read each file once, hash it and run the prefilter; keep the bytes of
    only the files the prefilter passes. ``sources`` holds what was already
    read (standard input) by display path. Each file is read with the twins
    and budgets of its configuration; a file over its size budget is refused
    unread. With ``seen``, a file whose digest (taken moments ago) the
    prefilter rejected in an earlier run is not read again: the verdict is a
    function of the bytes and the twins alone."""
    from mmlint.check.per_file import FileTask  # the per-file pass: not needed before a results-cache miss

    prefilters: dict[tuple[TwinPair, ...], Prefilter] = {}
    unreadable: dict[str, str] = {}
    refused: dict[str, str] = {}
    prefiltered: list[str] = []
    held: dict[str, bytes] = {}
    tasks: list[FileTask] = []
    digests: list[tuple[str, Path, bytes]] = []
    for shown, real in files.items():
        settings = resolver.settings_for(real)
        known = seen.digests.get(shown) if seen is not None and shown not in sources else None
        verdict = None  # the prefilter's on these bytes in an earlier run
        if seen is not None and known is not None:
            verdict = seen.verdict(settings.twins, known)
            if verdict is False:
                seen.record(settings.twins, known, False)
                digests.append((shown, real, known))
                prefiltered.append(shown)
                continue
        try:
            if shown in sources:
                data, complete = sources[shown].data, sources[shown].complete
                if not complete or len(data) > settings.budgets.max_file_size:
                    raise _OverSizeBudget(over_size_budget(len(data) if complete else None, settings.budgets))
            else:
                data = _read_within(real, settings.budgets)
        except _OverSizeBudget as refusal:
            refused[shown] = str(refusal)
            digests.append((shown, real, _refusal_digest(refused[shown])))
            continue
        except OSError as error:
            unreadable[shown] = str(error.strerror or error)
            continue
        digest = hashlib.sha256(data).digest()
        digests.append((shown, real, digest))
        if verdict is None or digest != known:  # unseen bytes, or the file changed since it was hashed
            prefilter = prefilters.get(settings.twins)
            if prefilter is None:
                prefilter = prefilters[settings.twins] = Prefilter(settings.twins)
            passed = prefilter.could_hold_finding(data)
        else:
            passed = verdict
        if seen is not None:
            seen.record(settings.twins, digest, passed)
        if passed:
            tasks.append(FileTask(data, real, shown, settings.twins, settings.budgets))
        else:
            prefiltered.append(shown)
            if shown in sources:
                held[shown] = data
    if seen is not None:
        seen.finish()
    return FilesRead(tuple(files), unreadable, tuple(prefiltered), tasks, digests, refused, held)


def _one_per_file(files: Sequence[Path], cwd: Path) -> dict[str, Path]:
    """Display path -> path, once per real file: a symbolic link to a file that is
    scanned anyway would report (and fix) the same code twice."""
    seen: set[object] = set()
    unique: dict[str, Path] = {}
    for path in files:
        try:
            status = os.stat(path)  # follows links: one identity per real file, cheaper than realpath
            identity: object = (status.st_dev, status.st_ino)
        except OSError:
            identity = os.path.realpath(path)
        if identity not in seen:
            seen.add(identity)
            unique[display_path(path, cwd)] = path
    return unique
