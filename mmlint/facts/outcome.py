"""What reading one file comes to: parsed into facts, skipped unparsed, or
failed. Plain values, cached by content hash and sent between processes; the
rules read them (MM999 reports the failures)."""

from __future__ import annotations

from dataclasses import dataclass

from mmlint.core.diagnostics import Span
from mmlint.core.pickling import pickles_by_fields
from mmlint.facts.model import FileFacts
from mmlint.facts.suppressions import FileSuppressions


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Parsed:
    """Parsed into facts. A `# mmlint: skip-file` file is parsed too: its call sites
    count (call_sites is taken before suppressions) and it is context for
    cross-file rules, but nothing is reported in it."""

    facts: FileFacts
    suppressions: FileSuppressions


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Unparsed:
    """Skipped unparsed: nothing in it can be a finding, or it says skip-file and does not parse."""

    reason: str  # "prefilter" or "skip-file"


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class ParseFailure:
    span: Span
    message: str
    # What MM999 says before the message: the file did not parse, or was not
    # parsed because it is past a budget (mmlint.config.settings.Budgets).
    kind: str = "could not parse"


FileOutcome = Parsed | Unparsed | ParseFailure
