"""One classification per async def: MM003 fires exactly where the analysis
(what `audit` counts) says "never suspends" and the def has no suspension
point at all. Shared by the fixture test and the ecosystem test."""

from __future__ import annotations

from pathlib import Path

from mmlint.analysis import NEVER, NOT_JUDGED
from mmlint.analysis.weight import HEAVY
from mmlint.api import check


def assert_mm003_agrees_with_audit(tree: Path, tmp_path: Path) -> int:
    """Check ``tree`` with an empty configuration (no exemptions) and compare
    MM003 (reported or suppressed inline) with the shared classification.
    Returns how many async defs were compared."""
    config = tmp_path / "empty-mmlint.toml"
    config.write_text("", encoding="utf-8")
    report = check([tree], config=config, cwd=tree, select=["MM003"])
    flagged = {(d.path, d.span) for d in (*report.diagnostics, *report.suppressed) if d.code == "MM003"}
    analysis = report.project.suspension
    skipped = {
        path
        for path, outcome in report.outcomes.items()
        if getattr(outcome, "suppressions", None) and outcome.suppressions.skip_file
    }
    weights = report.project.weight(report.settings.heavy_calls)
    never_without_point = set()
    for key, info in analysis.defs.items():
        verdict = analysis.classify(key)
        if info.is_fake_async:
            assert verdict == NEVER, (key, info.qualname, verdict)
            # Every never-suspending def is weighed; by default MM003 reports the heavy ones.
            if (
                key[0] not in skipped and weights.weight(key).kind == HEAVY
            ):  # `# mmlint: skip-file`: nothing is reported there
                never_without_point.add((key[0], info.span))
        else:
            assert verdict == NOT_JUDGED or info.has_suspension_point, (key, info.qualname)
    assert flagged == never_without_point
    return len(analysis.defs)
