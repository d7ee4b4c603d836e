"""The call rewrite is defined once (mmlint.core.diagnostics.AwaitRewrite): the
edits the rules report (SARIF) are the edits the fixer plans from the tokens,
and one fixer stage serves every rule whose fix kind is "call-rewrite"."""

from __future__ import annotations

from pathlib import Path

from fix_helpers import check_file, fix_path

from mmlint.core.diagnostics import AwaitRewrite, Edit, Span
from mmlint.fix.call_rewrite import plan_call_edits
from mmlint.fix.model import CallFix
from mmlint.fix.pipeline import STAGES
from mmlint.rules import all_rules

SOURCE = """\
class ImageHelper:
    def resize(self, image):
        return image

    async def resize_async(self, image):
        return await offload(self.resize, image)


class P(ImageHelper):
    async def run(self, out, image):
        return self.process_and_combine_mm_data(out)[0], self.resize(image).size
"""


def test_the_rewrite_spells_out_its_edits() -> None:
    call = Span(3, 5, 3, 14)
    plain = AwaitRewrite(call, Span(3, 7, 3, 8), "f", "f_async")
    assert plain.edits() == (Edit(Span(3, 5, 3, 5), "await "), Edit(Span(3, 7, 3, 8), "f_async"))
    wrapped = AwaitRewrite(call, Span(3, 7, 3, 8), "f", "f_async", parenthesize=True)
    assert wrapped.edits() == (
        Edit(Span(3, 5, 3, 5), "(await "),
        Edit(Span(3, 7, 3, 8), "f_async"),
        Edit(Span(3, 14, 3, 14), ")"),
    )
    assert wrapped.opening_tokens == ("(", "await") and wrapped.closing_tokens == (")",)


def test_reported_edits_are_the_fixers_edits(tmp_path: Path) -> None:
    target = tmp_path / "proc.py"
    target.write_text(SOURCE)
    diagnostics = [d for d in check_file(target).diagnostics if d.code in ("MM001", "MM010")]
    assert sorted(d.code for d in diagnostics) == ["MM001", "MM010"]
    for diagnostic in diagnostics:
        assert diagnostic.fixable and diagnostic.rewrite is not None
        fix = CallFix(diagnostic.span, diagnostic.rewrite.sync, diagnostic.rewrite.async_, diagnostic.code)
        edits, fixed, unfixed = plan_call_edits(SOURCE, [fix])
        assert not unfixed and tuple(edits) == diagnostic.edits == diagnostic.rewrite.edits()


def test_one_stage_per_kind_of_fix() -> None:
    kinds = {rule.code: rule.fix_kind for rule in all_rules() if rule.fix_kind is not None}
    assert kinds["MM001"] == kinds["MM010"] == "call-rewrite"
    assert set(kinds.values()) == set(STAGES)


def test_sites_of_both_rules_on_one_line_are_fixed_in_one_round(tmp_path: Path) -> None:
    target = tmp_path / "proc.py"
    target.write_text(SOURCE)
    run = fix_path(target)
    assert sorted(site.code for result in run.results for site in result.fixed) == ["MM001", "MM010"]
    assert not run.unfixed
    assert target.read_text().endswith(
        "return (await self.process_and_combine_mm_data_async(out))[0], (await self.resize_async(image)).size\n"
    )
