"""`--output FILE` (check, audit) and `baseline -o FILE` write the way `fix`
writes sources (mmlint.core.write.write_report): a symbolic link at the name —
one a repository committed, leading out of the tree, or dangling — is refused
with exit 2 and its target left untouched; a FIFO is written into only while
a process reads it (never a hang); a regular file is replaced through a
temporary file in the same directory and a rename, keeping its mode. The
links the system provides (/dev/stdout) still work."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cache_support import SOURCE
from cli_support import CliRunner

from mmlint.cli import cli

pytestmark = pytest.mark.skipif(os.name != "posix", reason="links, FIFOs and directory descriptors are POSIX")

TIMEOUT = 60
# Every command that writes a report to a file the user names, with that option.
WRITERS = {
    "check": ["check", "--format", "json", "--output"],
    "check-sarif": ["check", "--format", "sarif", "--output"],
    "audit": ["audit", "--format", "json", "--output"],
    "baseline": ["baseline", "-o"],
}
# `check` in the fast loop; the other writers (a real process each, about a second) marked slow.
WRITER_MATRIX = [name if name == "check" else pytest.param(name, marks=pytest.mark.slow) for name in WRITERS]
LINK_REFUSED = (
    "it is a symbolic link; mmlint does not write a report through one (remove it, or name the file it leads to)"
)


def _mmlint(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "MMLINT_NO_CACHE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mmlint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=environment,
    )


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "p.py").write_text(SOURCE)
    monkeypatch.chdir(root)
    monkeypatch.setenv("PWD", str(root))
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    return root


def _leftovers(directory: Path) -> list[str]:
    return [name for name in os.listdir(directory) if name.endswith(".mmlint-tmp")]


@pytest.mark.parametrize("writer", WRITER_MATRIX)
def test_a_committed_link_leading_out_of_the_tree_is_refused(tmp_path: Path, project: Path, writer: str) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    (project / "report.out").symlink_to(outside)
    for run in (
        lambda: CliRunner().invoke(cli, [*WRITERS[writer], "report.out"]),
        lambda: _mmlint(project, *WRITERS[writer], "report.out"),
    ):
        ran = run()
        assert getattr(ran, "exit_code", getattr(ran, "returncode", None)) == 2
        assert ran.stderr == f"mmlint: error: cannot write report.out: {LINK_REFUSED}\n"
        assert outside.read_text() == "keep me\n"
        assert os.readlink(project / "report.out") == str(outside)
        assert _leftovers(project) == []


@pytest.mark.parametrize("writer", WRITER_MATRIX)
def test_a_dangling_link_is_refused_and_nothing_is_created(tmp_path: Path, project: Path, writer: str) -> None:
    target = tmp_path / "elsewhere" / "made.txt"
    target.parent.mkdir()
    (project / "report.out").symlink_to(target)
    ran = _mmlint(project, *WRITERS[writer], "report.out")
    assert ran.returncode == 2
    assert ran.stderr == f"mmlint: error: cannot write report.out: {LINK_REFUSED}\n"
    assert not target.exists() and os.listdir(target.parent) == []


@pytest.mark.parametrize("writer", WRITER_MATRIX)
def test_a_missing_parent_directory_is_exit_2(project: Path, writer: str) -> None:
    ran = _mmlint(project, *WRITERS[writer], "no/such/report.out")
    assert ran.returncode == 2
    assert ran.stderr == "mmlint: error: cannot write no/such/report.out: No such file or directory\n"
    assert not (project / "no").exists()


@pytest.mark.parametrize("writer", WRITER_MATRIX)
def test_a_fifo_no_process_reads_is_refused_without_waiting(project: Path, writer: str) -> None:
    os.mkfifo(project / "pipe")
    ran = _mmlint(project, *WRITERS[writer], "pipe")
    assert ran.returncode == 2
    assert ran.stderr == "mmlint: error: cannot write pipe: it is a FIFO that no process is reading\n"
    assert stat.S_ISFIFO(os.lstat(project / "pipe").st_mode)


def test_a_fifo_a_process_reads_gets_the_report(project: Path) -> None:
    os.mkfifo(project / "pipe")
    received: list[bytes] = []

    def read() -> None:
        with open(project / "pipe", "rb") as pipe:
            received.append(pipe.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    ran = None
    for _ in range(50):  # until the reader has the FIFO open
        ran = _mmlint(project, "check", "--format", "json", "--output", "pipe")
        if ran.returncode != 2:
            break
    reader.join(TIMEOUT)
    assert ran is not None and ran.returncode == 1, ran.stderr if ran else ""
    assert json.loads(received[0])["call_sites"] == 1
    assert stat.S_ISFIFO(os.lstat(project / "pipe").st_mode)


def test_a_system_link_such_as_dev_stdout_is_written_into(project: Path) -> None:
    if not os.path.islink("/dev/stdout"):
        pytest.skip("/dev/stdout is no link here")
    ran = _mmlint(project, "check", "--format", "json", "--output", "/dev/stdout")
    assert ran.returncode == 1, ran.stderr
    assert json.loads(ran.stdout)["call_sites"] == 1


@pytest.mark.parametrize("writer", WRITER_MATRIX)
def test_a_regular_file_is_replaced_by_a_rename_keeping_its_mode(project: Path, writer: str) -> None:
    report = project / "report.out"
    report.write_text("old\n")
    report.chmod(0o640)
    other_link = project / "hard.out"
    os.link(report, other_link)  # another name of the old file keeps the old bytes
    before = os.stat(report).st_ino
    ran = _mmlint(project, *WRITERS[writer], "report.out")
    assert ran.returncode in (0, 1), ran.stderr
    assert os.stat(report).st_ino != before
    assert stat.S_IMODE(os.stat(report).st_mode) == 0o640
    assert json.loads(report.read_text())  # the whole report
    assert other_link.read_text() == "old\n"
    assert _leftovers(project) == []


def test_a_new_report_gets_the_usual_mode(project: Path) -> None:
    umask = os.umask(0o022)
    try:
        assert CliRunner().invoke(cli, ["check", "--output", "new.txt"]).exit_code == 1
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(project / "new.txt").st_mode) == 0o644


def test_a_failed_write_leaves_the_old_report_and_no_temporary_file(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = project / "report.out"
    report.write_text("old\n")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    result = CliRunner().invoke(cli, ["check", "--output", "report.out"])
    assert result.exit_code == 2
    assert result.stderr == "mmlint: error: cannot write report.out: No space left on device\n"
    assert report.read_text() == "old\n"
    assert _leftovers(project) == []


def test_a_directory_part_that_is_a_link_is_followed(tmp_path: Path, project: Path) -> None:
    """As for `fix` and as the system resolves any path: only the last part is guarded."""
    elsewhere = tmp_path / "reports"
    elsewhere.mkdir()
    (project / "out").symlink_to(elsewhere)
    assert CliRunner().invoke(cli, ["check", "--output", "out/report.txt"]).exit_code == 1
    assert "MM001" in (elsewhere / "report.txt").read_text()


def test_a_socket_at_the_name_is_refused(project: Path) -> None:
    import socket

    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind("sock")  # relative: a socket path has a short limit
        result = CliRunner().invoke(cli, ["check", "--output", "sock"])
    finally:
        server.close()
    assert result.exit_code == 2
    assert result.stderr == "mmlint: error: cannot write sock: it is a socket, not a file a report can replace\n"
