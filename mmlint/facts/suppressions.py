"""Inline suppression comments: ``# mmlint: ignore[MM001,MM003]``,
``# mmlint: ignore`` and ``# mmlint: skip-file``.

The grammar (SPEC "Suppressions"). Comments are the tokenizer's COMMENT
tokens, so the same words inside a string are never a suppression. A comment
is made of ``#`` segments: one starts at the comment's ``#`` and one at every
``#`` that follows whitespace. A directive is a whole segment: ``#``,
``mmlint``, ``:``, then ``ignore`` with an optional ``[CODES]`` list, or
``skip-file``, then the end of the comment or whitespace and the next segment.
As with ruff's ``# noqa``, spacing after ``#``, around ``:`` and before ``[`` is
free and so is the case of the keyword. Anything else is prose:
``an inline `# mmlint: ignore` comment`` (the ``#`` follows a backtick) is no
segment at all, and ``# mmlint: ignore[MM001] because`` (words after it in its
segment) is a segment that only looks like a directive. Prose is never a
suppression and never edited; a segment that starts like one (``# mmlint:``)
but is not one is recorded as malformed, for a warning (MM009, never a fix).
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
# Every attempt contains this, with the same case folding: a text without it
# has no directive, and is not tokenized (a fifth of the per-file pass's time).
_MENTION = re.compile("mmlint", re.IGNORECASE)
# After a directive: the end of the comment, or whitespace and the next segment.
_DIRECTIVE_END = re.compile(rf"{_SPACE}*\Z|{_SPACE}+(?=#)")
_CODE = re.compile(r"[A-Z]+[0-9]+\Z")
EXAMPLE = "`# mmlint: ignore[MM001]  # why`"


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
            elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING, tokenize.STRING, tokenize.INDENT, tokenize.DEDENT):
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
        for start in _segment_starts(comment):
            if not _ATTEMPT.match(comment, start):
                continue
            match = _DIRECTIVE.match(comment, start)
            reason = _malformation(comment, match, header)
            span = Span(line, column + start + 1, line, column + (match.end() if match else len(comment.rstrip(_BLANK))) + 1)
            if reason is not None:
                self.malformed.append(MalformedDirective(span, reason))
            elif match is not None and match.group("keyword").lower() == "skip-file":
                self.skip_file = True
            elif self.found and self.found[-1].line == line:
                self.malformed.append(MalformedDirective(span, "a second `# mmlint: ignore` in this comment; only the first counts"))
            elif match is not None:
                self.found.append(self._suppression(line, column, comment, match))

    def _suppression(self, line: int, column: int, comment: str, match: re.Match[str]) -> Suppression:
        codes_text = match.group("codes")
        codes = None if codes_text is None else tuple(c.strip(_BLANK) for c in codes_text.split(",") if c.strip(_BLANK))
        codes_span = None
        if codes_text is not None:
            first, last = column + match.start("codes") + 1, column + match.end("codes") + 1
            codes_span = Span(line, first, line, last)
        begin, end = column + match.start(), column + match.end()
        text_line = self._lines[line - 1].rstrip("\r\n")
        before = text_line[:begin]
        after = _DIRECTIVE_END.match(comment, match.end())
        assert after is not None  # a directive is followed by the end or the next segment
        if before.strip(_BLANK):
            # After code or another segment: take the blanks that separate them.
            removal = (len(before.rstrip(_BLANK)), end)
        elif after.end() < len(comment):
            # Starts its line and another segment follows: take the blanks up to it.
            removal = (begin, column + after.end())
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
            span=Span(line, begin + 1, line, end + 1),
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


def _malformation(comment: str, match: re.Match[str] | None, header: bool) -> str | None:
    """Why a segment starting like a directive (``# mmlint:``) is not one; None when it is."""
    if match is None:  # `# MMLint:`, `# mmlint: [MM001]`, ...
        return "expected `# mmlint: ignore`, `# mmlint: ignore[CODES]` or `# mmlint: skip-file`"
    keyword = match.group("keyword").lower()
    codes = match.group("codes")
    if keyword not in ("ignore", "skip-file"):
        return f"unknown directive `{match.group('keyword')}`: expected `ignore`, `ignore[CODES]` or `skip-file`"
    if _DIRECTIVE_END.match(comment, match.end()) is None:
        return (
            "text follows the directive in the same comment; a directive ends the comment or is "
            f"followed by whitespace and another `#` comment, e.g. {EXAMPLE}"
        )
    if keyword == "skip-file":
        if codes is not None:
            return "`# mmlint: skip-file` takes no codes: it skips the whole file"
        if not header:
            return "`# mmlint: skip-file` counts only in the comments before the first line of code"
        return None
    if codes is not None:
        items = [code.strip(_BLANK) for code in codes.split(",") if code.strip(_BLANK)]
        if not items:
            return "empty code list: name the codes, e.g. `# mmlint: ignore[MM001]`, or drop the brackets"
        bad = [code for code in items if not _CODE.match(code)]
        if bad:
            return f"not a code: {', '.join(repr(code) for code in bad)}; codes are like MM001, separated by commas"
    return None

