"""The outcome of a check run, as reporters, `fix`, `audit` and `baseline`
read it: diagnostics beside the values they were found in."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mmlint.core.diagnostics import Diagnostic

if TYPE_CHECKING:
    from mmlint.analysis.project import Project
    from mmlint.config.settings import Settings
    from mmlint.facts.outcome import FileOutcome


@dataclass(frozen=True)
class Report:
    """The findings of a run, as reporters and `baseline` read them. A run that
    asked for findings only may take them from the results cache, with no
    project behind them; every other run returns an AnalysedReport."""

    files_scanned: int
    call_sites: int
    diagnostics: tuple[Diagnostic, ...]
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
    # The run covered everything the configuration scans (stale baseline entries can be judged).
    full_scan: bool = False
    # sha256 of the bytes each file was analysed from, by display path (`fix` writes
    # only over those bytes); empty when the findings came from the results cache.
    digests: dict[str, bytes] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class AnalysedReport(Report):
    """A report with the facts and cross-file analyses behind its findings
    (`fix`, `audit` and the server read them)."""

    project: Project = field(kw_only=True, repr=False)


def twins_in_play(report: Report) -> bool:
    """Whether twin words belong in a summary: twins were called in the scan,
    or pairs beyond the default one are configured (else "0 twin call sites"
    speaks of a pair the package does not have)."""
    return report.call_sites > 0 or report.settings.twins_configured
