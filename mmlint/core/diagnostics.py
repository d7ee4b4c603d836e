"""Immutable diagnostic values: what rules produce and reporters format."""

from __future__ import annotations

from dataclasses import dataclass, field

from mmlint.core.pickling import pickles_by_fields


@pickles_by_fields
@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A source range. Lines and columns are 1-based, columns count code points,
    and the end is exclusive (``end_column`` is one past the last character)."""

    line: int
    column: int
    end_line: int
    end_column: int


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text in ``span`` with ``text`` (an empty span inserts)."""

    span: Span
    text: str


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Owner:
    """One enclosing definition: ``kind`` is "class", "def" or "async def"."""

    kind: str
    name: str


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class RelatedLocation:
    """Another place a diagnostic is about, such as the MM003 of the coroutine
    a hollow await runs (SARIF ``relatedLocations``, JSON ``related``)."""

    path: str
    span: Span
    message: str


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Diagnostic:
    path: str
    span: Span
    code: str
    name: str
    message: str
    fixable: bool = False
    # The text edits that fix it, when fixable (SARIF reports them; comment
    # fixes apply them; call rewrites rename with them).
    edits: tuple[Edit, ...] = ()
    # Enclosing classes and functions, innermost last; for exemptions.
    owner: tuple[Owner, ...] = field(default=(), compare=False)
    related: tuple[RelatedLocation, ...] = ()
    # Why `mmlint fix` leaves it as written, when the rule decided so with the
    # whole project in view (MM010): the fixer lists this, never a guess.
    unfixable_reason: str | None = field(default=None, compare=False)
    # What the finding is about, for sorting and filtering (JSON and SARIF
    # carry them; see README "Finding fields"): the weight of the code that
    # runs on the loop ("heavy", "light"), why, in one phrase, naming the
    # costliest call, the chain of calls to it, and the context that requires
    # the coroutine ("route", "exception handler", ...). Empty when not known.
    weight: str = field(default="", compare=False)
    reason: str = field(default="", compare=False)
    chain: tuple[str, ...] = field(default=(), compare=False)
    context: str = field(default="", compare=False)
    # The advice or detail below the one-line message (what to do, why it is
    # left alone): text reporters show it as `= help:` lines, the others carry
    # it beside the message. Empty when the message says it all.
    help: str = field(default="", compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.code)
