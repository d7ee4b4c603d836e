"""The whole scan as the rules see it: every parsed file's facts (targets and
context), which files are reported on, and cross-file analyses computed once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from mmlint.facts.model import FileFacts


@dataclass(frozen=True)
class ConfigUsage:
    """Which configuration entries met a file or acted in this scan (for MM009)."""

    matched_exempt_paths: frozenset[str]
    matched_ignore_patterns: frozenset[str]  # per-file-ignores patterns matching a scanned file
    used_ignore_patterns: frozenset[str]  # ... that dropped at least one diagnostic


@dataclass
class Project:
    files: dict[str, FileFacts]  # display path -> facts, targets and context alike
    targets: frozenset[str]  # display paths that diagnostics may be reported on
    # True when no PATH was given, so the scan covers the configured paths (MM008).
    full_scan: bool = False
    call_site_count: int = 0
    config_display_path: str | None = None
    # Filled in by the engine once every file is checked, before project rules run.
    config_usage: ConfigUsage | None = None

    @cached_property
    def suspension(self):
        """Cross-file suspension analysis (MM004, MM007, audit), computed on first use."""
        from mmlint.analysis import analyse_project

        return analyse_project(self)

    def twins(self, patterns: tuple[str, ...], excluded_names: frozenset[str]):
        """Twin discovery and twin calls (MM010, audit) for these name patterns,
        configured pair names left to MM001; computed once per setting."""
        from mmlint.analysis.twins import TwinAnalysis

        cache = self.__dict__.setdefault("_twin_analyses", {})
        key = (patterns, excluded_names)
        if key not in cache:
            cache[key] = TwinAnalysis(self.files, self.suspension, patterns, excluded_names)
        return cache[key]
