"""The analysis behind a run's findings, for a run the results cache did
not answer: each file's outcome (facts cache, then the per-file pass in
workers) → project → rules per file → filters (configuration, suppressions)
→ rules on the filter records (MM009) → project rules (MM008, MM009, MM999).

Imported only when a run needs it: a run answered by the results cache
imports neither the rules nor the analyses."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mmlint.analysis.project import Project
from mmlint.check.cache import FactsCache, OutcomeCache
from mmlint.check.discovery import Discovery, glob_relpath
from mmlint.check.filters import ConfigFilter, TargetFilters, apply_suppressions, is_context_only
from mmlint.check.per_file import (
    CRASHED,
    FileTask,
    analyse_file,
    import_the_parser,
    needs_own_process,
    outcome_of_death,
    prepare_worker,
)
from mmlint.check.progress import scan_progress
from mmlint.check.reach import Candidate, reach
from mmlint.check.scopes import Scope, covers
from mmlint.check.workers import run_all
from mmlint.config.settings import Settings
from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.core.paths import display_path
from mmlint.facts.model import FileFacts
from mmlint.facts.outcome import FileOutcome, Parsed, ParseFailure, Unparsed
from mmlint.rules import ConfigUsage, Rule, RuleContext, active_rules

if TYPE_CHECKING:
    from mmlint.check.reading import FilesRead

__all__ = ["Found", "FindingsMemo", "find"]


@dataclass(frozen=True)
class Found:
    outcomes: dict[str, FileOutcome]  # display path -> outcome, targets and context, the files' order
    project: Project
    reported: tuple[Diagnostic, ...]  # sorted
    suppressed: tuple[Diagnostic, ...]  # sorted

    @property
    def crashed(self) -> bool:
        """A worker died on some file: such a run may not happen again, so it is not kept."""
        return any(_is_crash(outcome) for outcome in self.outcomes.values())


class FindingsMemo:
    """The findings of the last runs (a server's), each with what they were
    found from. Everything after the per-file pass (the reach, the project,
    the rules) is a function of every file's outcome, the reach's candidates,
    the scopes and the discovery: a run whose inputs equal a kept run's finds
    what it found, and takes that. A keystroke in a comment or a blank line
    leaves its document's facts as they were, so it costs that file's pass
    alone, not the workspace's cross-file analyses (a few times more)."""

    def __init__(self, slots: int = 16) -> None:
        self._slots = slots  # target sets kept: a server runs once per open document
        self._kept: dict[frozenset[str], tuple[tuple[object, ...], Found]] = {}

    def get(self, targets: frozenset[str], inputs: tuple[object, ...]) -> Found | None:
        kept = self._kept.pop(targets, None)
        if kept is None or kept[0] != inputs:
            return None
        self._kept[targets] = kept  # the most recently used last
        return kept[1]

    def put(self, targets: frozenset[str], inputs: tuple[object, ...], found: Found) -> None:
        self._kept.pop(targets, None)
        self._kept[targets] = (inputs, found)
        while len(self._kept) > self._slots:
            del self._kept[next(iter(self._kept))]


def find(
    read: FilesRead,
    facts_cache: OutcomeCache | None,
    scopes: Sequence[Scope],
    targets: Mapping[str, Path],
    discovery: Discovery,
    for_cwd: Settings,
    cwd: Path,
    *,
    progress: bool,
    memo: FindingsMemo | None = None,
) -> Found:
    """Each file's settings came with it (in ``read``'s tasks and in
    ``scopes``); ``for_cwd``: the working directory's, which the project is
    seen by; ``memo``: findings of earlier runs to take where they apply."""
    outcomes = _analyse(read, facts_cache, progress=progress)
    if memo is None:
        return _found(read, outcomes, facts_cache, scopes, targets, discovery, for_cwd, cwd)
    slot = frozenset(targets)
    inputs = _inputs(read, outcomes, scopes, targets, discovery, for_cwd, cwd)
    found = memo.get(slot, inputs)
    if found is None:
        found = _found(read, outcomes, facts_cache, scopes, targets, discovery, for_cwd, cwd)
        if not found.crashed:  # a crash may not happen again
            memo.put(slot, inputs, found)
    return found


def _inputs(
    read: FilesRead,
    outcomes: Mapping[str, FileOutcome],
    scopes: Sequence[Scope],
    targets: Mapping[str, Path],
    discovery: Discovery,
    for_cwd: Settings,
    cwd: Path,
) -> tuple[object, ...]:
    """What _found reads, as one value compared by equality: the outcomes
    (the context's are the same objects run after run, so equal at once),
    the reach's candidates (mmlint.check.reach keys their facts by digest),
    the scopes and what of the discovery the project and the reach see."""
    prefiltered = set(read.prefiltered)
    return (
        tuple(outcomes.items()),
        tuple((shown, real, digest) for shown, real, digest in read.digests if shown in prefiltered),
        tuple((scope.settings, tuple(scope.targets.items()), scope.full_scan) for scope in scopes),
        tuple(targets.items()),
        discovery.files,
        discovery.named,
        discovery.walked,
        discovery.full_scan,
        for_cwd,
        cwd,
    )


def _found(
    read: FilesRead,
    outcomes: dict[str, FileOutcome],
    facts_cache: OutcomeCache | None,
    scopes: Sequence[Scope],
    targets: Mapping[str, Path],
    discovery: Discovery,
    for_cwd: Settings,
    cwd: Path,
) -> Found:
    """The reach, the project, and the rules over it, scope by scope."""
    project = _project(outcomes, _reached(read, outcomes, facts_cache, discovery), targets, discovery, for_cwd, cwd)
    failures = {shown: o for shown, o in outcomes.items() if shown in targets and isinstance(o, ParseFailure)}
    reported: list[Diagnostic] = []
    suppressed: list[Diagnostic] = []
    for scope in scopes:
        rules = active_rules(scope.settings)
        checked = _check_targets(project, outcomes, scope.targets, rules, scope.settings)
        ctx = RuleContext(
            scope.settings,
            _project_view(project, scope, cwd),
            parse_failures={shown: failure for shown, failure in failures.items() if shown in scope.targets},
            config_usage=checked.config_usage,
        )
        reported += [*checked.reported, *(d for rule in rules for d in rule.check_project(ctx))]
        suppressed += checked.suppressed
    return Found(
        outcomes,
        project,
        tuple(sorted(reported, key=lambda d: d.sort_key)),
        tuple(sorted(suppressed, key=lambda d: d.sort_key)),
    )


# -- each file's outcome -------------------------------------------------------------------


def _analyse(read: FilesRead, cache: OutcomeCache | None, *, progress: bool) -> dict[str, FileOutcome]:
    """Every file's outcome: decided by the read (unreadable, prefiltered out),
    from the facts cache when its bytes were seen, else from the per-file pass
    (in worker processes when there are many)."""
    outcomes: dict[str, FileOutcome] = {
        shown: ParseFailure(Span(1, 1, 1, 1), f"could not read file: {why}") for shown, why in read.unreadable.items()
    }
    outcomes.update((shown, Unparsed("prefilter")) for shown in read.prefiltered)  # never parsed
    outcomes.update(
        (shown, ParseFailure(Span(1, 1, 1, 1), why, kind="not analysed")) for shown, why in read.refused.items()
    )
    tasks: list[FileTask] = []
    keys: dict[str, str] = {}
    content_digests = {shown: digest for shown, _, digest in read.digests}
    stored: list[FileTask] = []  # with an entry in the facts cache, decoded by load_stored
    for task in read.tasks:
        _, real, shown, *options = task
        if cache is not None:
            keys[shown] = cache.key(content_digests[shown], real, shown, tuple(options))
            if not isinstance(cache, FactsCache) or cache.has(keys[shown]):
                stored.append(task)
                continue
        tasks.append(task)
    unreadable: list[FileTask] = []  # stored entries that did not decode: misses after all

    def load_stored() -> None:
        assert cache is not None
        for task in stored:
            cached = cache.load(keys[task.display_path])
            if cached is None:
                unreadable.append(task)
            else:
                outcomes[task.display_path] = cached

    # Decoding many entries from the disk costs more than parsing a changed
    # file or two (a libcst import and a parse): the parse runs in a worker
    # meanwhile (mmlint.check.workers.run_all's ``meanwhile``).
    overlap = bool(tasks) and len(stored) >= OVERLAP_MIN_ENTRIES  # some missed: a FactsCache
    if stored and not overlap:
        load_stored()
    finished: dict[int, FileOutcome] = {}  # by task index, in completion order
    for batch, meanwhile in ((tasks, load_stored if overlap else None), (unreadable, None)):
        _run_tasks(batch, cache, keys, finished, meanwhile, progress=progress)
        outcomes.update({batch[index].display_path: finished.pop(index) for index in list(finished)})
    outcomes = {shown: outcomes[shown] for shown in read.files if shown in outcomes}  # the files' order: deterministic
    if cache is not None:
        cache.finish()
    return outcomes


# Cached outcomes enough to decode for a pool to pay for itself (a cold worker
# imports libcst: a third of a second).
OVERLAP_MIN_ENTRIES = 64


def _run_tasks(
    tasks: list[FileTask],
    cache: OutcomeCache | None,
    keys: Mapping[str, str],
    finished: dict[int, FileOutcome],
    meanwhile: Callable[[], None] | None,
    *,
    progress: bool,
) -> None:
    """The per-file pass over ``tasks`` (sorted in place), each outcome into
    ``finished`` by task index and into the cache."""
    # Largest first: the pool's last busy worker then holds a small file, not a
    # large one that started late (the order of outcomes stays the files' order).
    tasks.sort(key=lambda task: -len(task.data))
    if not tasks:
        return
    with scan_progress(len(tasks), enabled=progress) as bar:
        analysed = run_all(
            analyse_file,
            tasks,
            bar.advance,
            crashed=outcome_of_death,
            worker_setup=prepare_worker,
            isolate=needs_own_process,
            meanwhile=meanwhile,
            preload=import_the_parser,
            size=_task_size,
        )
        for index, outcome in analysed:
            finished[index] = outcome
            if cache is not None and not _is_crash(outcome):  # a crash may not happen again
                cache.store(keys[tasks[index].display_path], outcome)


def _task_size(task: FileTask) -> int:
    return len(task.data)


def _is_crash(outcome: FileOutcome) -> bool:
    """A worker died on the file, or a budget stopped it (mmlint.check.per_file.outcome_of_death):
    it may not happen again, so it is not cached."""
    return isinstance(outcome, ParseFailure) and outcome.kind == CRASHED


# -- the project -----------------------------------------------------------------------


def _reached(
    read: FilesRead, outcomes: Mapping[str, FileOutcome], cache: OutcomeCache | None, discovery: Discovery
) -> dict[str, FileFacts]:
    """Light-tier facts of the prefiltered files the analysed files' calls
    lead to (mmlint.check.reach). Their outcomes stay "prefilter": they can
    hold no finding, so no rule reports in them; they are the project's, so
    chains run through them."""
    prefiltered = set(read.prefiltered)
    walked = {os.fspath(path) for path in discovery.files}.difference(discovery.named)
    candidates = {
        shown: Candidate(real, digest, read.held.get(shown), os.fspath(real) in walked)
        for shown, real, digest in read.digests
        if shown in prefiltered
    }
    analysed = {shown: outcome.facts for shown, outcome in outcomes.items() if isinstance(outcome, Parsed)}
    return reach(analysed, candidates, cache) if candidates and analysed else {}


def _project(
    outcomes: Mapping[str, FileOutcome],
    reached: Mapping[str, FileFacts],
    targets: Mapping[str, Path],
    discovery: Discovery,
    settings: Settings,
    cwd: Path,
) -> Project:
    """The whole scan, as the cwd's configuration sees it (the project stage
    looks at it through each configuration: _project_view): the analysed
    files' facts and the reached ones', in the files' order."""
    parsed = {
        shown: o.facts if isinstance(o, Parsed) else reached[shown]
        for shown, o in outcomes.items()
        if isinstance(o, Parsed) or shown in reached
    }
    return Project(
        files=parsed,
        targets=frozenset(targets),
        # The configured scope: the `paths`, or without them the configuration's
        # directory; a run from a subdirectory sees only part of it.
        full_scan=discovery.full_scan and covers(discovery, settings),
        call_site_count=_call_sites(parsed, targets),
        config_display_path=None if settings.config_file is None else display_path(settings.config_file, cwd),
    )


def _project_view(project: Project, scope: Scope, cwd: Path) -> Project:
    """The project as one configuration's project rules judge it: its own
    targets' call sites, its own file, its own full-scan condition."""
    config_file = scope.settings.config_file
    return replace(
        project,
        full_scan=scope.full_scan,
        call_site_count=_call_sites(project.files, scope.targets),
        config_display_path=None if config_file is None else display_path(config_file, cwd),
    )


def _call_sites(parsed: Mapping[str, FileFacts], targets: Mapping[str, Path]) -> int:
    return sum(len(parsed[shown].call_sites) for shown in targets if shown in parsed)


# -- rules per file, then the filters ------------------------------------------------------


@dataclass(frozen=True)
class _Checked:
    reported: list[Diagnostic]
    suppressed: list[Diagnostic]
    config_usage: ConfigUsage


def _check_targets(
    project: Project,
    outcomes: Mapping[str, FileOutcome],
    targets: Mapping[str, Path],
    rules: Sequence[Rule],
    settings: Settings,
) -> _Checked:
    """Each target's findings through the filters: exemptions and per-file
    ignores, then inline suppressions; then the rules that judge the
    suppressions (MM009), whose findings pass the configuration filters too."""
    relpaths = {shown: glob_relpath(real, settings.root) for shown, real in targets.items()}
    filters = TargetFilters(
        settings,
        relpaths,
        {shown: outcome.suppressions for shown in targets if isinstance(outcome := outcomes[shown], Parsed)},
    )
    ctx = RuleContext(settings, project, filters=filters)
    config_filter = ConfigFilter(settings)
    reported: list[Diagnostic] = []
    suppressed: list[Diagnostic] = []
    for shown, relpath in relpaths.items():
        outcome = outcomes[shown]
        exempt = config_filter.is_exempt_path(relpath)  # recorded for every file: MM009 judges the globs
        if (
            not isinstance(outcome, Parsed)
            or exempt
            or outcome.suppressions.skip_file
            or is_context_only(relpath, settings)
        ):
            continue  # failures are MM999's (project stage); exempt files, tests and vendored trees are context only
        found = [d for rule in rules for d in rule.check_file(outcome.facts, ctx)]
        filtered = apply_suppressions(
            found, config_filter.apply(found, relpath), outcome.suppressions, respect_noqa=settings.respect_noqa
        )
        suppressed.extend(filtered.suppressed)
        about_suppressions = [
            d for rule in rules for d in rule.check_suppressions(shown, outcome.suppressions, filtered.used, ctx)
        ]
        reported.extend(filtered.kept)
        reported.extend(config_filter.apply(about_suppressions, relpath))
    return _Checked(reported, suppressed, config_filter.usage())
