"""The whole scan as the rules see it: every parsed file's facts (targets and
context), which files are reported on, and cross-file analyses computed once."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from mmlint.facts.model import FileFacts

if TYPE_CHECKING:  # imported when first used: a findings-only run never loads them
    from mmlint.analysis.suspension import SuspensionAnalysis
    from mmlint.analysis.resolve import Resolver
    from mmlint.analysis.twin_presence import TwinPresence
    from mmlint.analysis.twins import TwinAnalysis
    from mmlint.analysis.weight import WeightAnalysis


@dataclass(frozen=True)
class Project:
    files: dict[str, FileFacts]  # display path -> facts, targets and context alike
    targets: frozenset[str]  # display paths that diagnostics may be reported on
    # True when no PATH was given, so the scan covers the configured paths (MM008).
    full_scan: bool = False
    call_site_count: int = 0
    config_display_path: str | None = None
    _weights: dict[tuple[str, ...], WeightAnalysis] = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def resolver(self) -> "Resolver":
        """Names, imports and classes across the scan, shared by every analysis."""
        from mmlint.analysis.resolve import Resolver

        return Resolver(self.files)

    @cached_property
    def twin_presence(self) -> "TwinPresence":
        """Whether a twin name exists where a call is made (MM001, MM013)."""
        from mmlint.analysis.twin_presence import TwinPresence

        return TwinPresence(self.files, self.resolver)

    @cached_property
    def suspension(self) -> SuspensionAnalysis:
        """Cross-file suspension analysis (MM004, MM007, audit), computed on first use."""
        from mmlint.analysis.suspension import SuspensionAnalysis

        return SuspensionAnalysis(self.files, self.resolver)

    def weight(self, blocking_calls: tuple[str, ...]) -> WeightAnalysis:
        """Weights and blocking chains (MM003, MM004, MM005, audit) for one
        list of blocking-call patterns, computed on first use."""
        key = tuple(blocking_calls)
        if key not in self._weights:
            from mmlint.analysis.weight import WeightAnalysis

            self._weights[key] = WeightAnalysis(self.suspension, key)
        return self._weights[key]

    def twins(
        self, patterns: tuple[str, ...], excluded_names: frozenset[str], wrappers: tuple[str, ...] = ()
    ) -> TwinAnalysis:
        """Twin discovery and twin calls (MM010, audit) for these name patterns
        and twin wrappers (`twin-wrappers`), configured pair names left to
        MM001; computed once per setting."""
        from mmlint.analysis.twins import TwinAnalysis

        cache: dict[tuple[tuple[str, ...], frozenset[str], tuple[str, ...]], TwinAnalysis] = self.__dict__.setdefault(
            "_twin_analyses", {}
        )
        key = (tuple(patterns), excluded_names, tuple(wrappers))
        if key not in cache:
            cache[key] = TwinAnalysis(self.files, self.suspension, tuple(patterns), excluded_names, tuple(wrappers))
        return cache[key]
