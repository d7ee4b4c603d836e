"""The reach's memo on real packages (mmlint.check.reach_memo): after an
edit, a run that takes the unchanged files' steps from the memo reports
what a run with an empty cache reports, on sglang 0.5.23's and vLLM
0.33.0's whole packages: every position of an analysed file shifted, and a
plain module a blocking chain runs through emptied."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from reach_support import followed_files

from mmlint.api import check
from mmlint.core.report import AnalysedReport
from mmlint.facts.outcome import Unparsed

pytestmark = [pytest.mark.ecosystem, pytest.mark.slow]


def _check(package: Path, config: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> AnalysedReport:
    monkeypatch.setenv("MMLINT_CACHE_DIR", str(cache))
    return check([package], cwd=package.parent, config=config)


def _seen(report: AnalysedReport) -> tuple[object, ...]:
    return (
        tuple((d.sort_key, d.message, d.chain) for d in report.diagnostics),
        report.suppressed,
        report.project.files,
    )


@pytest.mark.parametrize("package_fixture", ["sglang_0_5_23_package", "vllm_0_33_0_package"])
def test_a_run_with_the_memo_reports_what_a_fresh_run_reports(
    package_fixture: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original: Path = request.getfixturevalue(package_fixture)
    package = tmp_path / "copy" / original.name
    shutil.copytree(original, package)
    (tmp_path / "config").mkdir()
    config = tmp_path / "config" / "mmlint.toml"  # not above the caches: a cache under it would not be used
    config.write_text("", encoding="utf-8")  # the defaults, whatever lies above
    monkeypatch.delenv("MMLINT_NO_CACHE", raising=False)
    first = _check(package, config, tmp_path / "cache", monkeypatch)
    followed = followed_files(monkeypatch)
    reached = {shown for shown, outcome in first.outcomes.items() if outcome == Unparsed("prefilter")} & set(first.project.files)
    through = sorted(
        {step.split(" at ")[-1].rstrip("`").rsplit(":", 1)[0] for d in first.diagnostics for step in d.chain if " at " in step}
        & reached
    )
    assert through, "no chain runs through a reached plain module: the second edit would test nothing"
    analysed = sorted(shown for shown, outcome in first.outcomes.items() if shown in first.project.files and shown not in reached)
    # Every position of an analysed file shifted.
    shifted = package.parent / analysed[len(analysed) // 2]
    shifted.write_text("\n\n\n" + shifted.read_text("utf-8"), "utf-8")
    before = _check(package, config, tmp_path / "cache", monkeypatch)
    with_memo = len(followed)
    assert _seen(before) == _seen(_check(package, config, tmp_path / "fresh-shifted", monkeypatch))
    assert 0 < with_memo < len(followed) - with_memo  # the shifted file was followed again, the others taken from the memo
    # A plain module a chain runs through emptied, one whose steps led to
    # defs nothing else leads to (so a step remembered from its old bytes
    # would show): the chains through it end.
    for number, shown in enumerate(through[:4]):
        path = package.parent / shown
        kept = path.read_text("utf-8")
        path.write_text("", "utf-8")
        remembered = _check(package, config, tmp_path / "cache", monkeypatch)
        fresh = _check(package, config, tmp_path / f"fresh-{number}", monkeypatch)
        assert _seen(remembered) == _seen(fresh), shown
        elsewhere = {other: facts for other, facts in fresh.project.files.items() if other != shown}
        if elsewhere != {other: facts for other, facts in before.project.files.items() if other != shown}:
            break  # the emptied module's steps led somewhere only it led
        path.write_text(kept, "utf-8")
        _check(package, config, tmp_path / "cache", monkeypatch)  # the memo as before
    else:
        pytest.fail(f"emptying none of {through[:4]} changed what else is reached: the comparison would be vacuous")
