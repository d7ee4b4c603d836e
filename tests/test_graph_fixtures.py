"""The whole program (issue 18) and twins by assignment (issue 19), on
fixtures/graph: an override of the async method cuts a chain, twins bypassed
through the call graph, re-exports, `make_async` twins, MM004 for a root
that is exempt or suppressed."""

from __future__ import annotations

from pathlib import Path

from expectations import assert_diagnostics_match, expected_findings

from mmlint.api import check

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "graph"
CODES = ("MM003", "MM004", "MM005", "MM010")


def _report():
    return check(cwd=PACKAGE)


def test_defaults_report_exactly_the_markers() -> None:
    assert_diagnostics_match(expected_findings(PACKAGE, PACKAGE), _report().diagnostics, CODES)


def test_an_override_of_the_async_method_cuts_the_chain_through_the_subclass() -> None:
    report = _report()
    analysis = report.project.suspension
    weights = report.project.weight(report.settings.heavy_calls)
    by_name = {analysis.defs[key].qualname: key for key in analysis.defs_by_path["gpkg/overrides.py"]}
    cut = weights.weight(by_name["BaseRenderer.render_messages_async"])
    assert cut is not None and cut.kind != "heavy"  # TemplateRenderer overrides it
    kept = weights.weight(by_name["BaseEncoder.encode_prompt_async"])
    assert kept is not None and kept.kind == "heavy" and "EagerEncoder.encode_prompt" in kept.chain[0]
