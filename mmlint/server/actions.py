"""What the code actions change, as text edits of the analysed text: the fix
of one diagnostic and of the whole file (mmlint.fix's pipeline, verified as
`mmlint fix` verifies it, in rounds as `mmlint fix` runs them), and an
inline suppression. Nothing here writes a file: the client applies the
edits to its buffer.

An ActionPlan is made once per analysed text, whatever the cursor asks:
one whole-file fix, whose verified edits are sliced per diagnostic, and
one pass of the tokenizer for where a comment may go. A fix or a
suppression per diagnostic, each over the whole text, made a code action
over many diagnostics quadratic in the file."""

from __future__ import annotations

import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mmlint.core.diagnostics import Diagnostic, Edit, Span
from mmlint.core.source import DecodeError, decode_keeping_format, decode_source, iter_python_tokens, split_lines
from mmlint.facts.suppressions import FileSuppressions, parse_suppressions
from mmlint.rules import rule_by_code
from mmlint.rules.mm009_unused_suppression import UnusedSuppression
from mmlint.server.analysis import DocumentResult

if TYPE_CHECKING:
    from mmlint.fix import FileFixResult, FileToFix

_BLANKS = " \t"
_STANDIN = "pass "  # code before a comment checked on its own (_verified_comment)


def fixed_bytes(result: DocumentResult, diagnostics: tuple[Diagnostic, ...]) -> bytes | None:
    """The document's bytes with ``diagnostics`` fixed, or None when the fixer
    changes nothing or refuses (its verification failed)."""
    return _changed(_fix(result, diagnostics))


def fix_file(file: FileToFix, *, write: bool, source: bytes) -> FileFixResult:
    """mmlint.fix.fix_file, imported by the first action that fixes: the server
    starts, and gives its first diagnostics, without the fixer (nor libcst)."""
    from mmlint.fix import fix_file as fix

    return fix(file, write=write, source=source)


def _fix(result: DocumentResult, diagnostics: tuple[Diagnostic, ...]) -> FileFixResult:
    from mmlint.fix import FileToFix

    file = FileToFix(result.shown, result.path, diagnostics, result.facts)
    return fix_file(file, write=False, source=result.data)


def _changed(fixed: FileFixResult) -> bytes | None:
    return fixed.new if fixed.changed and fixed.error is None else None


def fix_one(result: DocumentResult, diagnostic: Diagnostic) -> bytes | None:
    return fixed_bytes(result, (diagnostic,)) if diagnostic.fixable else None


def fix_all(
    result: DocumentResult, reanalyse: Callable[[bytes], DocumentResult], first_round: FileFixResult | None = None
) -> bytes | None:
    """Every fixable diagnostic fixed, round after round on the new text
    (``reanalyse``) until nothing changes, as `mmlint fix` does: fixing a call
    can leave a suppression beside it unused, which the next round removes.
    ``first_round``: the fix of every diagnostic of ``result``, when made already."""
    from mmlint.fix.run import MAX_FIX_ROUNDS

    current, changed = result, False
    for index in range(MAX_FIX_ROUNDS):
        if not any(d.fixable for d in current.diagnostics):
            break
        if index == 0 and first_round is not None:
            new = _changed(first_round)
        else:
            new = fixed_bytes(current, current.diagnostics)
        if new is None:
            break
        changed = True
        current = reanalyse(new)
    return current.data if changed else None


def can_suppress(diagnostic: Diagnostic) -> bool:
    """Whether a directive can suppress ``diagnostic``: not MM999, always
    reported, nor MM009, which judges the directives themselves (a directive
    naming it is one more unused code)."""
    rule = rule_by_code(diagnostic.code)
    return rule is not None and not rule.always_on and rule.code != UnusedSuppression.code


@dataclass(frozen=True)
class CommentPlaces:
    """The lines of a text that may end with a comment (a NEWLINE or NL token
    ends them: not inside a string, not continued by a backslash), and the
    comment each ends with."""

    lines: tuple[str, ...]  # with their line breaks
    open: frozenset[int]
    comments: dict[int, tuple[int, str]] = field(default_factory=dict)  # line -> (0-based column, text)

    @classmethod
    def of(cls, text: str) -> CommentPlaces:
        open_lines: set[int] = set()
        comments: dict[int, tuple[int, str]] = {}
        try:
            for token in iter_python_tokens(text):
                if token.type in (tokenize.NEWLINE, tokenize.NL):
                    open_lines.add(token.start[0])
                elif token.type == tokenize.COMMENT:
                    comments[token.start[0]] = (token.start[1], token.string)
        except (tokenize.TokenError, SyntaxError):
            pass  # the lines after the error take no comment
        return cls(tuple(split_lines(text, keepends=True)), frozenset(open_lines), comments)

    def suppression(self, diagnostic: Diagnostic) -> Edit | None:
        """The edit that suppresses ``diagnostic``: ``# mmlint: ignore[CODE]`` at
        the end of the line where it starts (its code added to a directive
        already there), else of the line where it ends, where a suppression
        also counts (mmlint.check.filters); None where no comment can go (a
        string or a backslash continuation runs on) or none would be read as
        a suppression of it."""
        if not can_suppress(diagnostic):
            return None
        for line in dict.fromkeys((diagnostic.span.line, diagnostic.span.end_line)):
            edit = self._suppression_on(line, diagnostic.code)
            if edit is not None:
                return edit
        return None

    def _suppression_on(self, line: int, code: str) -> Edit | None:
        if line not in self.open or not 1 <= line <= len(self.lines):
            return None
        body = self.lines[line - 1].rstrip("\r\n")
        column, comment = self.comments.get(line, (len(body.rstrip(_BLANKS)), ""))
        before = parse_suppressions(_STANDIN + comment + "\n")
        existing = next((s for s in before.by_line if s.kind == "mmlint"), None)
        if existing is None:
            end = len(body.rstrip(_BLANKS))
            edit = Edit(Span(line, end + 1, line, len(body) + 1), f"  # mmlint: ignore[{code}]")
            new_comment = body[column:end] + edit.text
        elif existing.codes_span is not None:
            at = existing.codes_span.end_column - 1 - len(_STANDIN)  # 0-based, in the comment
            inserted = (", " if existing.codes else "") + code
            edit = Edit(Span(line, column + at + 1, line, column + at + 1), inserted)
            new_comment = comment[:at] + inserted + comment[at:]
        else:
            return None  # a bare `# mmlint: ignore` covers every code already
        return edit if _verified_comment(before, new_comment, code) else None


