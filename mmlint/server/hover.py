"""What hovering a finding shows (Markdown): the rule's code, name and
summary, the message, the chain of calls to the costliest one, why, the
advice, and where the rule's documentation is — its page on the project's
site, and `mmlint explain CODE`, which works wherever mmlint is installed
(no checkout, no network)."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.core.diagnostics import Diagnostic
from mmlint.rules import rule_by_code


def hover_markdown(diagnostics: Iterable[Diagnostic], link_of: dict[str, str | None]) -> str | None:
    """One section per finding, a rule between them; None for no finding.
    ``link_of``: the rule page's address by code (None: none to give)."""
    sections = [_section(d, link_of.get(d.code)) for d in diagnostics]
    return "\n\n---\n\n".join(sections) if sections else None


def _section(d: Diagnostic, link: str | None) -> str:
    rule = rule_by_code(d.code)
    head = f"**{d.code}** `{d.name}`" + (f": {_escape(rule.summary)}" if rule is not None else "")
    parts = [head, _escape(d.message)]
    if len(d.chain) >= 2:
        parts.append("Chain:\n\n" + "\n".join(f"{index}. {_escape(step)}" for index, step in enumerate(d.chain, 1)))
    if d.reason:
        parts.append(f"Why: {_escape(d.reason)}")
    if d.help:
        parts.append(f"Help: {_escape(d.help)}")
    docs = f"`mmlint explain {d.code}`"
    parts.append(f"[{d.code} documentation]({link}), or {docs}" if link else f"Documentation: {docs}")
    return "\n\n".join(parts)


def _escape(text: str) -> str:
    """mmlint's text as Markdown: its `code` spans stay code spans (messages
    quote names that way), and outside them nothing is markup (a name with
    `_` or `*` stays as it is). Unpaired backticks are shown as they are."""
    pieces = text.split("`")
    if len(pieces) % 2 == 0:
        return _literal(text, "\\`*_{}[]<>#|")
    return "`".join(piece if index % 2 else _literal(piece, "\\*_{}[]<>#|") for index, piece in enumerate(pieces))


def _literal(text: str, special: str) -> str:
    return "".join("\\" + char if char in special else char for char in text)
