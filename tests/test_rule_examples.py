"""Every rule's bad and good examples run as tests: a bad example must produce
exactly its stated codes (as a multiset, so one report too many or too few
fails), a good one none, and a fixable example must fix to its stated text."""

from __future__ import annotations

import pytest
from rule_examples import EXAMPLE_FILE, codes_in_example, run_example

from mmlint.rules import all_rules

BAD = [(rule.code, i, ex) for rule in all_rules() for i, ex in enumerate(rule.bad_examples)]
GOOD = [(rule.code, i, ex) for rule in all_rules() for i, ex in enumerate(rule.good_examples)]


def test_every_rule_has_examples():
    for rule in all_rules():
        assert rule.bad_examples, f"{rule.code} has no bad example"
        assert rule.good_examples, f"{rule.code} has no good example"
        assert any(rule.code in ex.expect for ex in rule.bad_examples), f"{rule.code}: no bad example expects it"


@pytest.mark.parametrize(("code", "index", "example"), BAD, ids=[f"{c}-bad{i}" for c, i, _ in BAD])
def test_bad_example_reports_exactly_its_codes(code, index, example, tmp_path):
    report = run_example(example, tmp_path)
    assert codes_in_example(report) == sorted(example.expect), [
        f"{d.path}:{d.span.line} {d.code} {d.message}" for d in report.diagnostics
    ]


@pytest.mark.parametrize(("code", "index", "example"), GOOD, ids=[f"{c}-good{i}" for c, i, _ in GOOD])
def test_good_example_reports_nothing(code, index, example, tmp_path):
    report = run_example(example, tmp_path)
    assert codes_in_example(report) == [], [f"{d.path}:{d.span.line} {d.code} {d.message}" for d in report.diagnostics]


FIXABLE = [(c, i, ex) for c, i, ex in BAD if ex.fixed is not None]


@pytest.mark.parametrize(("code", "index", "example"), FIXABLE, ids=[f"{c}-fix{i}" for c, i, _ in FIXABLE])
def test_fixable_example_fixes_to_its_stated_text(code, index, example, tmp_path):
    from mmlint.fix.run import fix_report

    report = run_example(example, tmp_path)
    fix_report(report, write=True)
    assert (tmp_path / EXAMPLE_FILE).read_text(encoding="utf-8") == example.fixed_code
    again = run_example(
        example.__class__(source=example.fixed_code, config=example.config, files=example.files), tmp_path
    )
    assert [d.code for d in again.diagnostics if d.fixable and d.path == EXAMPLE_FILE] == []


def test_fixable_rules_have_a_fixed_example():
    for rule in all_rules():
        if rule.fixable:
            assert any(ex.fixed is not None for ex in rule.bad_examples), f"{rule.code} is fixable but shows no fix"
