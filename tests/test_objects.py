"""Knowing what the objects are (issue 39), on fixtures/objects: methods
found through bases outside the scan, receivers typed by where their value
comes from, and knowledge keyed on those types. Each shape has a negative
twin in the same file (the same shape where the object is cheap or async)."""

from __future__ import annotations

from pathlib import Path

from expectations import assert_diagnostics_match, expected_findings

from mmlint.api import check

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "objects"
CODES = ("MM001", "MM003", "MM004", "MM005", "MM010")


def _report():
    return check(cwd=PACKAGE)


def test_the_markers_are_exactly_the_findings() -> None:
    assert_diagnostics_match(expected_findings(PACKAGE, PACKAGE), _report().diagnostics, CODES)


def test_a_method_behind_an_unseen_base_is_reported_but_never_rewritten() -> None:
    report = _report()
    fixable = {d.span.line: d.fixable for d in report.diagnostics if d.path == "opkg/mixins.py" and d.code == "MM010"}
    assert fixable == {50: False, 56: True}
