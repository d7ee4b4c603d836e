"""Immutable diagnostic values: what rules produce and reporters format, and
the one call rewrite (``AwaitRewrite``) a fixable diagnostic carries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# At run time, not only for type checking: the hints resolve (tests/test_pickling.py walks them).
from mmlint.core.confirmation import Confirmation
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


AWAIT = "await"


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class AwaitRewrite:
    """The one call rewrite: ``x.sync(...)`` becomes ``await x.async_(...)``.

    ``span``: the call, from the callee's first character to its closing
    paren; ``name_span``: the callee's name token, renamed from ``sync`` to
    ``async_``; ``parenthesize``: a trailer follows the call, so the ``await``
    goes in parentheses (``(await x.f_async())[0]``). ``edits()`` is the only
    place the rewrite is spelled out: the rules build one from the facts
    (their diagnostics' edits, which SARIF reports), the fixer one from the
    tokens of the bytes it rewrites (mmlint.fix.call_rewrite), and the
    verifier expects exactly its tokens (mmlint.fix.verify)."""

    span: Span
    name_span: Span
    sync: str
    async_: str
    parenthesize: bool = False

    @property
    def opening_tokens(self) -> tuple[str, ...]:
        """The tokens inserted before the call."""
        return ("(", AWAIT) if self.parenthesize else (AWAIT,)

    @property
    def closing_tokens(self) -> tuple[str, ...]:
        """The tokens inserted after the call's closing paren."""
        return (")",) if self.parenthesize else ()

    def edits(self) -> tuple[Edit, ...]:
        """The rewrite as text edits, in the coordinates of the text it was planned on."""
        span = self.span
        opening = Edit(Span(span.line, span.column, span.line, span.column), "".join(self.opening_tokens) + " ")
        rename = Edit(self.name_span, self.async_)
        if not self.closing_tokens:
            return (opening, rename)
        end = Span(span.end_line, span.end_column, span.end_line, span.end_column)
        return (opening, rename, Edit(end, "".join(self.closing_tokens)))


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Owner:
    """One enclosing definition: ``kind`` is "class", "def" or "async def"."""

    kind: str
    name: str


def qualname(owner: tuple[Owner, ...]) -> str:
    """``Class.method``, ``function``, ``outer.<locals>.inner`` from the owner
    chain (here, not with the libcst helpers: the ast-based light tier needs it too)."""
    parts: list[str] = []
    for index, part in enumerate(owner):
        parts.append(part.name)
        if part.kind != "class" and index < len(owner) - 1:
            parts.append("<locals>")
    return ".".join(parts)


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
    # Why `mmlint fix` leaves it as written, as the rule decided (with the
    # whole project in view): the fixer lists this, never a guess.
    unfixable_reason: str | None = field(default=None, compare=False)
    # The call rewrite that fixes it (its edits are ``edits``), for a rule
    # whose fix kind is "call-rewrite": the fixer plans it again from the
    # tokens, with these names.
    rewrite: AwaitRewrite | None = field(default=None, compare=False)
    # The kind of fix its rule declares ("": none), which stage of `fix` takes
    # it, so the fixer needs no rules (a diagnostic built without one: its
    # code's, mmlint.core.codes.FIX_KINDS).
    fix_kind: Literal["", "call-rewrite", "text-edits"] = field(default="", compare=False)
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
    # What a confirm run measured (`check --confirmed FILE`): None without one.
    confirmation: Confirmation | None = field(default=None, compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.code)
