"""Values the fix pipeline passes around: planned sites, what happened to each,
and the outcome for one file. Plain frozen data, so results can be reported,
compared in tests and never raise."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mmlint.core.diagnostics import Diagnostic, Span


@dataclass(frozen=True, slots=True)
class CallFix:
    """One call to rewrite: ``span`` runs from the callee's first character to
    the closing paren (1-based, code points, end exclusive); the callee named
    ``sync`` becomes ``await ...async_(...)``."""

    span: Span
    sync: str
    async_: str
    code: str = ""  # the rule whose diagnostic planned it (recorded on the fixed or unfixed site)


@dataclass(frozen=True, slots=True)
class FixedSite:
    """A site the fixer rewrote; ``parenthesized`` when it had to add ``(``/``)``."""

    span: Span
    code: str
    parenthesized: bool = False


@dataclass(frozen=True, slots=True)
class UnfixedSite:
    """A site left as it was, and why (shown in the summary)."""

    span: Span
    code: str
    reason: str


@dataclass(frozen=True)
class FileFixResult:
    """The outcome for one file. ``error`` is set when the file was left
    untouched because it could not be read, transformed, verified or written;
    ``changed`` says whether ``new`` differs from ``old`` (and, unless
    ``error`` is set or nothing was to be written, was written by this run)."""

    path: str  # display path
    abs_path: Path
    fixed: tuple[FixedSite, ...] = ()
    unfixed: tuple[UnfixedSite, ...] = ()
    error: str | None = None
    old: bytes = b""
    new: bytes = b""
    diagnostics: tuple[Diagnostic, ...] = field(default=(), compare=False)
    # An earlier round wrote ``new`` before a later one failed with ``error``:
    # the file was changed, though not as far as it could have been.
    partial: bool = False
    # The file no longer held the bytes the plan was made on (someone saved it,
    # another run fixed it): nothing was written, and it is to be planned again
    # from what it holds now.
    stale: bool = False
    # When it was to be written, the file already held ``new`` (another run
    # fixed it first): nothing to do, and nothing this run changed.
    already_fixed: bool = False

    @property
    def changed(self) -> bool:
        return (self.error is None or self.partial) and not (self.stale or self.already_fixed) and self.new != self.old