def _verified_comment(before: FileSuppressions, new_comment: str, code: str) -> bool:
    """Whether the linter reads the new comment as a directive covering
    ``code``, and as malformed nowhere it did not before (on the comment alone:
    a comment's directives depend on nothing else of its line)."""
    after = parse_suppressions(_STANDIN + new_comment + "\n")
    if len(after.malformed) != len(before.malformed):
        return False
    return any(s.kind == "mmlint" and s.covers(code) for s in after.by_line)


def suppressed_text(text: str, diagnostic: Diagnostic) -> str | None:
    """``text`` with ``diagnostic`` suppressed (CommentPlaces.suppression), or None."""
    from mmlint.fix.text_edits import apply_text_edits

    edit = CommentPlaces.of(text).suppression(diagnostic)
    return None if edit is None else apply_text_edits(text, [edit])


class ActionPlan:
    """What the code actions of one analysed text offer, made once for it:
    the fix of every diagnostic together (one run of the fix pipeline, verified
    as `mmlint fix` verifies it), each diagnostic's share of its edits, where
    comments may go, and fix all (its rounds run when first asked for)."""

    def __init__(self, result: DocumentResult, text: str) -> None:
        self.result = result
        self.text = text
        self.places = CommentPlaces.of(text)
        self.whole: FileFixResult | None = None
        # Each fixed site's edits; None: the whole fix cannot be sliced (refused, or its edits are not the sites').
        self._sites: dict[tuple[Span, str], tuple[Edit, ...]] | None = {}
        self._fix_all: tuple[bytes | None] | None = None
        if any(d.fixable for d in result.diagnostics):
            self.whole = _fix(result, result.diagnostics)
            self._sites = _sites_of(result, text, self.whole)

    def fix_edits(self, diagnostic: Diagnostic) -> tuple[Edit, ...] | None:
        """The edits fixing ``diagnostic`` alone, in the analysed text's coordinates.

        A site's edits touch only its call (``await `` and any parentheses
        before, the name, any ``)`` after): applied alone, they make the
        same expression the whole fix made there, which was verified."""
        if not diagnostic.fixable:
            return None
        if self._sites is not None:
            return self._sites.get((diagnostic.span, diagnostic.code))
        # The whole fix was refused (one bad site spoils it), or its edits are
        # not the diagnostics' own: this site is fixed and verified on its own.
        new = fix_one(self.result, diagnostic)
        new_text = None if new is None else text_of(new)
        return None if new_text is None else (Edit(_whole_span(self.text), new_text),)

    def fix_all(self, reanalyse: Callable[[bytes], DocumentResult]) -> bytes | None:
        if self._fix_all is None:
            self._fix_all = (fix_all(self.result, reanalyse, self.whole),)
        return self._fix_all[0]


def _sites_of(
    result: DocumentResult, text: str, whole: FileFixResult
) -> dict[tuple[Span, str], tuple[Edit, ...]] | None:
    """Each fixed site's edits (its diagnostic's, which the rule and the fixer
    spell out the same way: mmlint.core.diagnostics.AwaitRewrite), if together
    they make exactly the verified text of the whole fix; else None."""
    from mmlint.fix.text_edits import EditConflict, apply_text_edits

    if whole.error is not None:
        return None
    new_text = text_of(whole.new)
    by_site = {(d.span, d.code): d for d in result.diagnostics}
    sites: dict[tuple[Span, str], tuple[Edit, ...]] = {}
    for site in whole.fixed:
        diagnostic = by_site.get((site.span, site.code))
        if diagnostic is None or not diagnostic.edits:
            return None
        sites[(site.span, site.code)] = diagnostic.edits
    try:
        together = apply_text_edits(text, [edit for edits in sites.values() for edit in edits])
    except EditConflict:
        return None
    return sites if together == new_text else None


def _whole_span(text: str) -> Span:
    lines = split_lines(text, keepends=True)
    if not lines:
        return Span(1, 1, 1, 1)
    last = lines[-1]
    if last.endswith(("\n", "\r")):
        return Span(1, 1, len(lines) + 1, 1)
    return Span(1, 1, len(lines), len(last) + 1)


def text_of(data: bytes) -> str | None:
    """The text an editor shows for ``data``; None when it does not decode."""
    try:
        return decode_source(data)
    except DecodeError:
        return None


def encode_like(text: str) -> bytes:
    """An editor buffer's text as the file would hold it: in the encoding its
    cookie declares (UTF-8 without one). Text its cookie cannot encode is
    given as UTF-8, which the analysis then reports as MM999."""
    try:
        _, encode = decode_keeping_format(text.encode("utf-8", "surrogatepass"))
        return encode(text)
    except (SyntaxError, UnicodeError, LookupError):
        return text.encode("utf-8", "surrogatepass")
