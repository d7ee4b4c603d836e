"""No-crash property for the whole check: any module Python accepts goes
through parse, facts, the cross-file analysis and every rule, and comes out as
diagnostics (never an exception); one that libcst rejects comes out as MM999."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from python_sources import python_modules

from mmlint.api import check
from mmlint.rules import all_codes

# A comment naming the twin gets every generated module past the prefilter.
HEADER = "# process_and_combine_mm_data\n"


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(python_modules())
def test_any_module_is_checked_without_crashing(source: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "fuzz.py"
        path.write_text(HEADER + source, encoding="utf-8")
        report = check(cwd=directory)
    assert report.files_scanned == 1
    known = set(all_codes())
    assert all(d.code in known for d in report.diagnostics)
    assert all(d.span.line >= 1 and d.span.column >= 1 for d in report.diagnostics)
