"""`mmlint fix` through click's CliRunner: --diff, --check, writing, exit codes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_support import CliRunner
from fix_helpers import FIXTURES

from mmlint.cli import cli


@pytest.fixture()
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for case in ("tuple_unpacking", "genexp_left_alone", "result_subscript"):
        shutil.copyfile(FIXTURES / f"{case}.py", tmp_path / f"{case}.py")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _invoke(*args: str):
    return CliRunner().invoke(cli, ["fix", *args], catch_exceptions=False)


def test_diff_prints_patch_writes_nothing_exits_1(workdir: Path) -> None:
    before = (workdir / "tuple_unpacking.py").read_bytes()
    result = _invoke("--diff", "tuple_unpacking.py")
    assert result.exit_code == 1
    expected = (FIXTURES / "tuple_unpacking.py.diff").read_text(encoding="utf-8")
    assert expected in result.stdout
    assert result.stdout.startswith("--- a/tuple_unpacking.py\n+++ b/tuple_unpacking.py\n")
    assert (workdir / "tuple_unpacking.py").read_bytes() == before


def test_check_lists_files_writes_nothing_exits_1(workdir: Path) -> None:
    before = {p.name: p.read_bytes() for p in workdir.iterdir()}
    result = _invoke("--check", "tuple_unpacking.py", "result_subscript.py")
    assert result.exit_code == 1
    assert "Would fix: result_subscript.py (1 site)" in result.output
    assert "Would fix: tuple_unpacking.py (1 site)" in result.output
    assert {p.name: p.read_bytes() for p in workdir.iterdir()} == before


def test_fix_all_fixed_exits_0(workdir: Path) -> None:
    result = _invoke("--no-color", "tuple_unpacking.py", "result_subscript.py")
    assert result.exit_code == 0, result.output
    assert "Fixed 2 sites in 2 files." in result.output
    for case in ("tuple_unpacking", "result_subscript"):
        assert (workdir / f"{case}.py").read_bytes() == (FIXTURES / f"{case}.fixed.py").read_bytes()
    again = _invoke("--check", "tuple_unpacking.py", "result_subscript.py")
    assert again.exit_code == 0 and "Nothing to fix." in again.output


def test_unfixable_sites_remain_exits_1(workdir: Path) -> None:
    result = _invoke("genexp_left_alone.py")
    assert result.exit_code == 1
    assert "genexp_left_alone.py:7:19:" in result.output
    assert "MM001 inside a generator expression" in result.output
    assert _invoke("--exit-zero", "genexp_left_alone.py").exit_code == 0


def test_quiet_prints_nothing_on_success(workdir: Path) -> None:
    result = _invoke("--quiet", "result_subscript.py")
    assert result.exit_code == 0 and result.output == ""


def test_select_without_mm001_fixes_nothing(workdir: Path) -> None:
    before = (workdir / "tuple_unpacking.py").read_bytes()
    result = _invoke("--select", "MM003", "tuple_unpacking.py")
    assert result.exit_code == 0
    assert (workdir / "tuple_unpacking.py").read_bytes() == before


def test_syntax_error_file_exits_1_untouched(workdir: Path) -> None:
    broken = b"async def f(self):\n    return self.process_and_combine_mm_data(\n"
    (workdir / "broken.py").write_bytes(broken)
    result = _invoke("broken.py", "result_subscript.py")
    assert result.exit_code == 1
    assert "broken.py: error:" in result.output
    assert (workdir / "broken.py").read_bytes() == broken
    assert (workdir / "result_subscript.py").read_bytes() == (FIXTURES / "result_subscript.fixed.py").read_bytes()


@pytest.mark.parametrize("args", [("missing.py",), ("--select", "XX1", "."), ("--config", "nope.toml", ".")])
def test_usage_errors_exit_2_write_nothing(workdir: Path, args: tuple[str, ...]) -> None:
    before = {p.name: p.read_bytes() for p in workdir.iterdir()}
    result = _invoke(*args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert {p.name: p.read_bytes() for p in workdir.iterdir()} == before


def test_suppressed_sites_are_left_alone_and_counted(workdir: Path) -> None:
    source = (workdir / "tuple_unpacking.py").read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if "process_and_combine_mm_data(" in line)
    lines[index] = lines[index].rstrip("\n") + "  # mmlint: ignore[MM001]\n"
    (workdir / "tuple_unpacking.py").write_text("".join(lines), encoding="utf-8")
    before = (workdir / "tuple_unpacking.py").read_bytes()
    result = _invoke("--no-color", "tuple_unpacking.py")
    assert result.exit_code == 0, result.output
    assert "Nothing to fix." in result.output
    assert "Left alone because of a `# mmlint: ignore` comment: 1 site." in result.output
    assert (workdir / "tuple_unpacking.py").read_bytes() == before


def test_fix_goes_on_until_nothing_changes(workdir: Path) -> None:
    # Fixing the call makes the MM003 suppression unused (MM009): one `fix` removes both.
    (workdir / "entry.py").write_text(
        "class P:\n"
        "    async def go(self, x):  # mmlint: ignore[MM003]\n"
        "        return self.process_and_combine_mm_data(x)\n",
        encoding="utf-8",
    )
    result = _invoke("--no-color", "entry.py")
    assert result.exit_code == 0, result.output
    assert "Fixed 2 sites in 1 file." in result.output
    assert (workdir / "entry.py").read_text(encoding="utf-8") == (
        "class P:\n    async def go(self, x):\n        return await self.process_and_combine_mm_data_async(x)\n"
    )
    again = _invoke("--no-color", "entry.py")
    assert again.exit_code == 0 and "Nothing to fix." in again.output


# --- exit codes for pre-commit and CI (as ruff's) -------------------------------------


@pytest.mark.parametrize("mode", ["--check", "--diff"])
def test_a_dry_run_exits_1_only_when_a_file_would_change(workdir: Path, mode: str) -> None:
    only_unfixable = _invoke(mode, "genexp_left_alone.py")
    assert only_unfixable.exit_code == 0, only_unfixable.output
    assert _invoke(mode, "genexp_left_alone.py", "tuple_unpacking.py").exit_code == 1


def test_exit_zero_leaves_unfixable_sites_to_check(workdir: Path) -> None:
    result = _invoke("--exit-zero", "genexp_left_alone.py")
    assert result.exit_code == 0 and "Not fixed, left as written" in result.output


def test_exit_non_zero_on_fix_exits_1_only_when_a_file_changed(workdir: Path) -> None:
    assert _invoke("--exit-zero", "--exit-non-zero-on-fix", "tuple_unpacking.py").exit_code == 1
    assert (workdir / "tuple_unpacking.py").read_bytes() == (FIXTURES / "tuple_unpacking.fixed.py").read_bytes()
    assert _invoke("--exit-zero", "--exit-non-zero-on-fix", "tuple_unpacking.py").exit_code == 0


def test_a_file_the_fixer_refused_fails_even_with_exit_zero(workdir: Path, monkeypatch) -> None:
    import mmlint.fix.pipeline as pipeline
    from mmlint.fix.verify import VerificationFailed

    def refuse(*args, **kwargs):
        raise VerificationFailed("the rewrite changed a byte outside its edit")

    monkeypatch.setattr(pipeline, "verify_call_rewrite", refuse)
    before = (workdir / "tuple_unpacking.py").read_bytes()
    result = _invoke("--exit-zero", "tuple_unpacking.py")
    assert result.exit_code == 1, result.output
    assert "changed a byte outside its edit" in result.output
    assert (workdir / "tuple_unpacking.py").read_bytes() == before


def test_baseline_leaves_recorded_sites_alone(workdir: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["baseline", "tuple_unpacking.py", "-o", "base.json"]).exit_code == 0
    before = (workdir / "tuple_unpacking.py").read_bytes()
    result = _invoke("--baseline", "base.json", "tuple_unpacking.py", "result_subscript.py")
    assert result.exit_code == 0, result.output
    assert (workdir / "tuple_unpacking.py").read_bytes() == before
    assert (workdir / "result_subscript.py").read_bytes() == (FIXTURES / "result_subscript.fixed.py").read_bytes()
    assert _invoke("--baseline", "missing.json", "tuple_unpacking.py").exit_code == 2
