"""The check pipeline, pass by pass: find files → prefilter → parse once →
facts → cross-file project → rules → filters (select, exemptions,
per-file-ignores, suppressions) → unused suppressions → sorted Report."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mmlint.check.cache import open_cache
from mmlint.check.per_file import FileOutcome, Parsed, ParseFailure, Unparsed, analyse_file
from mmlint.core.diagnostics import Diagnostic, Owner, Span
from mmlint.check.discovery import context_files, discover, glob_relpath
from mmlint.config.globs import matches_any
from mmlint.check.prefilter import Prefilter
from mmlint.check.progress import scan_progress
from mmlint.analysis.project import ConfigUsage, Project
from mmlint.rules import RuleContext, all_rules
from mmlint.config.settings import Settings
from mmlint.rules.mm009_unused_suppression import unused_suppression_diagnostics
from mmlint.facts.suppressions import FileSuppressions
from mmlint.check.workers import run_all

SYNTAX_ERROR_CODE = "MM999"


@dataclass(frozen=True)
class Report:
    files_scanned: int
    call_sites: int
    diagnostics: tuple[Diagnostic, ...]
    project: Project = field(repr=False)
    file_paths: dict[str, Path] = field(repr=False)  # display path -> absolute path, every target
    settings: Settings = field(repr=False)
    explicitly_excluded: tuple[Path, ...] = ()
    # Diagnostics an inline `# mmlint: ignore` comment suppressed (fix lists them as left alone).
    suppressed: tuple[Diagnostic, ...] = ()
    # Per target file, the outcome of reading it (parsed, skipped, failed).
    outcomes: dict[str, FileOutcome] = field(default_factory=dict, repr=False)
    # What finding the files had to skip (mmlint.check.discovery.Discovery.warnings).
    discovery_warnings: tuple[str, ...] = ()
    # Why the facts cache was not used, when the user should hear of it (see mmlint.check.cache).
    cache_warning: str | None = None


def display_path(path: Path, cwd: Path) -> str:
    """Relative to the cwd with `/` separators when under it, else absolute. Bytes
    of a file name that are not valid UTF-8 are shown as `\\xNN` escapes, so every
    report stays valid text."""
    try:
        shown = path.relative_to(cwd).as_posix()
    except ValueError:
        shown = path.as_posix()
    return shown.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def run_check(
    paths: Sequence[Path] | None, settings: Settings, cwd: Path, *, progress: bool = False, use_cache: bool = True
) -> Report:
    cwd = Path(os.path.abspath(cwd))
    discovery = discover(paths, settings, cwd)
    targets = _one_per_file(discovery.files, cwd)
    # Cross-file rules read the configured paths as context when PATH names only some files.
    context = {display_path(p, cwd): p for p in (context_files(settings, cwd) if paths else ())}
    everything = {**context, **targets}

    prefilter = Prefilter(settings.twins)
    cache_opening = open_cache(use_cache)
    cache = cache_opening.cache
    outcomes: dict[str, FileOutcome] = {}
    tasks: list[tuple] = []
    keys: dict[str, str] = {}
    for shown, real in everything.items():
        try:
            data = real.read_bytes()
        except OSError as error:
            outcomes[shown] = ParseFailure(Span(1, 1, 1, 1), f"could not read file: {error.strerror or error}")
            continue
        if not prefilter.could_hold_finding(data):
            outcomes[shown] = Unparsed("prefilter")  # never parsed
            continue
        if cache is not None:
            keys[shown] = cache.key(data, real, shown, (settings.twins, settings.budgets))
            cached = cache.load(keys[shown])
            if cached is not None:
                outcomes[shown] = cached
                continue
        tasks.append((data, real, shown, settings.twins, settings.budgets))
    finished: dict[int, FileOutcome] = {}  # by task index, in completion order
    with scan_progress(len(tasks), enabled=progress) as bar:
        for index, outcome in run_all(analyse_file, tasks, bar.advance):
            finished[index] = outcome
            if cache is not None:
                cache.store(keys[tasks[index][2]], outcome)
    outcomes.update((tasks[index][2], finished[index]) for index in sorted(finished))  # task order: deterministic
    if cache is not None:
        cache.finish()

    parsed = {shown: o for shown, o in outcomes.items() if isinstance(o, Parsed)}
    project = Project(
        files={shown: o.facts for shown, o in parsed.items()},
        targets=frozenset(targets),
        # The configured scope: the `paths`, or without them the configuration's
        # directory; a run from a subdirectory sees only part of it.
        full_scan=discovery.full_scan and (bool(settings.paths) or cwd == settings.root),
        call_site_count=sum(len(parsed[s].facts.call_sites) for s in targets if s in parsed),
        config_display_path=None if settings.config_file is None else display_path(settings.config_file, cwd),
    )
    ctx = RuleContext(settings=settings, project=project)
    rules = [rule for rule in all_rules() if settings.is_selected(rule.code)]

    config_filter = ConfigFilter(settings)
    reported: list[Diagnostic] = []
    suppressed: list[Diagnostic] = []
    for shown in targets:
        outcome = outcomes[shown]
        relpath = glob_relpath(targets[shown], settings.root)
        exempt = config_filter.is_exempt_path(relpath)  # recorded for every file: MM009 judges the globs
        if isinstance(outcome, ParseFailure):
            reported.append(_syntax_error(shown, outcome))  # whatever the exemptions say
        elif isinstance(outcome, Parsed):
            if exempt or outcome.suppressions.skip_file:
                continue  # read as context only
            found = [d for rule in rules for d in rule.check_file(outcome.facts, ctx)]
            kept = config_filter.apply(found, relpath)
            unsuppressed = _apply_suppressions(found, kept, outcome.suppressions, shown, settings, suppressed)
            reported.extend(config_filter.apply(unsuppressed, relpath))  # per-file-ignores of MM009 itself
    project.config_usage = config_filter.usage()
    for rule in rules:
        reported.extend(rule.check_project(ctx))

    return Report(
        files_scanned=len(targets),
        call_sites=project.call_site_count,
        diagnostics=tuple(sorted(reported, key=lambda d: d.sort_key)),
        project=project,
        file_paths=targets,
        settings=settings,
        explicitly_excluded=discovery.explicitly_excluded,
        suppressed=tuple(sorted(suppressed, key=lambda d: d.sort_key)),
        outcomes={shown: outcomes[shown] for shown in targets},
        discovery_warnings=discovery.warnings,
        cache_warning=cache_opening.warning,
    )


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


def _syntax_error(shown: str, failure: ParseFailure) -> Diagnostic:
    return Diagnostic(
        path=shown,
        span=failure.span,
        code=SYNTAX_ERROR_CODE,
        name="syntax-error",
        message=f"{failure.kind}: {failure.message}",
    )


class ConfigFilter:
    """exempt.paths, exempt.classes / exempt.functions and per-file-ignores, applied
    per file; it also records which entries matched a file or dropped a
    diagnostic, so stale entries can be reported (MM009)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.matched_exempt_paths: set[str] = set()
        self.matched_ignore_patterns: set[str] = set()
        self.used_ignore_patterns: set[str] = set()

    def is_exempt_path(self, relpath: str) -> bool:
        matched = {p for p in self.settings.exempt_paths if matches_any(relpath, [p])}
        self.matched_exempt_paths |= matched
        return bool(matched)

    def apply(self, found: Iterable[Diagnostic], relpath: str) -> list[Diagnostic]:
        ignores = [(p, codes) for p, codes in self.settings.per_file_ignores if matches_any(relpath, [p])]
        self.matched_ignore_patterns.update(p for p, _ in ignores)
        kept: list[Diagnostic] = []
        for diagnostic in found:
            # Judge each entry on its own, so an exemption never makes a
            # per-file-ignore of the same finding look unused.
            ignored_by = [p for p, codes in ignores if any(diagnostic.code.startswith(c) for c in codes)]
            self.used_ignore_patterns.update(ignored_by)
            if not ignored_by and not _is_exempt_owner(diagnostic.owner, self.settings):
                kept.append(diagnostic)
        return kept

    def usage(self) -> ConfigUsage:
        return ConfigUsage(
            frozenset(self.matched_exempt_paths),
            frozenset(self.matched_ignore_patterns),
            frozenset(self.used_ignore_patterns),
        )


