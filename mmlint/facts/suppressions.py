"""Inline suppression comments: ``# mmlint: ignore[MM001,MM003]``,
``# mmlint: ignore``, ``# mmlint: skip-file``, and flake8's and ruff's
``# noqa: MM001`` / bare ``# noqa``.

The grammar (SPEC "Suppressions"). Comments are the tokenizer's COMMENT
tokens, so the same words inside a string are never a suppression. A comment
is made of ``#`` segments: one starts at the comment's ``#`` and one at every
``#`` that follows whitespace. A directive is a whole segment: ``#``,
``mmlint``, ``:``, then ``ignore`` with an optional ``[CODES]`` list, or
``skip-file``, then the end of the comment, or whitespace and a reason
(``# mmlint: ignore[MM001] -- measured on purpose``: the rest of the segment), or
whitespace and the next segment. As with ruff's ``# noqa``, spacing after
``#``, around ``:`` and before ``[`` is free and so is the case of the keyword.
Anything else is prose: ``an inline `# mmlint: ignore` comment`` (the ``#``
follows a backtick) is no segment at all. Prose is never a suppression and
never edited; a segment that starts like a directive (``# mmlint:``) but is not
one (``# mmlint: ignore[MM001]because``, or a reason that looks like codes left
out of their brackets, ``# mmlint: ignore MM001``) is recorded as malformed, for a
warning (MM009, never a fix).

A ``# noqa`` segment is another tool's grammar that mmlint also honours (unless
``respect-noqa = false``): bare, it covers every code on its line; with codes
(``# noqa: E501,MM001``), the MM ones. Other tools share these comments, so
mmlint never reports one as unused and never edits it.
"""

from __future__ import annotations

import re
import tokenize
from dataclasses import dataclass

from mmlint.core.diagnostics import Span
from mmlint.core.pickling import pickles_by_fields
from mmlint.core.source import iter_python_tokens, split_lines

