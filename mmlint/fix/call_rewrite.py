"""The twin-call rewrite (MM001, MM010) as text edits on the original text:
``x.sync(...)`` -> ``await x.async_(...)``.

The rules (from the facts) decided which calls and where; this module only
locates each planned call in the file's tokens, which gives its
``AwaitRewrite`` (mmlint.core.diagnostics: ``await `` inserted, in parentheses
where a trailer follows, the callee's name token renamed), and applies those
edits to the decoded text; the verifier locates the calls the same way.
Every other character stays as it was by construction: comments, form feeds,
odd whitespace, line endings, the encoding cookie and BOM. No parse is needed; the verifier checks the result."""

from __future__ import annotations

import bisect
import sys
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

from mmlint.core.diagnostics import AwaitRewrite, Edit, Span
from mmlint.core.identifiers import normalise_identifier
from mmlint.core.source import decode_keeping_format, python_tokens
from mmlint.fix.model import CallFix, FixedSite, UnfixedSite
from mmlint.fix.text_edits import apply_text_edits

# Tokens after a call that make it the primary of a trailer: `await` must be
# parenthesised there ((await x())[0], (await x()).a, (await x())()).
_TRAILERS = frozenset({".", "[", "("})


@dataclass(frozen=True)
class CallRewrite:
    """What the rewrite produced for one file."""

    new: bytes
    fixed: tuple[FixedSite, ...]
    unfixed: tuple[UnfixedSite, ...]
    edits: tuple[Edit, ...] = ()  # in the coordinates of the input text


class CannotRewrite(ValueError):
    """The file cannot be rewritten without touching other bytes."""


def callee_name_index(tokens: Sequence[tokenize.TokenInfo], close: int) -> int:
    """Index of the NAME just before the ``(`` matching ``tokens[close]``."""
    depth = 0
    for index in range(close, -1, -1):
        tok = tokens[index]
        if tok.type == tokenize.OP and tok.string in ")]}":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in "([{":
            depth -= 1
            if depth == 0:
                name = index - 1
                while name >= 0 and tokens[name].type in (tokenize.NL, tokenize.COMMENT):
                    name -= 1
                return name
    return -1


