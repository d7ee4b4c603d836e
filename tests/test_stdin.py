"""`mmlint check -` / `mmlint fix -` for editors: the source on standard
input, configured, exempted and given context as the --stdin-filename path
(which need not exist); `fix -` prints the fixed source and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import CliRunner
from test_config_per_file import BASE_PROCESSOR, PROCESSOR, sglang_layout, write

from mmlint.cli import cli

UNSAVED = b"class P:\n    async def f(self, a):\n        return self.process_and_combine_mm_data(a)\n"
FIXED = b"class P:\n    async def f(self, a):\n        return await self.process_and_combine_mm_data_async(a)\n"


def run(cwd: Path, monkeypatch: pytest.MonkeyPatch, *args: str, stdin: bytes):
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("PWD", str(cwd))
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    return CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)


def diagnostics(result) -> list[tuple[str, str]]:
    return sorted((d["path"], d["code"]) for d in json.loads(result.stdout)["diagnostics"])


def test_check_reads_standard_input_and_names_it_dash(tmp_path, monkeypatch):
    result = run(tmp_path, monkeypatch, "check", "-", "--format", "json", stdin=UNSAVED)
    assert result.exit_code == 1
    assert diagnostics(result) == [("-", "MM001"), ("-", "MM003")]


def test_check_names_the_stdin_filename_and_shows_the_input_not_the_file_on_disk(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "p.py").write_bytes(b"# the saved version\n")
    result = run(tmp_path, monkeypatch, "check", "-", "--stdin-filename", "pkg/p.py", "--no-color", stdin=UNSAVED)
    assert result.exit_code == 1
    assert "pkg/p.py:3:16: MM001" in result.stdout
    assert "return self.process_and_combine_mm_data(a)" in result.stdout  # the snippet is the buffer's
    assert "saved version" not in result.stdout


def test_a_clean_buffer_exits_zero(tmp_path, monkeypatch):
    result = run(tmp_path, monkeypatch, "check", "-", "--stdin-filename", "new.py", stdin=FIXED)
    assert result.exit_code == 0, result.output
    assert "All checks passed" in result.stdout


def test_the_stdin_filename_decides_configuration_exemptions_and_context(tmp_path, monkeypatch):
    repo = sglang_layout(tmp_path / "repo")
    # The context (pkg/helpers.py) makes the await hollow: MM004, as for the file on disk.
    named = run(
        repo,
        monkeypatch,
        "check",
        "-",
        "--format",
        "json",
        "--stdin-filename",
        "python/pkg/processors/unsaved.py",
        stdin=PROCESSOR.encode(),
    )
    assert diagnostics(named) == [("python/pkg/processors/unsaved.py", "MM004")]
    # The exemption of python/pyproject.toml covers a base_processor.py, even one not saved yet.
    exempt = run(
        repo,
        monkeypatch,
        "check",
        "-",
        "--format",
        "json",
        "--stdin-filename",
        "python/pkg/other/base_processor.py",
        stdin=BASE_PROCESSOR.encode(),
    )
    assert exempt.exit_code == 0 and diagnostics(exempt) == []
    # Outside python/ no configuration applies: no context, no exemption.
    elsewhere = run(
        repo,
        monkeypatch,
        "check",
        "-",
        "--format",
        "json",
        "--stdin-filename",
        "scripts/base_processor.py",
        stdin=BASE_PROCESSOR.encode(),
    )
    assert diagnostics(elsewhere) == [("scripts/base_processor.py", "MM001"), ("scripts/base_processor.py", "MM003")]


def test_an_excluded_stdin_filename_is_not_checked(tmp_path, monkeypatch):
    write(tmp_path, {"mmlint.toml": 'exclude = ["gen/**"]\n'})
    result = run(tmp_path, monkeypatch, "check", "-", "--stdin-filename", "gen/x.py", stdin=UNSAVED)
    assert result.exit_code == 0
    assert "excluded" in result.stderr


def test_fix_writes_the_fixed_source_to_stdout_and_the_summary_to_stderr(tmp_path, monkeypatch):
    (tmp_path / "p.py").write_bytes(b"# on disk\n")
    result = run(tmp_path, monkeypatch, "fix", "-", "--stdin-filename", "p.py", stdin=UNSAVED)
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes == FIXED
    assert "Fixed 1 site in 1 file." in result.stderr
    assert (tmp_path / "p.py").read_bytes() == b"# on disk\n"  # nothing written to disk


def test_fix_of_a_clean_or_unparsable_buffer_echoes_it(tmp_path, monkeypatch):
    clean = run(tmp_path, monkeypatch, "fix", "-", stdin=FIXED)
    assert clean.exit_code == 0 and clean.stdout_bytes == FIXED
    broken = b"async def f(:\n    return self.process_and_combine_mm_data(a)\n"
    failed = run(tmp_path, monkeypatch, "fix", "-", stdin=broken)
    assert failed.exit_code == 1
    assert failed.stdout_bytes == broken


def test_fix_diff_of_stdin_prints_the_patch_only(tmp_path, monkeypatch):
    result = run(tmp_path, monkeypatch, "fix", "-", "--diff", "--stdin-filename", "p.py", stdin=UNSAVED)
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/p.py\n+++ b/p.py\n")
    assert "+        return await self.process_and_combine_mm_data_async(a)" in result.stdout


def test_stdin_filename_without_dash_and_dash_with_other_paths_are_usage_errors(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    alone = run(tmp_path, monkeypatch, "check", "a.py", "--stdin-filename", "a.py", stdin=b"")
    assert alone.exit_code == 2 and "--stdin-filename needs PATH `-`" in alone.stderr
    mixed = run(tmp_path, monkeypatch, "check", "-", "a.py", stdin=b"")
    assert mixed.exit_code == 2 and "cannot be combined" in mixed.stderr
