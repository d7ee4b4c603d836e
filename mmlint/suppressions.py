"""Inline suppression comments: ``# mmlint: ignore[MM001,MM003]``,
``# mmlint: ignore`` and ``# mmlint: skip-file``.

Comments are found with :mod:`tokenize`, so the same words inside a string are
never taken for a suppression.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from mmlint.diagnostics import Span

_IGNORE = re.compile(r"#\s*mmlint:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?")
_SKIP_FILE = re.compile(r"#\s*mmlint:\s*skip-file\b")


@dataclass(frozen=True, slots=True)
class Suppression:
    line: int
    codes: tuple[str, ...] | None  # None: every code on the line
    span: Span  # the `# mmlint: ignore[...]` text itself
    comment_span: Span  # the whole comment token holding it
    comment: str  # the whole comment token's text
    # Where removing the suppression starts: the whitespace before it when it is the
    # whole comment or ends it, so that removal leaves no trailing blanks.
    removal_span: Span

    def covers(self, code: str) -> bool:
        return self.codes is None or code in self.codes


@dataclass(frozen=True, slots=True)
class FileSuppressions:
    skip_file: bool = False
    by_line: tuple[Suppression, ...] = ()


def parse_suppressions(text: str) -> FileSuppressions:
    """Find suppression comments; a tokenize error yields what was found before it."""
    found: list[Suppression] = []
    skip_file = False
    header = True  # still before the first code token (a module docstring may come first)
    lines = text.splitlines(keepends=True)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                if header and _SKIP_FILE.search(token.string):
                    skip_file = True
                suppression = _suppression_in(token, lines)
                if suppression is not None:
                    found.append(suppression)
            elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING, tokenize.STRING, tokenize.INDENT, tokenize.DEDENT):
                header = False
            elif token.type == tokenize.STRING and token.start[1] != 0:
                header = False
    except (tokenize.TokenError, SyntaxError):
        pass
    return FileSuppressions(skip_file=skip_file, by_line=tuple(found))


def _suppression_in(token: tokenize.TokenInfo, lines: list[str]) -> Suppression | None:
    match = _IGNORE.search(token.string)
    if match is None:
        return None
    line, start_col = token.start
    codes_text = match.group("codes")
    codes = None if codes_text is None else tuple(c.strip() for c in codes_text.split(",") if c.strip())
    text_line = lines[line - 1].rstrip("\r\n") if line - 1 < len(lines) else token.string
    begin = start_col + match.start()
    end = start_col + match.end()
    removal_begin, removal_end = begin, end
    rest = token.string[match.end():]
    if rest.strip():
        # Text follows in the same comment ("# mmlint: ignore  # why"): drop the blanks after.
        removal_end = end + (len(rest) - len(rest.lstrip()))
    else:
        # Nothing follows: also drop the blanks before it.
        removal_begin = len(text_line[:begin].rstrip())
    return Suppression(
        line=line,
        codes=codes,
        span=Span(line, begin + 1, line, end + 1),
        comment_span=Span(line, start_col + 1, line, token.end[1] + 1),
        comment=token.string,
        removal_span=Span(line, removal_begin + 1, line, removal_end + 1),
    )
