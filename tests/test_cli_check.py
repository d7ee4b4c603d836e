"""`mmlint check` from the outside: every option and every exit code, through
click's runner and through a real subprocess of the installed console script."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from cli_support import CliRunner

from mmlint import __version__
from mmlint.cli import cli
from mmlint.reporters import FORMATS

SYNC_CALL = textwrap.dedent(
    """\
    class ClipProcessor(BaseMultimodalProcessor):
        async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
            base_output = await self.load_mm_data_async(input_text, image_data)
            mm_items, input_ids, _ = self.process_and_combine_mm_data(
                base_output,
                self.mm_tokens,
            )
            return mm_items, input_ids
    """
)
CLEAN = SYNC_CALL.replace("self.process_and_combine_mm_data(", "await self.process_and_combine_mm_data_async(")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A tiny package with one MM001 site and one clean file, as the cwd."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "clip.py").write_text(SYNC_CALL, encoding="utf-8")
    (tmp_path / "pkg" / "gemma.py").write_text(CLEAN, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.mmlint]\npaths = ["pkg"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_version():
    result = run("--version")
    assert result.exit_code == 0 and result.output.strip() == f"mmlint {__version__}"


def test_findings_exit_1_with_location_and_summary(project):
    result = run("check", "--no-color")
    assert result.exit_code == 1
    assert result.output.startswith("pkg/clip.py:4:34: MM001 ")
    assert "^" * 10 in result.output  # the span is marked under the source line
    assert "Found 1 diagnostic, 1 fixable with `mmlint fix` (2 files scanned, 2 twin call sites)." in result.output


def test_clean_exit_0(project):
    result = run("check", "pkg/gemma.py")
    assert result.exit_code == 0
    assert "All checks passed (1 file scanned, 1 twin call site)." in result.output


def test_exit_zero(project):
    assert run("check", "--exit-zero").exit_code == 0


def test_quiet_drops_the_summary(project):
    result = run("check", "--quiet", "--no-color")
    assert result.exit_code == 1
    assert "Found" not in result.output and "MM001" in result.output


def test_statistics(project):
    result = run("check", "--statistics", "--no-color")
    assert result.exit_code == 1
    assert "     1  MM001  sync-twin-call [*]" in result.output
    assert "pkg/clip.py:4" not in result.output


def test_select_and_ignore(project):
    assert run("check", "--select", "MM003").exit_code == 0
    assert run("check", "--ignore", "MM00").exit_code == 0
    assert run("check", "--select", "MM001", "--ignore", "MM").exit_code == 1  # the more specific wins


def test_json_format_is_the_spec_report(project):
    result = run("check", "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert set(report) == {"version", "files_scanned", "call_sites", "diagnostics"}
    assert (report["version"], report["files_scanned"], report["call_sites"]) == (1, 2, 2)
    [d] = report["diagnostics"]
    assert d == {
        "path": "pkg/clip.py",
        "line": 4,
        "column": 34,
        "end_line": 7,
        "end_column": 10,
        "code": "MM001",
        "name": "sync-twin-call",
        "message": d["message"],
        "fixable": True,
        "help": "use `await self.process_and_combine_mm_data_async(...)`",
    }
    assert d["message"] == "sync twin bypasses the worker pool"


def test_output_file(project):
    result = run("check", "--format", "json", "--output", "report.json")
    assert result.exit_code == 1 and result.output == ""
    assert json.loads((project / "report.json").read_text())["call_sites"] == 2


def test_output_into_missing_directory_is_exit_2(project):
    result = run("check", "--output", "no/such/dir/report.txt")
    assert result.exit_code == 2
    assert "cannot write no/such/dir/report.txt" in result.output


def test_missing_path_is_exit_2_naming_it(project):
    result = run("check", "nowhere.py")
    assert result.exit_code == 2
    assert "nowhere.py" in result.output and "Traceback" not in result.output


def test_invalid_config_is_exit_2_naming_file_and_key(project):
    (project / "pyproject.toml").write_text('[tool.mmlint]\npaths = ["pkg"]\nmin_call_sites = 3\n')
    result = run("check")
    assert result.exit_code == 2
    assert "pyproject.toml" in result.output and "'min_call_sites'" in result.output
    assert "did you mean 'min-call-sites'" in result.output


def test_unknown_code_in_select_is_exit_2(project):
    result = run("check", "--select", "MM0001")
    assert result.exit_code == 2 and "--select" in result.output


def test_explicit_config(project):
    (project / "strict.toml").write_text('paths = ["pkg"]\nmin-call-sites = 5\n')
    result = run("check", "--config", "strict.toml", "--format", "json")
    codes = [d["code"] for d in json.loads(result.output)["diagnostics"]]
    assert codes == ["MM001", "MM008"]
    mm008 = json.loads(result.output)["diagnostics"][1]
    assert mm008["path"] == "strict.toml" and mm008["line"] == 2
    assert mm008["message"] == "scan found 2 twin call sites, under 5"
    assert mm008["help"].startswith("min-call-sites = 5 is set in strict.toml")


def test_min_call_sites_not_checked_when_paths_are_named(project):
    (project / "pyproject.toml").write_text('[tool.mmlint]\npaths = ["pkg"]\nmin-call-sites = 5\n')
    assert "MM008" in run("check", "--format", "json").output
    assert "MM008" not in run("check", "pkg/clip.py", "--format", "json").output


def test_every_input_excluded_is_said(project):
    (project / "pyproject.toml").write_text('[tool.mmlint]\npaths = ["pkg"]\nexclude = ["**/clip.py"]\n')
    result = CliRunner().invoke(cli, ["check", "pkg/clip.py"])
    assert result.exit_code == 0
    assert "every input is excluded" in result.output


def test_syntax_error_is_mm999_and_other_files_still_checked(project):
    (project / "pkg" / "broken.py").write_text("async def f(:\n    pass\n")
    (project / "pkg" / "unrelated.py").write_text("def g(:\n    pass\n")  # cannot hold a finding: never parsed
    report = json.loads(run("check", "--format", "json").output)
    assert [(d["path"], d["code"]) for d in report["diagnostics"]] == [
        ("pkg/broken.py", "MM999"),
        ("pkg/clip.py", "MM001"),
    ]


def test_mm999_survives_select_and_ignore(project):
    (project / "pkg" / "broken.py").write_text("async def f(:\n    pass\n")
    result = run("check", "--select", "MM003", "--ignore", "MM999", "--format", "json")
    assert [d["code"] for d in json.loads(result.output)["diagnostics"]] == ["MM999"]
    assert result.exit_code == 1


def test_invalid_encoding_is_mm999(project):
    (project / "pkg" / "latin.py").write_bytes(b"async def f():\n    return '\xe9'\n")
    report = json.loads(run("check", "--format", "json").output)
    [bad] = [d for d in report["diagnostics"] if d["path"] == "pkg/latin.py"]
    assert bad["code"] == "MM999" and "utf-8" in bad["message"]


def test_github_format_through_the_cli(project):
    result = run("check", "--format", "github")
    assert result.exit_code == 1
    assert result.output.startswith(
        "::error file=pkg/clip.py,line=4,col=34,endLine=7,endColumn=10,title=MM001 sync-twin-call::"
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_through_the_cli(project, fmt):
    result = run("check", "--format", fmt)
    assert result.exit_code == 1 and "MM001" in result.output


def test_unknown_format_is_a_usage_error(project):
    result = CliRunner().invoke(cli, ["check", "--format", "yaml"])
    assert result.exit_code == 2


@pytest.mark.slow
def test_installed_console_script_in_a_real_subprocess(project):
    executable = shutil.which("mmlint")
    command = [executable] if executable else [sys.executable, "-m", "mmlint"]
    env = {**os.environ, "NO_COLOR": "1"}
    found = subprocess.run(
        [*command, "check", "--format", "json"], cwd=project, capture_output=True, text=True, env=env
    )
    assert found.returncode == 1, found.stderr
    assert json.loads(found.stdout)["diagnostics"][0]["code"] == "MM001"
    clean = subprocess.run([*command, "check", "pkg/gemma.py"], cwd=project, capture_output=True, text=True, env=env)
    assert clean.returncode == 0, clean.stderr
    broken = subprocess.run([*command, "check", "missing"], cwd=project, capture_output=True, text=True, env=env)
    assert broken.returncode == 2
    assert broken.stdout == "" and broken.stderr.startswith("mmlint: error: ") and "Traceback" not in broken.stderr
    assert len(broken.stderr.strip().splitlines()) == 1


def test_internal_error_is_one_line_and_exit_2(project, monkeypatch, capsys):
    from mmlint import cli as cli_module

    def explode(*args, **kwargs):
        raise RuntimeError("collector fell over")

    monkeypatch.setattr("mmlint.check.engine.run_check", explode)
    monkeypatch.setattr(sys, "argv", ["mmlint", "check"])
    monkeypatch.delenv("MMLINT_DEBUG", raising=False)
    with pytest.raises(SystemExit) as stopped:
        cli_module.main()
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "mmlint: internal error: RuntimeError: collector fell over (set MMLINT_DEBUG=1 for the traceback, and please report it)"
    ]
    monkeypatch.setenv("MMLINT_DEBUG", "1")
    with pytest.raises(RuntimeError):
        cli_module.main()


@pytest.mark.parametrize("command", [["check"], ["fix"], ["audit"], ["baseline", "-o", "b.json"]])
def test_every_command_says_when_every_input_is_excluded(project, command):
    (project / "pyproject.toml").write_text('[tool.mmlint]\npaths = ["pkg"]\nexclude = ["**/clip.py"]\n')
    result = CliRunner().invoke(cli, [*command, "pkg/clip.py"])
    assert result.exit_code == 0, result.output
    assert "mmlint: every input is excluded by the configuration (1 file)" in result.output


def test_output_into_a_device_writes_into_it_and_never_replaces_it(project):
    import stat as stat_module

    result = run("check", "--format", "json", "--output", os.devnull)
    assert result.exit_code == 1
    assert stat_module.S_ISCHR(os.stat(os.devnull).st_mode)
    if os.path.exists("/dev/full"):
        result = CliRunner().invoke(cli, ["check", "--output", "/dev/full"])
        assert result.exit_code == 2 and "cannot write /dev/full" in result.output
        assert stat_module.S_ISCHR(os.stat("/dev/full").st_mode)


def test_repeated_select_and_ignore_accumulate(project):
    (project / "pkg" / "fake.py").write_text("async def f(path):\n    for item in path:\n        decode(item)\n")
    result = run("check", "--format", "json", "--select", "MM001", "--select", "MM003")
    assert sorted(d["code"] for d in json.loads(result.output)["diagnostics"]) == ["MM001", "MM003"]
    result = run("check", "--format", "json", "--ignore", "MM001", "--ignore", "MM003")
    assert json.loads(result.output)["diagnostics"] == []


def test_a_symlink_to_a_scanned_file_is_checked_once(project):
    (project / "pkg" / "compat.py").symlink_to(project / "pkg" / "clip.py")
    report = json.loads(run("check", "--format", "json").output)
    assert [d["path"] for d in report["diagnostics"]] == ["pkg/clip.py"]
    assert report["call_sites"] == 2


def test_a_file_name_that_is_not_utf8_is_escaped_in_every_report(project):
    os.remove(project / "pkg" / "gemma.py")
    with open(os.path.join(os.fsencode(project / "pkg"), b"bad\xff.py"), "wb") as handle:
        handle.write(b"async def f(path):\n    for item in path:\n        decode(item)\n")
    report = json.loads(run("check", "--format", "json").output)
    assert "pkg/bad\\xff.py" in [d["path"] for d in report["diagnostics"]]
    for fmt in FORMATS:
        assert run("check", "--format", fmt).exit_code == 1
    assert CliRunner().invoke(cli, ["baseline", "-o", "b.json"]).exit_code == 0
    assert run("check", "--baseline", "b.json").exit_code == 0


def test_paths_are_relative_to_a_symlinked_working_directory(project, tmp_path_factory, monkeypatch):
    link = tmp_path_factory.mktemp("links") / "checkout"
    link.symlink_to(project)
    monkeypatch.chdir(link)
    monkeypatch.setenv("PWD", str(link))
    report = json.loads(run("check", "--format", "json", str(link / "pkg" / "clip.py")).output)
    assert [d["path"] for d in report["diagnostics"]] == ["pkg/clip.py"]


@pytest.mark.parametrize(
    ("config", "options", "reported"),
    [
        ('select = ["MM001"]', ["--ignore", "MM"], False),  # the command line's ignore wins over the config
        ('ignore = ["MM001"]', ["--select", "MM001"], True),  # ... and its select over the config's ignore
        ("", ["--select", "MM001", "--ignore", "MM"], True),  # within the command line, the more specific
        ("", ["--select", "MM", "--ignore", "MM001"], False),
        ('select = ["MM001"]\nignore = ["MM"]', [], True),  # within the configuration, the more specific
    ],
)
def test_command_line_is_a_layer_over_the_configuration(project, config, options, reported):
    (project / "pyproject.toml").write_text(f'[tool.mmlint]\npaths = ["pkg"]\n{config}\n')
    codes = [d["code"] for d in json.loads(run("check", "--format", "json", *options).output)["diagnostics"]]
    assert ("MM001" in codes) == reported
