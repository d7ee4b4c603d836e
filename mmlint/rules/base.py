"""What a rule is: its code, name, documentation and examples, and a check
over facts. Rules never see CST nodes."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from mmlint.core.codes import FixKind
from mmlint.core.diagnostics import Diagnostic, Owner, Span

if TYPE_CHECKING:
    from mmlint.analysis.project import Project
    from mmlint.config.settings import Settings
    from mmlint.facts.model import FileFacts
    from mmlint.facts.outcome import ParseFailure
    from mmlint.facts.suppressions import FileSuppressions


@dataclass(frozen=True)
class Example:
    """A code sample. A bad example states exactly the codes it must produce (as a
    multiset) and, for fixable rules, the text `mmlint fix` must turn it into.
    ``config`` holds [tool.mmlint] keys the example needs; ``files`` holds other
    modules it imports, by relative path."""

    source: str
    expect: tuple[str, ...] = ()
    fixed: str | None = None
    config: dict[str, object] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)

    @property
    def code(self) -> str:
        return textwrap.dedent(self.source).lstrip("\n")

    @property
    def fixed_code(self) -> str | None:
        return None if self.fixed is None else textwrap.dedent(self.fixed).lstrip("\n")


@dataclass(frozen=True)
class ConfigUsage:
    """Which configuration entries met a file or acted in this scan: what the
    filter stage records for MM009's stale-configuration check."""

    matched_exempt_paths: frozenset[str]
    matched_ignore_patterns: frozenset[str]  # per-file-ignores patterns matching a scanned file
    used_ignore_patterns: frozenset[str]  # ... that dropped at least one diagnostic


class ReportFilter(Protocol):
    """What the filter stage would drop, asked before it runs: MM004 reports an
    await itself when its root's MM003 would not be reported (the root's file
    exempt or skipped, the code ignored there, the root in an exempt class or
    function, or a comment on its line suppressing MM003)."""

    def drops(self, path: str, span: Span, code: str, owner: tuple[Owner, ...]) -> bool: ...


@dataclass(frozen=True)
class RuleContext:
    settings: "Settings"
    project: "Project"
    # For the project stage, recorded by the stages before it: target files
    # that could not be parsed (MM999), and how the configuration acted (MM009).
    parse_failures: Mapping[str, "ParseFailure"] = field(default_factory=dict)
    config_usage: ConfigUsage | None = None
    # The filters of the check (None where no filter stage follows, as for the examples).
    filters: ReportFilter | None = None


class Rule:
    """Subclass per rule, one per module under mmlint/rules/.

    The class docstring is the rule's documentation, in ruff's sections:
    "## What it does", "## Why is this bad?", "## Fix", "## When to suppress".
    "## Example" and "## Use instead" are rendered from the first bad and good
    examples, so docs and tests come from one text.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    fixable: ClassVar[bool] = False
    # "error" for a failure mode of the code that runs, "warning" for housekeeping
    # (GitHub annotations and SARIF results carry it).
    level: ClassVar[str] = "error"
    # Reported whatever select, ignore and the exemptions say.
    always_on: ClassVar[bool] = False
    # Recorded by `mmlint baseline` (a file that did not parse was not checked:
    # recording that would hide every finding in it for good).
    baselinable: ClassVar[bool] = True
    # How `mmlint fix` applies the rule's fixes, one fixer stage per kind
    # (mmlint.fix.pipeline.STAGES): "call-rewrite" (a twin call becomes
    # `await <receiver>.<async twin>(...)`: the diagnostic carries the
    # AwaitRewrite, or its unfixable_reason) or "text-edits" (the diagnostic's
    # own edits, comments only); None: no fix.
    fix_kind: ClassVar[FixKind | None] = None
    bad_examples: ClassVar[tuple[Example, ...]] = ()
    good_examples: ClassVar[tuple[Example, ...]] = ()

    def check_file(self, facts: "FileFacts", ctx: RuleContext) -> Iterable[Diagnostic]:
        """Diagnostics for one file; most rules implement this."""
        return ()

    def check_suppressions(
        self, path: str, suppressions: "FileSuppressions", used: Mapping[int, set[str]], ctx: RuleContext
    ) -> Iterable[Diagnostic]:
        """Diagnostics about a file's suppression comments, given the codes each
        line's comment really suppressed (MM009); run after the filters."""
        return ()

    def check_project(self, ctx: RuleContext) -> Iterable[Diagnostic]:
        """Diagnostics that need the whole scan (MM008, MM999); reported once, unfiltered."""
        return ()

    def diagnostic(self, path: str, span: Span, message: str, **extra: Any) -> Diagnostic:
        return Diagnostic(
            path=path, span=span, code=self.code, name=self.name, message=message, fix_kind=self.fix_kind or "", **extra
        )