def _is_exempt_owner(owner: tuple[Owner, ...], settings: Settings) -> bool:
    """Inside (or being) a class named in exempt.classes, a module-level function or
    a `Class.method` named in exempt.functions."""
    if any(part.kind == "class" and part.name in settings.exempt_classes for part in owner):
        return True
    if not settings.exempt_functions or not owner:
        return False
    if owner[0].kind != "class" and owner[0].name in settings.exempt_functions:
        return True
    return any(
        outer.kind == "class" and inner.kind != "class" and f"{outer.name}.{inner.name}" in settings.exempt_functions
        for outer, inner in zip(owner, owner[1:])
    )


def _apply_suppressions(
    found: list[Diagnostic],
    kept: list[Diagnostic],
    suppressions: FileSuppressions,
    shown: str,
    settings: Settings,
    dropped: list[Diagnostic],
) -> list[Diagnostic]:
    """Drop the diagnostics in ``kept`` that a comment suppresses (into ``dropped``),
    then report the suppressions that suppressed nothing. A suppression is judged
    against everything found on its line, including what an exemption or a
    per-file-ignore also drops, so the two never make each other look unused."""
    on_line = {suppression.line: suppression for suppression in suppressions.by_line}
    used: dict[int, set[str]] = {}
    for diagnostic in found:
        suppression = on_line.get(diagnostic.span.line)
        if suppression is not None and suppression.covers(diagnostic.code):
            used.setdefault(suppression.line, set()).add(diagnostic.code)
    result: list[Diagnostic] = []
    for diagnostic in kept:
        suppression = on_line.get(diagnostic.span.line)
        if suppression is not None and suppression.covers(diagnostic.code):
            dropped.append(diagnostic)
        else:
            result.append(diagnostic)
    if settings.is_selected("MM009"):
        result.extend(unused_suppression_diagnostics(shown, suppressions, used, settings))
    return result
