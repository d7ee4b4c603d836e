"""The facts cache: a hit gives the same report, any change of what facts depend
on is a miss, a broken cache never breaks a run, and it can be turned off."""

from __future__ import annotations


import pytest
from cache_support import SOURCE, cache_entries, entry_fields
from cli_support import CliRunner

from mmlint.api import check
from mmlint.check import build_fingerprint
from mmlint.check import cache as cache_module
from mmlint.cli import cli
from mmlint.facts.outcome import Parsed


@pytest.fixture
def project(tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "p.py").write_text(SOURCE)
    return tmp_path / "proj"


def entries(cache_dir):
    return cache_entries(cache_dir)


def codes(report):
    return [(d.path, d.span.line, d.code) for d in report.diagnostics]


def test_second_run_reads_the_cache_and_reports_the_same(cache_dir, project, monkeypatch):
    first = check(cwd=project)
    assert len(entries(cache_dir)) == 1
    parsed = []
    monkeypatch.setattr(
        "mmlint.check.findings.analyse_file", lambda *a: parsed.append(a) or pytest.fail("parsed again")
    )
    second = check(cwd=project)
    assert codes(second) == codes(first) == [("p.py", 2, "MM003"), ("p.py", 3, "MM001")]
    assert not parsed


def test_changed_content_is_a_miss(cache_dir, project):
    check(cwd=project)
    (project / "p.py").write_text(
        SOURCE.replace("return self", "return await self").replace("combine_mm_data(", "combine_mm_data_async(")
    )
    report = check(cwd=project)
    assert codes(report) == []
    assert len(entries(cache_dir)) == 2


def test_collector_code_change_is_a_miss(cache_dir, project, monkeypatch):
    check(cwd=project)
    monkeypatch.setattr(build_fingerprint, "build_fingerprint", lambda: b"another build")
    check(cwd=project)
    assert len(entries(cache_dir)) == 2


def test_corrupt_entry_is_ignored(cache_dir, project):
    expected = codes(check(cwd=project))
    for entry in entries(cache_dir):
        entry.write_bytes(b"not a pickle")
    assert codes(check(cwd=project)) == expected


def test_unwritable_cache_directory_runs_uncached(tmp_path, project, monkeypatch):
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    monkeypatch.setenv("MMLINT_CACHE_DIR", str(blocker / "cache"))
    assert codes(check(cwd=project))


def test_no_cache_flag_and_environment(cache_dir, project, monkeypatch):
    monkeypatch.chdir(project)
    assert CliRunner().invoke(cli, ["check", "--no-cache"]).exit_code == 1
    assert entries(cache_dir) == []
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    assert CliRunner().invoke(cli, ["check"]).exit_code == 1
    assert entries(cache_dir) == []


def test_entries_are_the_outcome_under_its_format_and_key(cache_dir, project):
    check(cwd=project)
    [entry] = entries(cache_dir)
    form, key, outcome = entry_fields(entry)
    assert (form, key) == (cache_module.FORMAT, entry.name)
    assert type(outcome) is Parsed and outcome.facts.path == "p.py"
