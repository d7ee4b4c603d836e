"""Open documents → diagnostics and facts, through the check engine: one
run over the workspace's files, the documents' unsaved text in place of the
disk's (run_check's ``overlay``), the workspace walked as context (its
``extra_context``), facts decoded once and kept in memory over the user's
facts cache, so a change re-parses only the document that changed.

A run that raises (a bug of ours in a rule) is repeated one document at a
time, so that the crash costs only the document that causes it."""

from __future__ import annotations

import functools
import os
import traceback
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from mmlint.check.cache import CacheOpening, FactsCache, OutcomeCache, open_cache
from mmlint.check.discovery import DiscoveryError, discover
from mmlint.check.engine import AnalysedReport, Report, StdinSource, run_check
from mmlint.check.findings import FindingsMemo
from mmlint.config.load import ConfigError, parse_codes
from mmlint.config.resolve import ConfigResolver
from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.facts.light_groups import LightEntry
from mmlint.facts.model import FileFacts
from mmlint.facts.outcome import FileOutcome
from mmlint.rules.mm999_syntax_error import SyntaxErrorRule
from mmlint.server.settings import ServerSettings

T = TypeVar("T")

# A workspace larger than this (a home directory opened as a folder) is not
# walked for context: the configured `paths` still are.
MAX_CONTEXT_FILES = 20_000


@dataclass(frozen=True)
class Snapshot:
    """An open document as a run analyses it."""

    uri: str
    version: int | None
    path: Path
    data: bytes


@dataclass(frozen=True)
class DocumentResult:
    """One document as the last analysis saw it."""

    path: Path  # absolute
    shown: str  # the display path diagnostics carry
    data: bytes  # the text analysed, encoded as the file would be
    diagnostics: tuple[Diagnostic, ...] = ()
    facts: FileFacts | None = None
    # Why it has no diagnostics of its own: a bad configuration, a crash (with the traceback for the log).
    error: str | None = None
    details: str | None = None


class MemoryFactsCache:
    """The facts cache as the engine uses it (key, load, store, their light-tier
    forms, finish), with every outcome decoded once and kept in memory; the
    user's cache on disk (when it may be used) below it, so a restart starts
    warm. New outcomes reach the disk at ``persist()``, after the diagnostics
    are out."""

    key = FactsCache.key  # the disk cache's keys: content, paths, options, mmlint's code

    def __init__(self, disk: OutcomeCache | None) -> None:
        self.disk = disk
        self._outcomes: _Kept[FileOutcome] = _Kept()
        self._light: _Kept[LightEntry] = _Kept()

    def load(self, key: str) -> FileOutcome | None:
        return self._outcomes.load(key, None if self.disk is None else self.disk.load)

    def store(self, key: str, outcome: FileOutcome) -> None:
        self._outcomes.store(key, outcome, unstored=self.disk is not None)

    def load_light(self, key: str) -> LightEntry | None:
        return self._light.load(key, None if self.disk is None else self.disk.load_light)

    def store_light(self, key: str, entry: LightEntry) -> None:
        self._light.store(key, entry, unstored=self.disk is not None)

    def persist(self) -> None:
        """Write the outcomes stored since the last call to the disk cache."""
        if self.disk is None:
            return
        outcomes, light = self._outcomes.take_unstored(), self._light.take_unstored()
        if not outcomes and not light:
            return
        for key, outcome in outcomes.items():
            self.disk.store(key, outcome)
        for key, entry in light.items():
            self.disk.store_light(key, entry)
        self.disk.finish()

    def finish(self) -> None:
        self._outcomes.finish()
        self._light.finish()


class _Kept(Generic[T]):
    """Values by key: those the last runs used, this run's, and those not on the disk yet."""

    def __init__(self) -> None:
        self._kept: dict[str, T] = {}
        self._used: dict[str, T] = {}
        self._unstored: dict[str, T] = {}

    def load(self, key: str, below: Callable[[str], T | None] | None) -> T | None:
        value = self._kept.get(key)
        if value is None and below is not None:
            value = below(key)
        if value is not None:
            self._used[key] = value
        return value

    def store(self, key: str, value: T, *, unstored: bool) -> None:
        self._used[key] = value
        if unstored:
            self._unstored[key] = value

    def take_unstored(self) -> dict[str, T]:
        unstored, self._unstored = self._unstored, {}
        return unstored

    def finish(self) -> None:
        self._kept.update(self._used)
        # Old texts of edited files pile up: keep about what the runs use.
        if len(self._kept) > 2 * len(self._used) + 256:
            self._kept = dict(self._used)
        self._used = {}


