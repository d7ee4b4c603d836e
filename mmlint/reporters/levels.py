"""Severity per rule code, shared by the reporters that have a notion of level
(GitHub annotations, SARIF results)."""

from __future__ import annotations

# An unused suppression is housekeeping, not a defect in the code that runs:
# it is shown as a warning. Every other rule flags a real failure mode.
WARNING_CODES = frozenset({"MM009"})


def level_of(code: str) -> str:
    """"warning" for housekeeping codes, else "error" (the names GitHub and SARIF share)."""
    return "warning" if code in WARNING_CODES else "error"
