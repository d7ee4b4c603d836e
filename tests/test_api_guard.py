"""The pytest guard a project keeps in its own suite, built on the public API.

The guard itself is three lines (see `test_processors_use_the_worker_pool`);
the other tests show it passes on a migrated package, fails with the sites
named when a call regresses, and finds exactly the marked MM001 sites of the
sample processor package."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from expectations import assert_diagnostics_match, expected_findings

from mmlint.api import check

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MIGRATED_PACKAGE = FIXTURES / "api_guard"
PROCESSORS = FIXTURES / "processors"


def _guard(project_root: Path) -> None:
    # The guard as a project writes it (with its own root): the scan covers the
    # configured paths, so too few call sites (MM008) fails it as well.
    report = check(cwd=project_root)
    assert not report.diagnostics, "\n".join(
        f"{d.path}:{d.span.line}: {d.code} {d.message}" for d in report.diagnostics
    )


def test_processors_use_the_worker_pool() -> None:
    _guard(MIGRATED_PACKAGE)


def test_guard_scans_what_it_should() -> None:
    report = check(cwd=MIGRATED_PACKAGE)
    # Four modules; two processor calls plus the base class's two delegations
    # (counted, though the file is exempt).
    assert (report.files_scanned, report.call_sites) == (4, 4)


def test_guard_fails_naming_a_regressed_call(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(MIGRATED_PACKAGE, root)
    clip = root / "imgproc" / "clip.py"
    clip.write_text(
        clip.read_text(encoding="utf-8").replace(
            "await self.process_and_combine_mm_data_async(", "self.process_and_combine_mm_data("
        ),
        encoding="utf-8",
    )
    with pytest.raises(AssertionError) as failed:
        _guard(root)
    assert "imgproc/clip.py:8: MM001" in str(failed.value)


def test_guard_fails_when_the_scan_goes_vacuous(tmp_path: Path) -> None:
    """A renamed twin leaves no call sites: the guard must not pass silently."""
    root = tmp_path / "project"
    shutil.copytree(MIGRATED_PACKAGE, root)
    for module in (root / "imgproc").glob("*.py"):
        module.write_text(
            module.read_text(encoding="utf-8").replace("process_and_combine", "combine"), encoding="utf-8"
        )
    with pytest.raises(AssertionError) as failed:
        _guard(root)
    assert "MM008" in str(failed.value)


def test_api_finds_the_marked_sync_twin_calls_of_the_sample_package() -> None:
    report = check(cwd=PROCESSORS, select=["MM001"])
    expected = expected_findings(PROCESSORS / "mmproc", relative_to=PROCESSORS)
    assert sum(count for finding, count in expected.items() if finding.code == "MM001") > 0
    assert_diagnostics_match(expected, report.diagnostics, ["MM001"])