_BLANK = " \t\f"  # whitespace as Python counts it between tokens
_SPACE = f"[{_BLANK}]"
# Only where a segment starts: "#", then the directive; `keyword` is checked apart
# so that `# mmlint: ignored` or `# mmlint: disable` is malformed, not prose.
_DIRECTIVE = re.compile(
    rf"#{_SPACE}*mmlint{_SPACE}*:{_SPACE}*(?P<keyword>[A-Za-z][A-Za-z-]*)"
    rf"(?:{_SPACE}*\[(?P<codes>[^\[\]]*)\])?"
)
# What a segment that means to be a directive starts with.
_ATTEMPT = re.compile(rf"#{_SPACE}*mmlint{_SPACE}*:", re.IGNORECASE)
# Every attempt contains "mmlint", with the same case folding, and every noqa
# that can cover an mmlint code is bare or names an MM code: a text with neither
# has no directive, and is not tokenized (a fifth of the per-file pass's time).
_MENTION = re.compile(rf"mmlint|#{_SPACE}*noqa(?!{_SPACE}*:)|noqa{_SPACE}*:[^\r\n]*\bMM[0-9]", re.IGNORECASE)
# flake8's grammar: bare `noqa`, or `noqa:` and codes separated by commas or blanks.
_NOQA = re.compile(
    rf"#{_SPACE}*noqa(?:{_SPACE}*:{_SPACE}*(?P<codes>[A-Z]+[0-9]+(?:[,{_BLANK}]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)
_NOQA_END = re.compile(rf"[,{_BLANK}]*(?:\Z|(?<=[{_BLANK}])|[{_BLANK}])")
_CODE = re.compile(r"[A-Z]+[0-9]+\Z")
# A reason that starts like a code or a code list: the codes were meant to be in brackets.
_CODE_LIKE_REASON = re.compile(r"\[|[A-Z]+[0-9]+\b")
EXAMPLE = "`# mmlint: ignore[MM001] -- why`"


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class Suppression:
    line: int
    codes: tuple[str, ...] | None  # None: every code on the line
    span: Span  # the directive itself, `#` to `]` (or to `ignore`)
    codes_span: Span | None  # the text between `[` and `]`; None for a bare ignore
    # What removing the directive removes: its span plus the whitespace that
    # separated it from the code or `#` segment before it (a directive alone on
    # its line takes the line's blanks, or the blanks up to the next segment).
    # None when no removal keeps every line break as it is (_Parser._suppression).
    removal_span: Span | None
    # "mmlint" for `# mmlint: ignore`; "noqa" for a noqa comment that other tools
    # share: honoured as a suppression, never reported as unused, never edited.
    kind: str = "mmlint"

    def covers(self, code: str) -> bool:
        return self.codes is None or code in self.codes


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class MalformedDirective:
    """A comment segment that starts like a directive but is not one: not a
    suppression, never edited, reported as a warning."""

    span: Span
    reason: str


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class FileSuppressions:
    skip_file: bool = False
    by_line: tuple[Suppression, ...] = ()
    malformed: tuple[MalformedDirective, ...] = ()


_NONE = FileSuppressions()


def parse_suppressions(text: str) -> FileSuppressions:
    """Find suppression directives; a tokenize error yields what was found before it."""
    if _MENTION.search(text) is None:
        return _NONE
    parser = _Parser(split_lines(text, keepends=True))
    header = True  # still before the first code token (a module docstring may come first)
    try:
        for token in iter_python_tokens(text):
            if token.type == tokenize.COMMENT:
                parser.comment(token, header)
            elif token.type not in (
                tokenize.NL,
                tokenize.NEWLINE,
                tokenize.ENCODING,
                tokenize.STRING,
                tokenize.INDENT,
                tokenize.DEDENT,
            ):
                header = False
            elif token.type == tokenize.STRING and token.start[1] != 0:
                header = False
    except (tokenize.TokenError, SyntaxError):
        pass
    return FileSuppressions(parser.skip_file, tuple(parser.found), tuple(parser.malformed))


class _Parser:
    def __init__(self, lines: list[str]) -> None:
        self._lines = lines
        self.skip_file = False
        self.found: list[Suppression] = []
        self.malformed: list[MalformedDirective] = []

    def comment(self, token: tokenize.TokenInfo, header: bool) -> None:
        line, column = token.start
        comment = token.string
        starts = _segment_starts(comment)
        for index, start in enumerate(starts):
            segment_end = starts[index + 1] if index + 1 < len(starts) else len(comment)
            if not _ATTEMPT.match(comment, start):
                self._noqa(line, column, comment, start, segment_end)
                continue
            match = _DIRECTIVE.match(comment, start)
            reason = _malformation(comment, match, header, segment_end)
            span = Span(
                line, column + start + 1, line, column + (match.end() if match else len(comment.rstrip(_BLANK))) + 1
            )
            if reason is not None:
                self.malformed.append(MalformedDirective(span, reason))
            elif match is not None and match.group("keyword").lower() == "skip-file":
                self.skip_file = True
            elif any(found.line == line and found.kind == "mmlint" for found in self.found):
                self.malformed.append(
                    MalformedDirective(span, "a second `# mmlint: ignore` in this comment; only the first counts")
                )
            elif match is not None:
                self.found.append(self._suppression(line, column, comment, match, segment_end))

    def _noqa(self, line: int, column: int, comment: str, start: int, segment_end: int) -> None:
        """A `# noqa` segment that covers mmlint codes (every code, or MM ones)."""
        match = _NOQA.match(comment, start)
        if match is None or _NOQA_END.match(comment, match.end()) is None:
            return
        codes_text = match.group("codes")
        if codes_text is None:
            if comment[match.end() : segment_end].lstrip(_BLANK).startswith(":"):
                return  # `noqa:` with no codes after it: flake8 reads it as prose
            codes = None
        else:
            codes = tuple(
                code.upper() for code in re.split(f"[,{_BLANK}]+", codes_text) if code.upper().startswith("MM")
            )
            if not codes:
                return  # another tool's codes only
        span = Span(line, column + start + 1, line, column + match.end() + 1)
        self.found.append(
            Suppression(line=line, codes=codes, span=span, codes_span=None, removal_span=None, kind="noqa")
        )

    def _suppression(self, line: int, column: int, comment: str, match: re.Match[str], segment_end: int) -> Suppression:
        codes_text = match.group("codes")
        codes = None if codes_text is None else tuple(c.strip(_BLANK) for c in codes_text.split(",") if c.strip(_BLANK))
        codes_span = None
        if codes_text is not None:
            first, last = column + match.start("codes") + 1, column + match.end("codes") + 1
            codes_span = Span(line, first, line, last)
        # The directive with its reason, if any: up to the next segment's blanks.
        directive_end = match.end() + len(comment[match.end() : segment_end].rstrip(_BLANK))
        begin, end = column + match.start(), column + directive_end
        text_line = self._lines[line - 1].rstrip("\r\n")
        before = text_line[:begin]
        if before.strip(_BLANK):
            # After code or another segment: take the blanks that separate them.
            removal = (len(before.rstrip(_BLANK)), end)
        elif segment_end < len(comment):
            # Starts its line and another segment follows: take the blanks up to it.
            removal = (begin, column + segment_end)
        elif not self._empty_line_merges_breaks(line):
            # Alone on its line: the line's blanks go with it (the line stays, empty).
            removal = (0, len(text_line))
        elif begin > 0:
            # Emptied, this line's LF would join the lone CR before it into one
            # CRLF, and the file would lose a line: the leading blanks stay.
            removal = (begin, len(text_line))
        else:
            removal = None  # nothing can stay on the line: not removable as text
        return Suppression(
            line=line,
            codes=codes,
            span=Span(line, begin + 1, line, column + match.end() + 1),
            codes_span=codes_span,
            removal_span=None if removal is None else Span(line, removal[0] + 1, line, removal[1] + 1),
        )

    def _empty_line_merges_breaks(self, line: int) -> bool:
        """Whether line ``line``, emptied, would leave a lone CR (the end of the
        line before) directly followed by its LF: one CRLF, one line less."""
        previous = self._lines[line - 2] if line >= 2 else ""
        own = self._lines[line - 1]
        return previous.endswith("\r") and own.endswith("\n") and not own.endswith("\r\n")


def _segment_starts(comment: str) -> list[int]:
    """Indexes of the `#` that start a segment: the first, and each after whitespace."""
    return [0] + [i for i in range(1, len(comment)) if comment[i] == "#" and comment[i - 1] in _BLANK]


def _malformation(comment: str, match: re.Match[str] | None, header: bool, segment_end: int) -> str | None:
    """Why a segment starting like a directive (``# mmlint:``) is not one, what
    is wrong before a "; " and the remedy after it (MM009's message and help);
    None when it is one."""
    if match is None:  # `# MMLint:`, `# mmlint: [MM001]`, ...
        return "no directive after `# mmlint:`; expected `# mmlint: ignore`, `# mmlint: ignore[CODES]` or `# mmlint: skip-file`"
    keyword = match.group("keyword").lower()
    codes = match.group("codes")
    if keyword not in ("ignore", "skip-file"):
        return f"unknown directive `{match.group('keyword')}`; expected `ignore`, `ignore[CODES]` or `skip-file`"
    tail = comment[match.end() : segment_end]
    if tail and tail[0] not in _BLANK:
        return f"text follows the directive without a blank; a reason goes after whitespace, e.g. {EXAMPLE}"
    if _CODE_LIKE_REASON.match(tail.lstrip(_BLANK)):
        return "codes outside brackets; codes go in brackets right after the keyword, e.g. `# mmlint: ignore[MM001]`"
    if keyword == "skip-file":
        if codes is not None:
            return "`# mmlint: skip-file` takes no codes; it skips the whole file"
        if not header:
            return "`# mmlint: skip-file` after code; it counts only in the comments before the first line of code"
        return None
    if codes is not None:
        items = [code.strip(_BLANK) for code in codes.split(",") if code.strip(_BLANK)]
        if not items:
            return "empty code list; name the codes, e.g. `# mmlint: ignore[MM001]`, or drop the brackets"
        bad = [code for code in items if not _CODE.match(code)]
        if bad:
            return f"not a code: {', '.join(repr(code) for code in bad)}; codes are like MM001, separated by commas"
    return None
