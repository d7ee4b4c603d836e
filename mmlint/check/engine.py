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

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from mmlint.check.cache import CacheOpening, open_cache
from mmlint.check.discovery import (
    Discovery,
    SourceFile,
    as_resolver,
    context_sources,
    discover,
    discover_stdin,
)
from mmlint.check.file_index import FileIndex
from mmlint.check.reading import StdinSource, digests_of, read_files
from mmlint.check.results import RunResults, ScopeInput, run_key
from mmlint.check.scopes import Scope, scopes_of
from mmlint.config.resolve import ConfigResolver
from mmlint.config.settings import Settings
from mmlint.core.paths import display_path
from mmlint.core.report import AnalysedReport, Report

if TYPE_CHECKING:
    from mmlint.analysis.project import Project
    from mmlint.check.findings import FindingsMemo
    from mmlint.facts.outcome import FileOutcome

__all__ = ["AnalysedReport", "Report", "StdinSource", "run_check"]


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
    memo: FindingsMemo | None = None,
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
    memo: FindingsMemo | None = None,
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
    memo: FindingsMemo | None = None,
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
    opening the user's (a server keeps decoded facts in memory); ``memo``: the
    findings of earlier runs, taken by a run whose every input equals one's
    (mmlint.check.findings.FindingsMemo). The four are for `mmlint server`."""
    cwd = Path(os.path.abspath(cwd))
    resolver = as_resolver(config, cwd)
    run = _targets(paths, stdin, resolver, cwd)
    scopes = scopes_of(run.governed, run.discovery, resolver.for_cwd)
    files = {**_context(scopes, extra_context, resolver, cwd), **run.governed}
    opening = caches if caches is not None else open_cache(use_cache, _scanned(run.discovery, scopes))
    sources = _buffers(files, overlay, run.stdin)
    keyed = index = None
    if findings_only and stdin is None and not overlay and opening.results is not None:
        # What each unchanged file is, without reading it (mmlint.check.file_index).
        index = FileIndex(opening.index, (source.path for source in files.values()))
        keyed = _keyed(files, scopes, resolver.for_cwd, cwd, index)
        stored = opening.results.load(keyed.key) if keyed is not None else None
        if stored is not None:
            if index is not None:
                index.save()
            return _report(stored, None, {}, run, resolver, opening.warning)
    read = read_files(files, sources, index)
    if index is not None:
        index.save()
    # Imported only now: a run the results cache answers needs no rules and no analysis.
    from mmlint.check.findings import find

    targets = run.targets
    found = find(
        read, opening.cache, scopes, targets, run.discovery, resolver.for_cwd, cwd, progress=progress, memo=memo
    )
    results = RunResults(found.reported, found.suppressed, found.project.call_site_count, found.project.full_scan)
    # Stored only when what was analysed is what was keyed: no file changed in between.
    if keyed is not None and opening.results is not None and not found.crashed and read.digests == keyed.digests:
        opening.results.store(keyed.key, results)
        opening.results.finish()
    outcomes = {shown: found.outcomes[shown] for shown in targets}
    report = _report(results, found.project, outcomes, run, resolver, opening.warning)
    return replace(report, digests={shown: digest for shown, _, digest in read.digests})


# -- the stages ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Targets:
    """What the run checks: the discovery, each target (by display path) with
    its settings, and standard input's text by display path (when read)."""

    discovery: Discovery
    governed: dict[str, SourceFile]
    stdin: dict[str, StdinSource]

    @property
    def targets(self) -> dict[str, Path]:
        return {shown: source.path for shown, source in self.governed.items()}


def _targets(paths: Sequence[Path] | None, stdin: StdinSource | None, resolver: ConfigResolver, cwd: Path) -> _Targets:
    """Discovery: each file once, with the settings that govern it."""
    if stdin is None:
        discovery = discover(paths, resolver, cwd)
        return _Targets(discovery, _one_per_file(discovery.sources, cwd), {})
    real = Path(os.path.abspath(cwd / (stdin.filename or "-")))
    discovery = discover_stdin(real, resolver, cwd)
    shown = str(stdin.filename) if stdin.filename is not None else "-"
    return _Targets(discovery, {shown: discovery.sources[-1]} if discovery.sources else {}, {shown: stdin})


def _context(
    scopes: Sequence[Scope], extra_context: Sequence[Path], resolver: ConfigResolver, cwd: Path
) -> dict[str, SourceFile]:
    """The files read as context: the configured paths of a configuration the
    run covers only part of (cross-file rules read them), and ``extra_context``."""
    context = {
        display_path(source.path, cwd): source
        for scope in scopes
        if not scope.full_scan
        for source in context_sources(scope.settings, cwd, resolver)
    }
    context.update((display_path(p, cwd), SourceFile(p, resolver.settings_for(p))) for p in extra_context)
    return context


def _scanned(discovery: Discovery, scopes: Sequence[Scope]) -> list[Path]:
    """What the run reads: a cache inside it is one the code under check could have written."""
    return [*discovery.walked, *(scope.settings.root for scope in scopes if scope.settings.config_file is not None)]


def _buffers(
    files: Mapping[str, SourceFile], overlay: Mapping[Path, bytes] | None, stdin: Mapping[str, StdinSource]
) -> dict[str, StdinSource]:
    """The text of the files that is not the disk's: an editor's buffers, standard input."""
    if not overlay:
        return dict(stdin)
    buffers = {shown: StdinSource(overlay[s.path], s.path) for shown, s in files.items() if s.path in overlay}
    return {**buffers, **stdin}


@dataclass(frozen=True)
class _Keyed:
    """A run's key in the results cache, and the digests it was taken from."""

    key: str
    digests: list[tuple[str, Path, bytes]]


def _keyed(
    files: Mapping[str, SourceFile], scopes: Sequence[Scope], for_cwd: Settings, cwd: Path, index: FileIndex | None
) -> _Keyed | None:
    """Hashing alone decides a hit; the prefilter (which costs more than
    reading and hashing) runs only on a miss, over the files read again.
    None when a file cannot be read."""
    digests = digests_of(files, index)
    if digests is None:
        return None
    scope_inputs = [ScopeInput(scope.settings, tuple(scope.targets), scope.full_scan) for scope in scopes]
    return _Keyed(run_key(digests, scope_inputs, for_cwd, cwd), digests)


def _report(
    results: RunResults,
    project: Project | None,
    outcomes: dict[str, FileOutcome],
    run: _Targets,
    resolver: ConfigResolver,
    cache_warning: str | None,
) -> Report:
    """An AnalysedReport with the project, else (findings from the results cache) a Report."""
    targets, discovery = run.targets, run.discovery
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


def _one_per_file(files: Sequence[SourceFile], cwd: Path) -> dict[str, SourceFile]:
    """Display path -> file, once per real file: a symbolic link to a file that is
    scanned anyway would report (and fix) the same code twice."""
    seen: set[object] = set()
    unique: dict[str, SourceFile] = {}
    for source in files:
        path = source.path
        try:
            status = os.stat(path)  # follows links: one identity per real file, cheaper than realpath
            identity: object = (status.st_dev, status.st_ino)
        except OSError:
            identity = os.path.realpath(path)
        if identity not in seen:
            seen.add(identity)
            unique[display_path(path, cwd)] = source
    return unique
