"""`--format json`: the report SPEC.md defines, one JSON object."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mmlint.core.diagnostics import Diagnostic
from mmlint.reporters.escaping import json_text
from mmlint.reporters.options import PLAIN, RenderFields, RenderOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from mmlint.core.report import Report

REPORT_VERSION = 1


def diagnostic_dict(d: Diagnostic) -> dict[str, Any]:
    found: dict[str, Any] = {
        "path": d.path,
        "line": d.span.line,
        "column": d.span.column,
        "end_line": d.span.end_line,
        "end_column": d.span.end_column,
        "code": d.code,
        "name": d.name,
        "message": d.message,
        "fixable": d.fixable,
    }
    if d.help:  # the advice below the one-line message; only when there is some, as `related`
        found["help"] = d.help
    if d.related:  # only present when there is one, so older consumers see the same objects
        found["related"] = [
            {
                "path": r.path,
                "line": r.span.line,
                "column": r.span.column,
                "end_line": r.span.end_line,
                "end_column": r.span.end_column,
                "message": r.message,
            }
            for r in d.related
        ]
    found.update(finding_fields(d))
    return found


def finding_fields(d: Diagnostic) -> dict[str, Any]:
    """`weight`, `reason`, `chain`, `context`: each only when the rule knows it
    (README "Finding fields"), so a report without them reads as before; and
    `confirmed` / `refuted` with `check --confirmed`."""
    fields: dict[str, Any] = {}
    if d.weight:
        fields["weight"] = d.weight
    if d.reason:
        fields["reason"] = d.reason
    if d.chain:
        fields["chain"] = list(d.chain)
    if d.context:
        fields["context"] = d.context
    if d.confirmation is not None:  # `check --confirmed`: "confirmed" or "refuted", with the measurement
        fields[d.confirmation.status] = d.confirmation.as_dict()
    return fields


def render_statistics(report: "Report") -> str:
    """`check --statistics --format json`: counts per rule, as ruff gives them."""
    counts: dict[str, dict[str, Any]] = {}
    for d in report.diagnostics:
        entry = counts.setdefault(d.code, {"code": d.code, "name": d.name, "count": 0, "fixable": 0})
        entry["count"] += 1
        entry["fixable"] += d.fixable
    return json_text([counts[code] for code in sorted(counts)])


def render(report: "Report", options: RenderOptions = PLAIN, /, **overrides: Unpack[RenderFields]) -> str:
    payload = {
        "version": REPORT_VERSION,
        "files_scanned": report.files_scanned,
        "call_sites": report.call_sites,
        "diagnostics": [diagnostic_dict(d) for d in report.diagnostics],
    }
    return json_text(payload)