def fstring_extents(tokens: Sequence[tokenize.TokenInfo]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where each outermost f-string lies, (start, end) in (line, 0-based
    column), in order: one STRING token before Python 3.12, FSTRING_START up
    to its FSTRING_END from 3.12 (nested ones are inside the outer one)."""
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    extents: list[tuple[tuple[int, int], tuple[int, int]]] = []
    depth = 0
    opened = (0, 0)
    for tok in tokens:
        if fstring_start is not None and tok.type == fstring_start:
            if depth == 0:
                opened = tok.start
            depth += 1
        elif fstring_start is not None and tok.type == fstring_end:
            depth -= 1
            if depth == 0:
                extents.append((opened, tok.start))
        elif depth == 0 and tok.type == tokenize.STRING:
            prefix = tok.string[: len(tok.string) - len(tok.string.lstrip("rRbBuUfF"))]
            if "f" in prefix.lower():
                extents.append((tok.start, tok.end))
    if depth > 0:  # not closed (the tokens end early): to the end
        extents.append((opened, (sys.maxsize, 0)))
    return extents


class CallTokens:
    """A text's tokens indexed for locating calls: by where a token starts,
    and where each ``)`` ends. Zero-width tokens (DEDENT, ENDMARKER) share
    positions with real ones and are skipped."""

    def __init__(self, tokens: Sequence[tokenize.TokenInfo]) -> None:
        self.tokens = tokens
        self.starts = {tok.start: index for index, tok in enumerate(tokens) if tok.start != tok.end}
        self.closes = {
            tok.end: index for index, tok in enumerate(tokens) if tok.type == tokenize.OP and tok.string == ")"
        }
        # Found once, looked up per call: a scan of the tokens per call made a file's fix quadratic in its calls.
        self._fstrings = fstring_extents(tokens)
        self._fstring_starts = [start for start, _ in self._fstrings]

    def inside_fstring(self, line: int, column: int) -> bool:
        """Whether (line, 0-based column) lies inside an f-string."""
        index = bisect.bisect_right(self._fstring_starts, (line, column)) - 1
        return index >= 0 and (line, column) < self._fstrings[index][1]


@dataclass(frozen=True)
class LocatedCall:
    """A planned call found in the tokens: its first token, its callee's name
    token and its closing paren (indexes), and the rewrite they make."""

    start: int
    name: int
    close: int
    rewrite: AwaitRewrite


def locate_call(indexed: CallTokens, fix: CallFix) -> LocatedCall | str:
    """The rewrite of ``fix`` as the tokens place it, or why they do not confirm it:
    the call must start and end at the planned span and its callee be ``fix.sync``."""
    tokens = indexed.tokens
    span = fix.span
    # Asked first: from Python 3.12 the call inside an f-string is tokens of its own, which would match.
    if indexed.inside_fstring(span.line, span.column - 1):
        return "inside an f-string"
    start = indexed.starts.get((span.line, span.column - 1))
    close = indexed.closes.get((span.end_line, span.end_column - 1))
    if start is None or close is None:
        return "no call of the twin starts and ends at this position"
    name = callee_name_index(tokens, close)
    if name < start or tokens[name].type != tokenize.NAME or normalise_identifier(tokens[name].string) != fix.sync:
        return f"the callee here is not `{fix.sync}`"
    following = close + 1
    while following < len(tokens) and tokens[following].type in (tokenize.NL, tokenize.COMMENT):
        following += 1
    parenthesize = (
        following < len(tokens) and tokens[following].type == tokenize.OP and tokens[following].string in _TRAILERS
    )
    name_token = tokens[name]
    name_span = Span(name_token.start[0], name_token.start[1] + 1, name_token.end[0], name_token.end[1] + 1)
    return LocatedCall(start, name, close, AwaitRewrite(span, name_span, fix.sync, fix.async_, parenthesize))


def outer_first(span: Span) -> tuple[int, int, int, int]:
    """Sort key: by position, outer calls first where several start at one token
    (`self.f(a)[0].f(b)`): their `await ` must come before the inner call's
    `(await ` at that position, and edits at one position are applied in the
    order they are planned."""
    return (span.line, span.column, -span.end_line, -span.end_column)


def plan_call_edits(text: str, fixes: Sequence[CallFix]) -> tuple[list[Edit], list[FixedSite], list[UnfixedSite]]:
    """The edits for every planned call that the tokens confirm; the others are unfixed with a reason."""
    indexed = CallTokens(python_tokens(text))
    edits: list[Edit] = []
    fixed: list[FixedSite] = []
    unfixed: list[UnfixedSite] = []
    for fix in sorted(fixes, key=lambda fix: outer_first(fix.span)):
        located = locate_call(indexed, fix)
        if isinstance(located, str):
            unfixed.append(UnfixedSite(fix.span, fix.code, located))
            continue
        edits.extend(located.rewrite.edits())
        fixed.append(FixedSite(fix.span, fix.code, parenthesized=located.rewrite.parenthesize))
    return edits, fixed, unfixed


def rewrite_calls(source: bytes, fixes: Sequence[CallFix]) -> CallRewrite:
    """Rewrite every planned call in ``source`` as text edits. A planned span
    that matches no call of the twin is reported as unfixed, never guessed at.
    Raises ``SyntaxError`` / ``UnicodeError`` for text Python cannot decode or
    tokenize, and ``CannotRewrite`` when decoding and encoding back would not
    give the same bytes (so an edit could not leave the rest untouched)."""
    if not fixes:
        return CallRewrite(source, (), ())
    text, encode = decode_keeping_format(source)
    if encode(text) != source:
        raise CannotRewrite("its encoding does not round-trip, so other bytes would change")
    edits, fixed, unfixed = plan_call_edits(text, fixes)
    new = encode(apply_text_edits(text, edits)) if edits else source
    by_span = lambda site: site.span  # noqa: E731
    return CallRewrite(new, tuple(sorted(fixed, key=by_span)), tuple(sorted(unfixed, key=by_span)), tuple(edits))
