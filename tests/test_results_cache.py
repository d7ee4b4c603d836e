"""The results cache: `check` run again over an unchanged tree reports exactly
what a fresh run reports without analysing anything, and any change to what
its findings depend on (a file's bytes, a file added, a configuration's values
or text, mmlint's code) is a miss."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cache_support import SOURCE
from cli_support import CliRunner

from mmlint.check import cache as cache_module
from mmlint.check import results as results_module
from mmlint.cli import cli
from mmlint.reporters import FORMATS

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "p.py").write_text(SOURCE, encoding="utf-8")
    (root / "mmlint.toml").write_text("min-call-sites = 1\n", encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["check", "--no-color", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout


def fresh(*args: str) -> tuple[int, str]:
    return run("--no-cache", *args)


def results_entries(cache_dir: Path) -> list[Path]:
    return sorted(p for p in (cache_dir / cache_module.RESULTS_FORMAT).rglob("*") if p.is_file())


@pytest.fixture
def no_analysis(monkeypatch):
    """Makes any analysis fail the test: from here on, runs must be answered by the results cache."""

    def analysed(*args, **kwargs):
        pytest.fail("the run was analysed again")

    def arm() -> None:
        monkeypatch.setattr("mmlint.check.findings.find", analysed)

    return arm


@pytest.mark.parametrize("output_format", FORMATS)
def test_an_unchanged_tree_is_answered_without_analysis(cache_dir, project, no_analysis, output_format):
    first = run("--format", output_format)
    assert first[0] == 1 and len(results_entries(cache_dir)) == 1
    no_analysis()
    assert run("--format", output_format) == first


@pytest.mark.slow
def test_a_hit_reports_what_a_fresh_run_reports_on_every_fixture(cache_dir, tmp_path, monkeypatch):
    tree = tmp_path / "fixtures"
    shutil.copytree(REPO / "fixtures", tree)
    monkeypatch.chdir(tree)
    expected = fresh("--format", "json")
    assert run("--format", "json") == expected  # stores
    assert len(results_entries(cache_dir)) == 1
    assert run("--format", "json") == expected  # answered
    assert json.loads(expected[1])["diagnostics"]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(
            lambda root: (root / "p.py").write_text(SOURCE.replace("return self", "return await self")), id="bytes"
        ),
        pytest.param(lambda root: (root / "q.py").write_text(SOURCE), id="new-file"),
        pytest.param(lambda root: (root / "p.py").unlink(), id="removed-file"),
        pytest.param(lambda root: (root / "mmlint.toml").write_text("min-call-sites = 3\n"), id="config-values"),
        # Only the text moves: MM008 reports the key's line, which changes.
        pytest.param(
            lambda root: (root / "mmlint.toml").write_text("# note\n\nmin-call-sites = 1\n"), id="config-text"
        ),
        pytest.param(lambda root: (root / "sub").mkdir() or (root / "sub" / "p.py").write_text(SOURCE), id="subdir"),
    ],
)
def test_any_change_is_a_miss_that_reports_the_change(cache_dir, project, change):
    run()
    change(project)
    assert run() == fresh()
    assert len(results_entries(cache_dir)) == 2


def test_options_are_part_of_the_key(cache_dir, project, no_analysis):
    everything, only_mm003 = run(), run("--select", "MM003")
    assert everything != only_mm003 and len(results_entries(cache_dir)) == 2
    no_analysis()
    assert (run(), run("--select", "MM003")) == (everything, only_mm003)


def test_a_change_to_mmlint_is_a_miss(cache_dir, project, monkeypatch):
    run()
    monkeypatch.setattr(results_module, "_code_fingerprint", lambda: b"another mmlint")
    run()
    assert len(results_entries(cache_dir)) == 2


def test_the_settings_key_is_canonical():
    from mmlint.config.settings import Settings

    one = Settings(root=Path("/r"), exempt_classes=frozenset({"A", "B", "C"}))
    other = Settings(root=Path("/r"), exempt_classes=frozenset({"C", "B", "A"}))
    assert results_module._settings_text(one) == results_module._settings_text(other)
    assert results_module._settings_text(one) != results_module._settings_text(Settings(root=Path("/s")))


def test_a_corrupt_entry_is_a_miss(cache_dir, project):
    expected = run()
    for entry in results_entries(cache_dir):
        entry.write_bytes(b'["results-v1", "not the key", []]')
    assert run() == expected


def test_other_commands_still_see_the_project(cache_dir, project):
    run()
    audit = CliRunner().invoke(cli, ["audit", "--format", "json"])
    assert audit.exit_code == 0, audit.output
    fix = CliRunner().invoke(cli, ["fix", "--diff"])
    assert "process_and_combine_mm_data_async" in fix.stdout


def test_only_a_findings_only_hit_comes_without_a_project(cache_dir, project, no_analysis):
    """The report's type says whether a project stands behind it: a run answered
    by the results cache returns a plain Report, every other an AnalysedReport."""
    from mmlint.check.engine import AnalysedReport, Report, run_check
    from mmlint.config.settings import Settings

    settings = Settings(min_call_sites=1)
    first = run_check(None, settings, project, findings_only=True)
    assert isinstance(first, AnalysedReport) and "p.py" in first.project.files  # a miss: analysed
    no_analysis()
    hit = run_check(None, settings, project, findings_only=True)
    assert type(hit) is Report and not hasattr(hit, "project")
    assert hit.diagnostics == first.diagnostics


def test_standard_input_is_never_cached(cache_dir, project):
    result = CliRunner().invoke(cli, ["check", "-", "--stdin-filename", "p.py"], input=SOURCE)
    assert result.exit_code == 1 and results_entries(cache_dir) == []


def test_a_run_with_an_unreadable_file_is_not_kept(cache_dir, project, monkeypatch):
    from mmlint.check import reading

    real_read = reading._read_within

    def read_within(path: Path, budgets) -> bytes:
        if path.name == "p.py":
            raise PermissionError(13, "Permission denied")
        return real_read(path, budgets)

    monkeypatch.setattr(reading, "_read_within", read_within)
    run()
    assert results_entries(cache_dir) == []


def test_a_file_changed_between_hashing_and_analysis_is_not_kept(cache_dir, project, monkeypatch):
    """The key is taken from a first read; the analysis reads again. A file
    rewritten in between must not leave its new findings under its old bytes' key."""
    from mmlint.check import engine

    real_read = engine.read_files

    def read_after_an_edit(*args, **options):
        (project / "p.py").write_text("x = 1\n", encoding="utf-8")
        return real_read(*args, **options)

    monkeypatch.setattr(engine, "read_files", read_after_an_edit)
    assert "MM001" not in run()[1]  # what was analysed: the new bytes
    assert results_entries(cache_dir) == []
    monkeypatch.setattr(engine, "read_files", real_read)
    (project / "p.py").write_text(SOURCE, encoding="utf-8")
    assert "MM001" in run()[1]  # the old bytes again: analysed, not a stale hit


