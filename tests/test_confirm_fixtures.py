"""mmlint confirm on a fixture service with real blocking work, run by its own
tests under pytest-asyncio (default loop and uvloop), then fed back into
`mmlint check --confirmed` in every format."""

from __future__ import annotations

import importlib.util
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from confirm_support import by_def, confirmed_report, run_mmlint, run_pytest, write_service

pytestmark = pytest.mark.slow

LOOPS = [
    "asyncio",
    pytest.param(
        "uvloop", marks=pytest.mark.skipif(importlib.util.find_spec("uvloop") is None, reason="uvloop is not installed")
    ),
]
# One finding per cause: warm_cache's MM003 is the MM005 at its time.sleep.
CONFIRMED = [
    ("MM005", "nap"),
    ("MM005", "warm_cache"),
    ("MM005", "read_blob"),
    ("MM005", "thumbnail"),
    ("MM005", "count_tokens"),
    ("MM005", "fetch"),
]


@pytest.fixture(scope="module", params=LOOPS)
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = write_service(tmp_path_factory.mktemp(request.param), uvloop=request.param == "uvloop")
    run = run_pytest(
        root, "-n", "0", "-W", "ignore::DeprecationWarning", "--mmlint-confirm", "--mmlint-threshold-ms=10"
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # At least the CPU loop is unexplained: a loaded machine that deschedules the
    # loop thread past the threshold may sample another stall beside it.
    assert re.search(r"mmlint confirm: 6 confirmed, 1 refuted, 1 not reached, [1-9]\d* unexplained", run.stdout), (
        run.stdout
    )
    return root, confirmed_report(root)


def test_each_real_blocking_call_is_confirmed_with_its_measurement(service: tuple[Path, dict[str, Any]]) -> None:
    _, report = service
    findings = by_def(report)
    for code, name in CONFIRMED:
        found = findings[(code, name)]
        assert found["status"] == "confirmed", found
        assert found["calls"] >= 1 and found["blocked_ms_max"] > 10, found
        assert found["test"].startswith("tests/test_svc.py::test_"), found
    assert ("MM003", "warm_cache") not in findings  # folded into the MM005 at its cause
    assert findings[("MM005", "warm_cache")]["calls"] == 1


def test_a_cheap_call_is_refuted_and_an_untested_one_not_reached(service: tuple[Path, dict[str, Any]]) -> None:
    findings = by_def(service[1])
    assert findings[("MM005", "pack")]["status"] == "refuted"
    assert findings[("MM005", "pack")]["calls"] == 1
    assert findings[("MM005", "never_tested")]["status"] == "not-reached"


def test_a_stall_no_finding_explains_is_listed_with_its_stack(service: tuple[Path, dict[str, Any]]) -> None:
    report = service[1]
    # The offloaded sleep is neither a finding nor a stall; the CPU loop is a
    # stall (a loaded machine may add others in code the fixture does not own).
    assert not any(
        "nap_offloaded" in f["key"] or "nap_offloaded" in u["function"]
        for f in report["findings"]
        for u in report["unexplained"]
    )
    (stall,) = [u for u in report["unexplained"] if u["path"] == "svc/numeric.py"]
    assert (stall["path"], stall["line"], stall["function"]) == ("svc/numeric.py", 4, "svc.numeric.sum_squares")
    assert stall["blocked_ms"] > 10
    assert stall["stack"][:2] == ["svc/numeric.py:4 sum_squares", "svc/work.py:59 crunch"]
    # The tokenizer's Rust method is named by its receiver: sampled, not wrapped, and said so.
    assert [note for note in report["not_wrapped"] if "tokenizer.encode" in note] == report["not_wrapped"]


@pytest.mark.parametrize("output_format", ["text", "concise", "json", "github", "sarif", "junit"])
def test_check_confirmed_round_trips_in_every_format(service: tuple[Path, dict[str, Any]], output_format: str) -> None:
    root = service[0]
    run = run_mmlint(root, "check", "--no-cache", "--confirmed", "mmlint-confirm.json", "--format", output_format)
    assert run.returncode == 1, run.stderr
    out = run.stdout
    if output_format == "json":
        diagnostics = json.loads(out)["diagnostics"]
        assert sum("confirmed" in d for d in diagnostics) == 6
        (refuted,) = [d for d in diagnostics if "refuted" in d]
        assert refuted["line"] == 49 and refuted["refuted"]["calls"] == 1
    elif output_format == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        assert sum("confirmed" in r.get("properties", {}) for r in results) == 6
    elif output_format == "junit":
        failures = [case.find("failure") for case in ET.fromstring(out).iter("testcase")]
        assert sum("confirmed: blocked the loop" in (f.text or "") for f in failures if f is not None) == 6
    else:
        assert out.count("confirmed: blocked the loop") == 6 and out.count("refuted: 1 call") == 1


def test_drop_refuted_leaves_the_refuted_finding_out(service: tuple[Path, dict[str, Any]]) -> None:
    root = service[0]
    run = run_mmlint(
        root, "check", "--no-cache", "--confirmed", "mmlint-confirm.json", "--drop-refuted", "--format", "json"
    )
    lines = [d["line"] for d in json.loads(run.stdout)["diagnostics"]]
    assert 49 not in lines and len(lines) == 7


def test_the_plugin_reads_a_check_report_instead_of_analysing(tmp_path: Path) -> None:
    root = write_service(tmp_path, tests="from svc import work\n\nasync def test_nap():\n    await work.nap(0.05)\n")
    report = run_mmlint(root, "check", "--no-cache", "--format", "json", "-o", "static.json", "--exit-zero")
    assert report.returncode == 0, report.stderr
    (root / "pyproject.toml").write_text(
        (root / "pyproject.toml").read_text().replace('paths = ["svc"]', 'paths = ["nowhere"]')
    )
    run = run_pytest(root, "-n", "0", "--mmlint-confirm=out/confirm.json", "--mmlint-report=static.json")
    assert run.returncode == 0, run.stdout + run.stderr
    findings = by_def(confirmed_report(root, "out/confirm.json"))
    assert findings[("MM005", "nap")]["status"] == "confirmed"
    assert findings[("MM005", "pack")]["status"] == "not-reached"
