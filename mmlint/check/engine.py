"""The check pipeline as named stages:

    discover → prefilter and analyse (per file: cache, workers) → project
    → rules (per file) → filters (configuration, suppressions) → rules on the
    filter records (MM009) → project rules (MM008, MM009, MM999) → Report

Every stage takes and returns plain values; only `analyse` does I/O beyond
reading the files (the cache)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mmlint.analysis.project import Project
from mmlint.check.cache import open_cache
from mmlint.check.discovery import Discovery, context_files, discover, glob_relpath
from mmlint.check.filters import ConfigFilter, apply_suppressions
from mmlint.check.per_file import analyse_file
from mmlint.check.prefilter import Prefilter
from mmlint.check.progress import scan_progress
from mmlint.check.workers import run_all
from mmlint.config.settings import Settings
from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.core.paths import display_path
from mmlint.core.report import Report
from mmlint.facts.outcome import FileOutcome, Parsed, ParseFailure, Unparsed
from mmlint.rules import Rule, RuleContext, active_rules

__all__ = ["Report", "run_check"]


def run_check(
    paths: Sequence[Path] | None, settings: Settings, cwd: Path, *, progress: bool = False, use_cache: bool = True
) -> Report:
    cwd = Path(os.path.abspath(cwd))
    discovery = discover(paths, settings, cwd)
    targets = _one_per_file(discovery.files, cwd)
    # Cross-file rules read the configured paths as context when PATH names only some files.
    context = {display_path(p, cwd): p for p in (context_files(settings, cwd) if paths else ())}
    analysed = _analyse({**context, **targets}, settings, progress=progress, use_cache=use_cache)
    project = _project(analysed.outcomes, targets, discovery, settings, cwd)
    rules = active_rules(settings)
    checked = _check_targets(project, analysed.outcomes, targets, rules, settings)
    failures = {shown: o for shown, o in analysed.outcomes.items() if shown in targets and isinstance(o, ParseFailure)}
    ctx = RuleContext(settings, project, parse_failures=failures, config_usage=checked.config_usage)
    reported = [*checked.reported, *(d for rule in rules for d in rule.check_project(ctx))]
    return Report(
        files_scanned=len(targets),
        call_sites=project.call_site_count,
        diagnostics=tuple(sorted(reported, key=lambda d: d.sort_key)),
        project=project,
        file_paths=targets,
        settings=settings,
        explicitly_excluded=discovery.explicitly_excluded,
        suppressed=tuple(sorted(checked.suppressed, key=lambda d: d.sort_key)),
        outcomes={shown: analysed.outcomes[shown] for shown in targets},
        discovery_warnings=discovery.warnings,
        cache_warning=analysed.cache_warning,
    )


# -- prefilter and analyse ---------------------------------------------------------------


@dataclass(frozen=True)
class _Analysed:
    outcomes: dict[str, FileOutcome]  # display path -> outcome, targets and context
    cache_warning: str | None


def _analyse(files: Mapping[str, Path], settings: Settings, *, progress: bool, use_cache: bool) -> _Analysed:
    """Every file's outcome: unparsed when the prefilter says it cannot hold a
    finding, from the cache when its bytes were seen, else from the per-file
    pass (in worker processes when there are many)."""
    prefilter = Prefilter(settings.twins)
    opening = open_cache(use_cache)
    cache = opening.cache
    options = (settings.twins, settings.budgets)  # what besides the bytes decides an outcome
    outcomes: dict[str, FileOutcome] = {}
    tasks: list[tuple] = []
    keys: dict[str, str] = {}
    for shown, real in files.items():
        try:
            data = real.read_bytes()
        except OSError as error:
            outcomes[shown] = ParseFailure(Span(1, 1, 1, 1), f"could not read file: {error.strerror or error}")
            continue
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
    finished: dict[int, FileOutcome] = {}  # by task index, in completion order
    with scan_progress(len(tasks), enabled=progress) as bar:
        for index, outcome in run_all(analyse_file, tasks, bar.advance, crashed=_crashed):
            finished[index] = outcome
            if cache is not None and not _is_crash(outcome):  # a crash may not happen again
                cache.store(keys[tasks[index][2]], outcome)
    outcomes.update((tasks[index][2], finished[index]) for index in sorted(finished))  # task order: deterministic
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
    outcomes: Mapping[str, FileOutcome], targets: Mapping[str, Path], discovery: Discovery, settings: Settings, cwd: Path
) -> Project:
    parsed = {shown: o.facts for shown, o in outcomes.items() if isinstance(o, Parsed)}
    return Project(
        files=parsed,
        targets=frozenset(targets),
        # The configured scope: the `paths`, or without them the configuration's
        # directory; a run from a subdirectory sees only part of it.
        full_scan=discovery.full_scan and (bool(settings.paths) or cwd == settings.root),
        call_site_count=sum(len(parsed[s].call_sites) for s in targets if s in parsed),
        config_display_path=None if settings.config_file is None else display_path(settings.config_file, cwd),
    )


# -- rules per file, then the filters ------------------------------------------------------


@dataclass(frozen=True)
class _Checked:
    reported: list[Diagnostic]
    suppressed: list[Diagnostic]
    config_usage: object  # mmlint.rules.ConfigUsage


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
    seen: set[str] = set()
    unique: dict[str, Path] = {}
    for path in files:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            unique[display_path(path, cwd)] = path
    return unique