def test_a_hit_does_not_run_the_prefilter(cache_dir, project, monkeypatch):
    expected = run()
    monkeypatch.setattr("mmlint.check.reading.Prefilter", None)  # any use fails
    assert run() == expected


def test_a_run_whose_worker_crashed_is_not_kept(cache_dir, project, monkeypatch):
    from mmlint.check import findings
    from mmlint.check.workers import WorkerDeath

    def every_worker_dies(function, tasks, on_done, crashed, **options):
        return ((index, crashed(task, WorkerDeath(-9))) for index, task in enumerate(tasks))

    monkeypatch.setattr(findings, "run_all", every_worker_dies)
    _, output = run()
    assert "MM999" in output and results_entries(cache_dir) == []


def test_clean_removes_results_too(cache_dir, project):
    run()
    assert results_entries(cache_dir)
    result = CliRunner().invoke(cli, ["clean"])
    assert result.exit_code == 0 and results_entries(cache_dir) == []


def test_a_baseline_applies_to_a_hit_as_to_a_fresh_run(cache_dir, project, no_analysis):
    recorded = CliRunner().invoke(cli, ["baseline", "-o", "baseline.json"])
    assert recorded.exit_code == 0, recorded.output
    (project / "q.py").write_text(SOURCE, encoding="utf-8")  # new findings, not in the baseline
    first = run("--baseline", "baseline.json")
    assert first[0] == 1 and "q.py" in first[1] and "p.py:" not in first[1]
    no_analysis()
    assert run("--baseline", "baseline.json") == first


def test_the_key_holds_the_configuration_text_that_was_read(tmp_path):
    """A configuration edited while a run is under way must not key that run's
    findings (made with the old settings) by the new text."""
    from mmlint.config.load import load_settings

    config = tmp_path / "mmlint.toml"
    config.write_text("min-call-sites = 1\n", encoding="utf-8")
    read = load_settings(tmp_path)
    before = results_module._settings_text(read)
    config.write_text("# edited meanwhile\nmin-call-sites = 1\n", encoding="utf-8")
    assert results_module._settings_text(read) == before
    assert results_module._settings_text(load_settings(tmp_path)) != before


def test_a_cache_made_before_results_existed_still_serves_facts(cache_dir, project, monkeypatch):
    run()  # makes both directories
    shutil.rmtree(cache_dir / cache_module.RESULTS_FORMAT)
    real_mkdir = Path.mkdir

    def mkdir(path: Path, *args, **kwargs):
        if path.name == cache_module.RESULTS_FORMAT:
            raise PermissionError(13, "Permission denied")  # a read-only cache root
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    opening = cache_module.open_cache()
    assert opening.cache is not None and opening.results is None and opening.warning is None
    assert run() == fresh()
