"""Text from the user's files as rich markup that prints exactly that text.

rich's ``escape`` protects ``[`` and doubles a single trailing backslash,
which is right only where a tag follows at once (rich reads the backslashes
before a tag in pairs) and shows two backslashes anywhere else (a message or
a path that ends in one, a table cell); two or more trailing backslashes it
leaves as they are, which a tag then halves; and rich prints a backslash
before a ``[`` that opens no tag as nothing. Here the two places are told
apart: ``text`` for markup that plain text or the end of the line follows,
``styled`` for markup inside a style, which its closing tag follows."""

from __future__ import annotations

import re

from rich.markup import escape as _rich_escape

_BACKSLASH = "\\"
# Backslashes before a "[" that opens no tag: rich's printing drops one of them.
_BEFORE_PLAIN_BRACKET = re.compile(r"(\\+)(?=\[(?![a-z#/@][^[]*?\]))")


def text(plain: str) -> str:
    """``plain`` as markup where no tag follows it directly."""
    escaped = _BEFORE_PLAIN_BRACKET.sub(lambda run: run.group(1) + _BACKSLASH, _rich_escape(plain))
    if _trailing(plain) == 1:
        return escaped[:-1]  # rich's extra backslash, for a tag that is not there
    return escaped


def styled(markup: str, style: str) -> str:
    """``markup`` (made by ``text``, or markup of our own) inside ``style``: the
    backslashes it ends with come right before the closing tag, so each is
    written twice."""
    return f"[{style}]{markup}{_BACKSLASH * _trailing(markup)}[/]"


def _trailing(value: str) -> int:
    """How many backslashes ``value`` ends with."""
    return len(value) - len(value.rstrip(_BACKSLASH))