class Analyser:
    """Analyses the documents of one workspace folder (``root``: the working
    directory of the runs, as `check` run there would see them). ``walk``:
    the folder's files are the documents' context; without it (the directory
    of documents opened from outside every folder) the context is what
    `check FILE` run there reads, the configured `paths` if any, and the
    open documents."""

    def __init__(self, root: Path, settings: ServerSettings, *, use_cache: bool = True, walk: bool = True) -> None:
        self.root = Path(os.path.abspath(root))
        self.settings = settings
        self.walk = walk
        opening = open_cache(use_cache, [self.root])  # never a cache the workspace could have written
        self.cache_warning = opening.warning
        self.facts = MemoryFactsCache(opening.cache)
        self._walked: tuple[Path, ...] | None = None  # the workspace's files, as the last walk found them
        self._rescan = True
        self._workspace = True
        self._caches = CacheOpening(self.facts)
        self._memo = FindingsMemo()  # a keystroke that leaves every file's facts as they were finds nothing new

    def analyse(
        self,
        documents: Mapping[Path, bytes],
        *,
        rescan: bool = True,
        workspace: bool = True,
        only: Collection[Path] | None = None,
    ) -> dict[Path, DocumentResult]:
        """Every document's result (``only``: those of these documents; the
        others are context, their unsaved text in place of the disk's). Never
        raises: a bad configuration or a crash becomes the ``error`` of the
        documents it concerns. ``rescan``: walk the workspace again (False: a
        keystroke creates no file, so the last walk's files stand).
        ``workspace`` False: the walked files are not read (the configured
        `paths` still are), for a document's first diagnostics before its
        context is in."""
        self._rescan = rescan or self._walked is None
        self._workspace = workspace
        wanted = documents if only is None else {path: documents[path] for path in only if path in documents}
        on_disk = {path: data for path, data in wanted.items() if path.is_file()}
        results: dict[Path, DocumentResult] = {}
        try:
            results.update(self._run(on_disk, documents))
        except Exception:  # one document at a time: a crash costs only its own
            for path in on_disk:
                results.update(
                    self._isolated(
                        functools.partial(self._run, {path: on_disk[path]}, documents), path, documents[path]
                    )
                )
        for path, data in wanted.items():  # a new file, not saved yet: as `check -` sees it
            if path not in on_disk:
                results.update(self._isolated(functools.partial(self._run_unsaved, path, documents), path, data))
        return results

    def analyse_one(self, path: Path, data: bytes, documents: Mapping[Path, bytes]) -> DocumentResult:
        """One document with ``data`` as its text, the others as ``documents`` hold them."""
        result = self.analyse({**documents, path: data}, rescan=False, only=(path,)).get(path)
        return result or DocumentResult(path, str(path), data)

    # -- runs ------------------------------------------------------------------------------

    def _resolver(self) -> ConfigResolver:
        # Built afresh for every run: a configuration edited on disk applies at the next change.
        settings = self.settings
        config = (
            settings.config if settings.config is None or settings.config.is_absolute() else self.root / settings.config
        )
        return ConfigResolver(
            self.root,
            config,
            select=parse_codes(",".join(settings.select), "the select setting")
            if settings.select is not None
            else None,
            ignore=parse_codes(",".join(settings.ignore), "the ignore setting") if settings.ignore else None,
        )

    def _context(self, resolver: ConfigResolver) -> tuple[Path, ...]:
        """The workspace's files, walked again unless a run asked to keep the
        last walk. A workspace whose configuration names its `paths` has those
        as context, as `check` run there would (the engine reads them)."""
        if not self._workspace:
            return ()
        if not self._rescan and self._walked is not None:
            return self._walked
        files: tuple[Path, ...] = ()
        if self.walk and self.root.is_dir() and not resolver.for_cwd.paths:
            try:
                files = discover([self.root], resolver, self.root).files
            except DiscoveryError:
                files = ()
        self._walked = files if len(files) <= MAX_CONTEXT_FILES else ()
        self._rescan = False  # once per analyse()
        return self._walked

    def _run(self, targets: Mapping[Path, bytes], documents: Mapping[Path, bytes]) -> dict[Path, DocumentResult]:
        """Each document as `mmlint check FILE` checks it: the document the one
        target, every other file (open buffers as they are) its context. So an
        await of a hollow coroutine in another open file is that await's MM004
        here, not only a related location of the other file's MM003."""
        if not targets:
            return {}
        resolver = self._resolver()
        context = self._context(resolver)
        results: dict[Path, DocumentResult] = {}
        for path, data in targets.items():
            report = run_check(
                [path],
                resolver,
                self.root,
                overlay=documents,
                extra_context=(*context, *documents),
                caches=self._caches,
                memo=self._memo,
            )
            results.update(self._results(report, {path: data}))
        return results

    def _run_unsaved(self, path: Path, documents: Mapping[Path, bytes]) -> dict[Path, DocumentResult]:
        resolver = self._resolver()
        report = run_check(
            None,
            resolver,
            self.root,
            stdin=StdinSource(documents[path], path),
            overlay={p: d for p, d in documents.items() if p != path},
            extra_context=self._context(resolver),
            caches=self._caches,
            memo=self._memo,
        )
        return self._results(report, {path: documents[path]})

    def _results(self, report: Report, targets: Mapping[Path, bytes]) -> dict[Path, DocumentResult]:
        shown_of = {os.path.abspath(real): shown for shown, real in report.file_paths.items()}
        by_path: dict[str, list[Diagnostic]] = {}
        for diagnostic in report.diagnostics:
            by_path.setdefault(diagnostic.path, []).append(diagnostic)
        results = {}
        for path, data in targets.items():
            shown = shown_of.get(os.path.abspath(path))
            if shown is None:  # excluded by the configuration: nothing to say, as `check`
                results[path] = DocumentResult(path, str(path), data)
                continue
            facts = report.project.files.get(shown) if isinstance(report, AnalysedReport) else None
            results[path] = DocumentResult(path, shown, data, tuple(by_path.get(shown, ())), facts)
        return results

    def _isolated(
        self, run: Callable[[], dict[Path, DocumentResult]], path: Path, data: bytes
    ) -> dict[Path, DocumentResult]:
        try:
            return run()
        except (ConfigError, DiscoveryError) as error:
            return {path: DocumentResult(path, str(path), data, error=str(error))}
        except Exception as error:
            message = (
                f"mmlint could not analyse this file: internal error {type(error).__name__}: {error} (please report it)"
            )
            crash = Diagnostic(str(path), Span(1, 1, 1, 1), SyntaxErrorRule.code, SyntaxErrorRule.name, message)
            return {
                path: DocumentResult(path, str(path), data, (crash,), error=message, details=traceback.format_exc())
            }


def errors_of(results: Iterable[DocumentResult]) -> list[str]:
    """The distinct errors of a run's documents, for the client's log."""
    return list(dict.fromkeys(result.error for result in results if result.error))
