"""The worker pool changes how fast, never what: a pool and a single process
give the same report, in the same order."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mmlint.api import check
from mmlint.workers import MIN_FILES_FOR_POOL, worker_count

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "processors"


def summary(report):
    return (report.files_scanned, report.call_sites, [(d.path, d.span, d.code, d.message) for d in report.diagnostics])


def test_pool_and_single_process_agree(tmp_path, monkeypatch):
    project = tmp_path / "processors"
    shutil.copytree(FIXTURE, project)
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    monkeypatch.setenv("MMLINT_JOBS", "1")
    alone = check(cwd=project)
    monkeypatch.setenv("MMLINT_JOBS", "2")
    pooled = check(cwd=project)
    assert summary(pooled) == summary(alone)
    assert alone.diagnostics  # the fixture has findings: the comparison is not vacuous


@pytest.mark.parametrize(
    ("files", "jobs", "expected"),
    [
        (MIN_FILES_FOR_POOL - 1, None, 1),  # pre-commit's few files stay in-process
        (5, "3", 3),
        (2, "8", 2),  # never more workers than files
        (40, "0", None),  # not a positive number: automatic
    ],
)
def test_worker_count(files, jobs, expected, monkeypatch):
    if jobs is None:
        monkeypatch.delenv("MMLINT_JOBS", raising=False)
    else:
        monkeypatch.setenv("MMLINT_JOBS", jobs)
    count = worker_count(files)
    if expected is None:
        assert 1 <= count <= files
    else:
        assert count == expected
