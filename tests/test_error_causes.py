"""Failures that are not mmlint's bugs name their cause and the file, in one
line, with exit 2 when the run could not do its job (or an MM999 when only one
file is affected); "internal error ... please report it" is for bugs only."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest
from cli_support import CliRunner

from mmlint.cli import cli

PROCESSOR = "class P:\n    async def f(self):\n        return await self.process_and_combine_mm_data_async(1)\n"


def _run(tmp_path, monkeypatch, *args):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    return CliRunner().invoke(cli, list(args))


def _one_line_error(result, *expected: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mmlint: error: "), result.stderr
    assert "internal error" not in lines[0] and "report it" not in lines[0]
    for part in expected:
        assert part in lines[0]


def test_a_deeply_nested_configuration_names_the_file(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.mmlint]\nexclude = " + "[" * 5000 + "]" * 5000 + "\n")
    (tmp_path / "a.py").write_text(PROCESSOR)
    _one_line_error(_run(tmp_path, monkeypatch, "check", "--no-cache"), "pyproject.toml", "nested too deeply")


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["check", "--format", "json"], ["check"], ["fix", "--diff"], ["explain", "MM001"]])
def test_standard_output_on_a_full_disk_is_said_so(tmp_path, args):
    (tmp_path / "a.py").write_text(PROCESSOR.replace("await ", "").replace("_async", ""))
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "mmlint", *args],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    lines = result.stderr.splitlines()
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and "cannot write" in lines[0] and "standard output" in lines[0], result.stderr
    assert "No space left on device" in lines[0] and "internal error" not in lines[0]


@pytest.fixture
def unreadable(monkeypatch):
    """Make a directory unreadable (to root too, by refusing its listing and
    every lookup inside it, as the kernel does for mode 000)."""

    def lock(directory: pathlib.Path) -> None:
        if os.geteuid() != 0:
            directory.chmod(0)  # the test restores it
            return
        locked = str(directory.resolve())

        def denying(real, also_itself):
            def call(path=".", *args, **kwargs):
                text = os.path.abspath(os.fsdecode(os.fspath(path))) if not isinstance(path, int) else ""
                if text.startswith(locked + os.sep) or (also_itself and text == locked):
                    raise PermissionError(13, "Permission denied", os.fspath(path))
                return real(path, *args, **kwargs)

            return call

        for name, itself in (("stat", False), ("lstat", False), ("scandir", True), ("listdir", True)):
            monkeypatch.setattr(os, name, denying(getattr(os, name), itself))
        accessor = getattr(pathlib, "_NormalAccessor", None)  # Python 3.10's pathlib bound os.stat early
        if accessor is not None:
            monkeypatch.setattr(accessor, "stat", staticmethod(os.stat), raising=False)
            monkeypatch.setattr(accessor, "lstat", staticmethod(os.lstat), raising=False)

    return lock


def test_an_unreadable_directory_named_on_the_command_line(tmp_path, monkeypatch, unreadable):
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "a.py").write_text(PROCESSOR)
    unreadable(locked)
    try:
        _one_line_error(_run(tmp_path, monkeypatch, "check", "--no-cache", "locked"), "locked", "cannot read")
    finally:
        os.chmod(locked, 0o755)


def test_running_out_of_memory_in_the_run_says_what_to_do(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text(PROCESSOR)

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr("mmlint.check.findings.find", exhausted)
    _one_line_error(_run(tmp_path, monkeypatch, "check", "--no-cache"), "out of memory", "fewer files")


def test_running_out_of_memory_on_one_file_costs_only_that_file(tmp_path, monkeypatch):
    (tmp_path / "huge.py").write_text(PROCESSOR)
    (tmp_path / "small.py").write_text(PROCESSOR.replace("await ", "").replace("_async", ""))
    import mmlint.facts.collect as collect

    real = collect.collect_facts

    def exhausted(module, real_path, *args, **kwargs):
        if real_path.name == "huge.py":
            raise MemoryError
        return real(module, real_path, *args, **kwargs)

    monkeypatch.setattr(collect, "collect_facts", exhausted)
    result = _run(tmp_path, monkeypatch, "check", "--no-cache")
    assert result.exit_code == 1, result.output
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("huge.py:1:1: MM999")]
    assert "memory" in line and "max-file-memory" in line  # the cause, and the setting that raises it
    assert "report it" not in result.stdout
    assert "small.py:3:16: MM001" in result.stdout
