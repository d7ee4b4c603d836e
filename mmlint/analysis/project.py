"""The whole scan as the rules see it: every parsed file's facts (targets and
context), which files are reported on, and cross-file analyses computed once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from mmlint.facts.model import FileFacts


@dataclass(frozen=True)
class Project:
    files: dict[str, FileFacts]  # display path -> facts, targets and context alike
    targets: frozenset[str]  # display paths that diagnostics may be reported on
    # True when no PATH was given, so the scan covers the configured paths (MM008).
    full_scan: bool = False
    call_site_count: int = 0
    config_display_path: str | None = None

    @cached_property
    def suspension(self):
        """Cross-file suspension analysis (MM004, MM007, audit), computed on first use."""
        from mmlint.analysis import analyse_project

        return analyse_project(self)
