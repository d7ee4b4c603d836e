"""The prefilter loses nothing on real code: with every file of sglang
0.5.23's and vLLM 0.33.0's whole packages analysed (the prefilter passing
them all), the run reports exactly what the default run reports: the same
findings, messages, chains, suppressed findings and call sites.

The prefilter decides only which files are parsed in full; the files it
rejects that a call leads to get light-tier facts (mmlint.check.reach).
With every file analysed there is nothing left to reach, so the comparison
also holds the light tier and the reach to the full per-file pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmlint.api import check
from mmlint.check.prefilter import Prefilter
from mmlint.core.report import Report
from mmlint.facts.outcome import Unparsed

pytestmark = [pytest.mark.ecosystem, pytest.mark.slow]


def _check(package: Path, config: Path) -> Report:
    return check([package], cwd=package.parent, config=config)


# Known gap: typed receivers (a method of the class assigned to `self.x`, a
# tokenizer held in an attribute) resolve only through files the run has facts
# for, and the reach does not yet follow every such receiver. Measured on
# 2026-12-05: analysing every file changes 201 diagnostics on sglang (findings,
# chains and suppressed ones; among them action/protocol.py:480, MM005) and
# about 10 on vLLM (benchmarks/serve.py:2213, MM010). A reach that follows what
# the rules' Resolver says a followed call runs closes the gap on both, at +77 %
# cold CPU on sglang (571 files reached in 7 rounds) and ~180 new sglang
# findings not yet judged, so it has not landed.
@pytest.mark.xfail(strict=True, reason="the reach does not follow every typed receiver yet (see above)")
@pytest.mark.parametrize("package_fixture", ["sglang_0_5_23_package", "vllm_0_33_0_package"])
def test_analysing_every_file_reports_what_the_default_run_reports(
    package_fixture: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package: Path = request.getfixturevalue(package_fixture)
    config = tmp_path / "mmlint.toml"
    config.write_text("", encoding="utf-8")  # the defaults, whatever lies above the cache
    # Neither run may answer from a cache: the results key and the prefilter's
    # kept verdicts know nothing of the prefilter being turned off.
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    default = _check(package, config)
    monkeypatch.setattr(Prefilter, "could_hold_finding", lambda self, data: True)
    everything = _check(package, config)
    assert default.diagnostics, "the default run found nothing: the comparison would be vacuous"
    assert everything.diagnostics == default.diagnostics
    assert everything.suppressed == default.suppressed
    assert everything.call_sites == default.call_sites
    # The default run did prefilter most files (else it compared nothing).
    prefiltered = sum(outcome == Unparsed("prefilter") for outcome in default.outcomes.values())
    assert prefiltered > default.files_scanned // 2, (prefiltered, default.files_scanned)
    assert not any(outcome == Unparsed("prefilter") for outcome in everything.outcomes.values())
