"""The command line as a process (mmlint.cli.process): it ends without freeing
its heap, but nothing a normal exit does is lost: the output, the exit code,
the exit handlers, the threads still running."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from cli_support import CliRunner

import mmlint.cli.process as process
from mmlint.cli import cli

BYPASS = "class P:\n    async def f(self):\n        return self.process_and_combine_mm_data(1)\n"


# Marks an exit through os._exit (the short cut) with a file, then takes it.
_MARK_SHORT_CUT = """
import os
_exit = os._exit
def _marked(code):
    open("left-at-once", "w").close()
    _exit(code)
os._exit = _marked
"""


def _python(tmp_path, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    source = _MARK_SHORT_CUT + textwrap.dedent(script)
    return subprocess.run(
        [sys.executable, "-c", source, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_the_process_prints_and_exits_as_the_command_does(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text(BYPASS)
    monkeypatch.setenv("COLUMNS", "100")  # the same width for both
    ran = subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "--no-cache", "a.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    invoked = CliRunner().invoke(cli, ["check", "--no-cache", "a.py"])
    assert ran.returncode == invoked.exit_code == 1
    assert ran.stdout == invoked.stdout and "MM001" in ran.stdout


def test_exit_handlers_still_run(tmp_path):
    (tmp_path / "a.py").write_text(BYPASS)
    ran = _python(
        tmp_path,
        """
        import atexit, sys
        atexit.register(lambda: open("handler-ran", "w").close())
        from mmlint.cli.process import entry
        sys.argv = ["mmlint", "check", "--no-cache", "a.py"]
        entry()
    """,
    )
    assert ran.returncode == 1, ran.stderr
    assert (tmp_path / "left-at-once").exists()  # the short cut was taken...
    assert (tmp_path / "handler-ran").exists()  # ...and the handlers ran all the same


def test_a_thread_still_running_is_waited_for(tmp_path):
    ran = _python(
        tmp_path,
        """
        import sys, threading, time
        def late():
            time.sleep(0.3)
            open("thread-finished", "w").close()
        threading.Thread(target=late).start()
        from mmlint.cli.process import entry
        sys.argv = ["mmlint", "--version"]
        entry()
    """,
    )
    assert ran.returncode == 0 and ran.stdout.startswith("mmlint "), ran.stderr
    assert not (tmp_path / "left-at-once").exists()  # the usual exit...
    assert (tmp_path / "thread-finished").exists()  # ...which waits for the thread


@pytest.mark.slow
def test_a_closed_pipe_ends_the_run_without_a_traceback(tmp_path):
    (tmp_path / "a.py").write_text(
        "class P:\n    async def f(self):\n" + "        self.process_and_combine_mm_data(1)\n" * 400
    )
    run = subprocess.Popen(
        [sys.executable, "-m", "mmlint", "check", "--no-cache", "a.py"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert run.stdout is not None and run.stderr is not None
    run.stdout.read(100)
    run.stdout.close()  # the reader is gone, as after `| head`
    stderr = run.stderr.read().decode()
    assert run.wait(timeout=120) in (1, 2), stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr


@pytest.mark.parametrize(("raised", "code"), [(None, 0), (3, 3), (0, 0)])
def test_the_exit_status_is_main_s(monkeypatch, raised, code):
    def main():
        if raised is not None:
            raise SystemExit(raised)

    left: list[int] = []

    def leave(status):
        left.append(status)
        raise SystemExit(status)

    monkeypatch.setattr(process, "main", main)
    monkeypatch.setattr(process, "leave", leave)
    with pytest.raises(SystemExit):
        process.entry()
    assert left == [code]


def test_a_message_to_print_leaves_the_usual_way(monkeypatch):
    def main():
        raise SystemExit("a message")

    monkeypatch.setattr(process, "main", main)
    monkeypatch.setattr(process, "leave", lambda status: pytest.fail("left at once"))
    with pytest.raises(SystemExit, match="a message"):
        process.entry()
