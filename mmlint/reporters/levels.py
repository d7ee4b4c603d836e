"""Severity per rule code, shared by the reporters that have a notion of level
(GitHub annotations, SARIF results): each rule declares its own."""

from __future__ import annotations

from mmlint.rules import rule_by_code


def level_of(code: str) -> str:
    """ "warning" or "error" (the names GitHub and SARIF share), as the rule declares."""
    rule = rule_by_code(code)
    return rule.level if rule is not None else "error"
