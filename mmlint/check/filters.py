"""The filter stage: what the configuration and inline comments keep from the
rules' raw findings. It decides nothing itself about what is unused: it
records, as values, which configuration entries met a file or dropped a
finding and which codes each suppression comment really suppressed, and
MM009 (mmlint.rules.mm009_unused_suppression) turns those into diagnostics."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from mmlint.config.globs import matches_any
from mmlint.config.settings import Settings
from mmlint.core.diagnostics import Diagnostic, Owner, Span
from mmlint.facts.suppressions import FileSuppressions, Suppression
from mmlint.rules import ConfigUsage


# Test code and vendored trees: read as context, not reported unless
# `report-tests-and-vendored = true` (SPEC, Release 4).
TEST_OR_VENDORED_DIRS = frozenset({"tests", "thirdparty", "third_party", "vendor", "_vendor"})


def is_test_or_vendored(relpath: str) -> bool:
    """Whether a file, by its path relative to the configuration's root (as
    globs are matched), is test code (under a `tests/` folder, `test_*.py`,
    `*_test.py`, `conftest.py`) or vendored (under `thirdparty/`,
    `third_party/`, `vendor/`, `_vendor/`). Only the part below the root
    counts, so a checkout that itself lies under a `tests/` folder is not
    test code; a file outside the root (an absolute path) is judged by its
    name alone."""
    folders, _, name = relpath.rpartition("/")
    stem = name.rsplit(".", 1)[0] if name.endswith((".py", ".pyi")) else ""
    if stem.startswith("test_") or stem.endswith("_test") or stem == "conftest":
        return True
    if relpath.startswith("/") or (len(relpath) > 1 and relpath[1] == ":"):
        return False
    return any(part in TEST_OR_VENDORED_DIRS for part in folders.split("/"))


def is_context_only(relpath: str, settings: Settings) -> bool:
    """Read as context, never reported by default: test code and vendored trees."""
    return not settings.report_tests_and_vendored and is_test_or_vendored(relpath)


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


@dataclass(frozen=True)
class TargetFilters:
    """The filters of one configuration's check as a question a rule can ask
    about a finding it does not make (mmlint.rules.base.ReportFilter); it
    records nothing, so MM009's view of the configuration is unchanged."""

    settings: Settings
    relpaths: Mapping[str, str]  # display path of each target -> its path relative to the configuration's root
    suppressions: Mapping[str, FileSuppressions]  # by display path, for the parsed targets

    def drops(self, path: str, span: Span, code: str, owner: tuple[Owner, ...]) -> bool:
        relpath = self.relpaths.get(path)
        suppressions = self.suppressions.get(path)
        if relpath is None or suppressions is None:
            return False  # another configuration's target: its own filters decide there
        if suppressions.skip_file:
            return True
        settings = self.settings
        if is_context_only(relpath, settings) or any(
            matches_any(relpath, [pattern]) for pattern in settings.exempt_paths
        ):
            return True
        if any(
            matches_any(relpath, [p]) and any(code.startswith(c) for c in codes)
            for p, codes in settings.per_file_ignores
        ):
            return True
        if _is_exempt_owner(owner, settings):
            return True
        probe = Diagnostic(path=path, span=span, code=code, name="", message="", owner=owner)
        return not apply_suppressions([probe], [probe], suppressions, respect_noqa=settings.respect_noqa).kept


@dataclass(frozen=True)
class SuppressionOutcome:
    kept: tuple[Diagnostic, ...]  # not suppressed
    suppressed: tuple[Diagnostic, ...]  # dropped by a comment on their line
    # Line -> the codes its `# mmlint: ignore` suppressed among everything found there.
    used: dict[int, set[str]]


def apply_suppressions(
    found: list[Diagnostic], kept: list[Diagnostic], suppressions: FileSuppressions, *, respect_noqa: bool = True
) -> SuppressionOutcome:
    """Drop the diagnostics in ``kept`` that a comment suppresses: one on the line
    where the flagged code starts or on the line where it ends (the closing line
    of a multi-line call, as ruff reads a `# noqa` after a multi-line string).
    A comment is judged against everything found on its line (``found``),
    including what an exemption or a per-file-ignore also drops, so the two
    never make each other look unused."""
    on_line: dict[int, list[Suppression]] = {}
    for suppression in suppressions.by_line:
        if respect_noqa or suppression.kind != "noqa":
            on_line.setdefault(suppression.line, []).append(suppression)
    if not on_line:
        return SuppressionOutcome(tuple(kept), (), {})
    used: dict[int, set[str]] = {}
    for diagnostic in found:
        for suppression in _covering(diagnostic, on_line):
            if suppression.kind == "mmlint":
                used.setdefault(suppression.line, set()).add(diagnostic.code)
    remaining: list[Diagnostic] = []
    dropped: list[Diagnostic] = []
    for diagnostic in kept:
        (dropped if _covering(diagnostic, on_line) else remaining).append(diagnostic)
    return SuppressionOutcome(tuple(remaining), tuple(dropped), used)


def _covering(diagnostic: Diagnostic, on_line: dict[int, list[Suppression]]) -> list[Suppression]:
    lines = {diagnostic.span.line, diagnostic.span.end_line}
    return [s for line in sorted(lines) for s in on_line.get(line, ()) if s.covers(diagnostic.code)]
