"""Text from the user's files as rich markup that prints exactly that text.

rich's ``escape`` protects ``[`` and (in newer rich) doubles a single trailing backslash,
which is right only where a tag follows at once (rich reads the backslashes
before a tag in pairs) and shows two backslashes anywhere else (a message or
a path that ends in one, a table cell); two or more trailing backslashes it
leaves as they are, which a tag then halves; and rich prints a backslash
before a ``[`` that opens no tag as nothing. Here the two places are told
apart: ``text`` for markup that plain text or the end of the line follows,
``styled`` for markup inside a style, which its closing tag follows."""

from __future__ import annotations

import re

_BACKSLASH = "\\"
# What rich's markup reads as a tag, with the backslashes before it (rich.markup's own pattern).
_TAG = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")
# Backslashes before a "[" that opens no tag: rich's printing drops one of them.
_BEFORE_PLAIN_BRACKET = re.compile(r"(\\+)(?=\[(?![a-z#/@][^[]*?\]))")


def text(plain: str) -> str:
    """``plain`` as markup where no tag follows it directly."""
    # As rich's escape: each backslash before a tag doubled, and the tag
    # escaped by one more. Not its extra trailing backslash (added in rich 13.x).
    escaped = _TAG.sub(lambda tag: f"{tag.group(1)}{tag.group(1)}{_BACKSLASH}{tag.group(2)}", plain)
    return _BEFORE_PLAIN_BRACKET.sub(lambda run: run.group(1) + _BACKSLASH, escaped)


def styled(markup: str, style: str) -> str:
    """``markup`` (made by ``text``, or markup of our own) inside ``style``: the
    backslashes it ends with come right before the closing tag, so each is
    written twice."""
    return f"[{style}]{markup}{_BACKSLASH * _trailing(markup)}[/]"


def _trailing(value: str) -> int:
    """How many backslashes ``value`` ends with."""
    return len(value) - len(value.rstrip(_BACKSLASH))
