"""The check pipeline as named stages:

    discover → prefilter and analyse (per file: cache, workers) → project
    → rules (per file) → filters (configuration, suppressions) → rules on the
    filter records (MM009) → project rules (MM008, MM009, MM999) → Report

Each file is governed by its own configuration (mmlint.config.resolve): the
walk, the per-file pass (twins, budgets), the rules and filters use that
file's; the stages after the project run once per configuration (a scope),
over the targets it governs. The project itself is one: cross-file analyses
see every file, targets and context alike.

Every stage takes and returns plain values; only `analyse` does I/O beyond
reading the files (the cache)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from mmlint.analysis.project import Project
from mmlint.check.cache import open_cache
from mmlint.check.discovery import (
    Discovery,
    as_resolver,
    context_files,
    discover,
    discover_stdin,
    glob_relpath,
)
from mmlint.check.filters import ConfigFilter, apply_suppressions
from mmlint.check.per_file import analyse_file
from mmlint.check.prefilter import Prefilter
from mmlint.check.progress import scan_progress
from mmlint.check.workers import run_all
from mmlint.config.resolve import ConfigResolver
from mmlint.config.settings import Settings
from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.core.paths import display_path
from mmlint.core.report import Report
from mmlint.facts.outcome import FileOutcome, Parsed, ParseFailure, Unparsed
from mmlint.rules import ConfigUsage, Rule, RuleContext, active_rules

__all__ = ["Report", "StdinSource", "run_check"]


@dataclass(frozen=True)
class StdinSource:
    """A file given on standard input (an editor's unsaved buffer): its bytes,
    and the path it stands for (``--stdin-filename``; it need not exist), whose
    configuration, exemptions and context apply. Without one, it is ``-`` in
    the working directory."""

    data: bytes
    filename: Path | None = None


def run_check(
    paths: Sequence[Path] | None,
    config: Settings | ConfigResolver,
    cwd: Path,
    *,
    progress: bool = False,
    use_cache: bool = True,
    stdin: StdinSource | None = None,
) -> Report:
    """Check ``paths`` (None: the configured paths of the cwd's configuration,
    else the cwd), or ``stdin``. ``config``: a resolver giving each file the
    configuration that governs it, or one Settings for every file."""
    cwd = Path(os.path.abspath(cwd))
    resolver = as_resolver(config, cwd)
    sources: dict[str, bytes] = {}
    if stdin is None:
        discovery = discover(paths, resolver, cwd)
        targets = _one_per_file(discovery.files, cwd)
    else:
        real = Path(os.path.abspath(cwd / (stdin.filename or "-")))
        discovery = discover_stdin(real, resolver, cwd)
        shown = str(stdin.filename) if stdin.filename is not None else "-"
        targets = {shown: path for path in discovery.files}
        sources = {shown: stdin.data}
    scopes = _scopes(targets, discovery, resolver)
    # Cross-file rules read the configured paths as context when the run covers only part of them.
    context = {
        display_path(p, cwd): p for scope in scopes if not scope.full_scan for p in context_files(scope.settings, cwd, resolver)
    }
    analysed = _analyse({**context, **targets}, resolver, sources, progress=progress, use_cache=use_cache)
    project = _project(analysed.outcomes, targets, discovery, resolver, cwd)
    failures = {shown: o for shown, o in analysed.outcomes.items() if shown in targets and isinstance(o, ParseFailure)}
    reported: list[Diagnostic] = []
    suppressed: list[Diagnostic] = []
    for scope in scopes:
        rules = active_rules(scope.settings)
        checked = _check_targets(project, analysed.outcomes, scope.targets, rules, scope.settings)
        ctx = RuleContext(
            scope.settings,
            _project_view(project, scope, cwd),
            parse_failures={shown: failure for shown, failure in failures.items() if shown in scope.targets},
            config_usage=checked.config_usage,
        )
        reported += [*checked.reported, *(d for rule in rules for d in rule.check_project(ctx))]
        suppressed += checked.suppressed
    return Report(
        files_scanned=len(targets),
        call_sites=project.call_site_count,
        diagnostics=tuple(sorted(reported, key=lambda d: d.sort_key)),
        project=project,
        file_paths=targets,
        settings=resolver.for_cwd,
        explicitly_excluded=discovery.explicitly_excluded,
        suppressed=tuple(sorted(suppressed, key=lambda d: d.sort_key)),
        outcomes={shown: analysed.outcomes[shown] for shown in targets},
        discovery_warnings=discovery.warnings,
        cache_warning=analysed.cache_warning,
    )


# -- which configuration governs which target --------------------------------------------


@dataclass(frozen=True)
class _Scope:
    """One configuration of the run and the targets it governs."""

    settings: Settings
    targets: dict[str, Path]
    # The run covers everything the configuration scans (its `paths`, else its
    # directory): its stale entries and too-few call sites can be judged (MM008, MM009).
    full_scan: bool


def _scopes(targets: Mapping[str, Path], discovery: Discovery, resolver: ConfigResolver) -> list[_Scope]:
    """The configurations governing the targets, and those of the directories
    walked (a configuration whose scan came out empty still hears of it, MM008)."""
    governed: dict[int, tuple[Settings, dict[str, Path]]] = {}
    for shown, real in targets.items():
        settings = resolver.settings_for(real)
        governed.setdefault(id(settings), (settings, {}))[1][shown] = real
    walked = [resolver.settings_for_directory(path) for path in discovery.walked]
    for settings in ([resolver.for_cwd] if discovery.full_scan else []) + walked:
        governed.setdefault(id(settings), (settings, {}))
    return [
        _Scope(settings, files, _covers(discovery, settings))
        for settings, files in sorted(governed.values(), key=lambda pair: str(pair[0].config_file or ""))
    ]


def _covers(discovery: Discovery, settings: Settings) -> bool:
    """Whether every directory or file the configuration scans lies under a directory walked."""
    scope = settings.paths or (settings.root,)
    return all(any(_is_under(str(path), str(walked)) for walked in discovery.walked) for path in scope)


def _is_under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(os.path.join(directory, ""))


# -- prefilter and analyse ---------------------------------------------------------------


@dataclass(frozen=True)
class _Analysed:
    outcomes: dict[str, FileOutcome]  # display path -> outcome, targets and context
    cache_warning: str | None


def _analyse(
    files: Mapping[str, Path], resolver: ConfigResolver, sources: Mapping[str, bytes], *, progress: bool, use_cache: bool
) -> _Analysed:
    """Every file's outcome: unparsed when the prefilter says it cannot hold a
    finding, from the cache when its bytes were seen, else from the per-file
    pass (in worker processes when there are many). Each file is read with the
    twins and budgets of its configuration; ``sources`` holds bytes already read
    (standard input) by display path."""
    prefilters: dict[tuple, Prefilter] = {}
    opening = open_cache(use_cache)
    cache = opening.cache
    outcomes: dict[str, FileOutcome] = {}
    tasks: list[tuple] = []
    keys: dict[str, str] = {}
    for shown, real in files.items():
        settings = resolver.settings_for(real)
        options = (settings.twins, settings.budgets)  # what besides the bytes decides an outcome
        try:
            data = sources[shown] if shown in sources else real.read_bytes()
        except OSError as error:
            outcomes[shown] = ParseFailure(Span(1, 1, 1, 1), f"could not read file: {error.strerror or error}")
            continue
        prefilter = prefilters.get(settings.twins)
        if prefilter is None:
            prefilter = prefilters[settings.twins] = Prefilter(settings.twins)
        if not prefilter.could_hold_finding(data):
            outcomes[shown] = Unparsed("prefilter")  # never parsed
            continue
        if cache is not None:
            keys[shown] = cache.key(data, real, shown, options)
            cached = cache.load(keys[shown])
            if cached is not None:
                outcomes[shown] = cached
                continue
        tasks.append((data, real, shown, *options))
    # Largest first: the pool's last busy worker then holds a small file, not a
    # large one that started late (the order of outcomes stays the files' order).
    tasks.sort(key=lambda task: -len(task[0]))
    finished: dict[int, FileOutcome] = {}  # by task index, in completion order
    with scan_progress(len(tasks), enabled=progress) as bar:
        for index, outcome in run_all(analyse_file, tasks, bar.advance, crashed=_crashed):
            finished[index] = outcome
            if cache is not None and not _is_crash(outcome):  # a crash may not happen again
                cache.store(keys[tasks[index][2]], outcome)
    outcomes.update({tasks[index][2]: finished[index] for index in finished})
    outcomes = {shown: outcomes[shown] for shown in files if shown in outcomes}  # the files' order: deterministic
    if cache is not None:
        cache.finish()
    return _Analysed(outcomes, opening.warning)


_CRASHED = "analysis failed"  # the ParseFailure kind of a file whose worker died


def _crashed(task: tuple, why: str) -> ParseFailure:
    """The outcome of a file whose analysis killed its worker: MM999 for that
    file alone, never the run's end."""
    return ParseFailure(Span(1, 1, 1, 1), why, kind=_CRASHED)


def _is_crash(outcome: FileOutcome) -> bool:
    return isinstance(outcome, ParseFailure) and outcome.kind == _CRASHED


# -- the project -----------------------------------------------------------------------


def _project(
    outcomes: Mapping[str, FileOutcome], targets: Mapping[str, Path], discovery: Discovery, resolver: ConfigResolver, cwd: Path
) -> Project:
    """The whole scan, as the cwd's configuration sees it (the project stage
    looks at it through each configuration: _project_view)."""
    parsed = {shown: o.facts for shown, o in outcomes.items() if isinstance(o, Parsed)}
    settings = resolver.for_cwd
    return Project(
        files=parsed,
        targets=frozenset(targets),
        # The configured scope: the `paths`, or without them the configuration's
        # directory; a run from a subdirectory sees only part of it.
        full_scan=discovery.full_scan and _covers(discovery, settings),
        call_site_count=_call_sites(parsed, targets),
        config_display_path=None if settings.config_file is None else display_path(settings.config_file, cwd),
    )


def _project_view(project: Project, scope: _Scope, cwd: Path) -> Project:
    """The project as one configuration's project rules judge it: its own
    targets' call sites, its own file, its own full-scan condition."""
    config_file = scope.settings.config_file
    return replace(
        project,
        full_scan=scope.full_scan,
        call_site_count=_call_sites(project.files, scope.targets),
        config_display_path=None if config_file is None else display_path(config_file, cwd),
    )


def _call_sites(parsed: Mapping[str, object], targets: Mapping[str, Path]) -> int:
    return sum(len(parsed[shown].call_sites) for shown in targets if shown in parsed)


# -- rules per file, then the filters ------------------------------------------------------


@dataclass(frozen=True)
class _Checked:
    reported: list[Diagnostic]
    suppressed: list[Diagnostic]
    config_usage: ConfigUsage


def _check_targets(
    project: Project, outcomes: Mapping[str, FileOutcome], targets: Mapping[str, Path], rules: Sequence[Rule], settings: Settings
) -> _Checked:
    """Each target's findings through the filters: exemptions and per-file
    ignores, then inline suppressions; then the rules that judge the
    suppressions (MM009), whose findings pass the configuration filters too."""
    ctx = RuleContext(settings, project)
    config_filter = ConfigFilter(settings)
    reported: list[Diagnostic] = []
    suppressed: list[Diagnostic] = []
    for shown, real in targets.items():
        outcome = outcomes[shown]
        relpath = glob_relpath(real, settings.root)
        exempt = config_filter.is_exempt_path(relpath)  # recorded for every file: MM009 judges the globs
        if not isinstance(outcome, Parsed) or exempt or outcome.suppressions.skip_file:
            continue  # failures are MM999's (project stage); exempt files are context only
        found = [d for rule in rules for d in rule.check_file(outcome.facts, ctx)]
        filtered = apply_suppressions(found, config_filter.apply(found, relpath), outcome.suppressions)
        suppressed.extend(filtered.suppressed)
        about_suppressions = [
            d for rule in rules for d in rule.check_suppressions(shown, outcome.suppressions, filtered.used, ctx)
        ]
        reported.extend(filtered.kept)
        reported.extend(config_filter.apply(about_suppressions, relpath))
    return _Checked(reported, suppressed, config_filter.usage())


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
