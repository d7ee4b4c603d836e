"""`mmlint fix` when the world moves under it, through the command line: a file
edited, fixed by another run or swapped for a link between the analysis and
the write; temporary files a killed run left; hard links, owners, groups and
modes; chains of fixes longer than a few rounds."""

from __future__ import annotations

import fcntl
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_support import CliRunner

import mmlint.cli.fix as fix_cli
import mmlint.fix.pipeline as pipeline
import mmlint.fix.run as fix_run
from mmlint.cli import cli

SOURCE = "class P:\n    async def go(self, x):\n        out = self.process_and_combine_mm_data(x)\n        return out\n"
FIXED = SOURCE.replace("self.process_and_combine_mm_data(x)", "await self.process_and_combine_mm_data_async(x)")


@pytest.fixture()
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory of the test's own, fixed in this process."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("MMLINT_JOBS", "1")  # the hooks below run where the files are fixed
    return work


def _invoke(*args: str):
    return CliRunner().invoke(cli, ["fix", "--no-color", *args], catch_exceptions=False)


def _before_each_fix(monkeypatch: pytest.MonkeyPatch, change) -> None:
    """Run ``change(path)`` once per file, after the analysis and before the
    fixer reads the file: what a user saving it, or another run, does then."""
    real_fix_file = fix_run.fix_file
    done: set[Path] = set()

    def fix_file(file, *, write):
        if file.abs_path not in done:
            done.add(file.abs_path)
            change(file.abs_path)
        return real_fix_file(file, write=write)

    monkeypatch.setattr(fix_run, "fix_file", fix_file)


def _while_transforming(monkeypatch: pytest.MonkeyPatch, change) -> None:
    """Run ``change()`` once, after the fixer read the file and before it writes."""
    real_rewrite = pipeline.rewrite_calls
    calls = []

    def rewrite_calls(source, fixes):
        result = real_rewrite(source, fixes)
        if not calls:
            calls.append(1)
            change()
        return result

    monkeypatch.setattr(pipeline, "rewrite_calls", rewrite_calls)


# -- 17.2: an edit made while `fix` runs ----------------------------------------------


def test_a_comment_line_added_after_the_analysis_is_not_truncated(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dead suppression's removal was planned at line 2; the user's new line
    2 must not lose its tail to it."""
    target = tree / "consts.py"
    target.write_text('"""Constants."""\nVALUE = 1  # mmlint: ignore[MM003]\n', encoding="utf-8")
    edited = '"""Constants."""\n# the note a user typed while fix ran\nVALUE = 1  # mmlint: ignore[MM003]\n'
    _before_each_fix(monkeypatch, lambda path: path.write_text(edited, encoding="utf-8"))
    result = _invoke("consts.py")
    assert target.read_text(encoding="utf-8") == '"""Constants."""\n# the note a user typed while fix ran\nVALUE = 1\n'
    assert result.exit_code == 0, result.output
    assert "planned again from what they hold now: 1 file." in result.output


def test_a_generator_expression_added_around_the_call_gets_no_await(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tree / "proc.py"
    target.write_text(
        "class P:\n    async def go(self, x):\n        out = (\n            self.process_and_combine_mm_data(x)\n"
        "        )\n        return out\n",
        encoding="utf-8",
    )
    # The call keeps its position; a generator expression now encloses it.
    edited = (
        "class P:\n    async def go(self, x):\n        out = (\n            self.process_and_combine_mm_data(x)\n"
        "            for _ in range(2)\n        )\n        return out\n"
    )
    _before_each_fix(monkeypatch, lambda path: path.write_text(edited, encoding="utf-8"))
    result = _invoke("proc.py")
    assert target.read_text(encoding="utf-8") == edited
    assert result.exit_code == 1
    assert "proc.py:4:13: MM001 inside a generator expression" in result.output


def test_a_file_saved_while_it_is_fixed_is_planned_again(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Saved between the fixer's read and its write (an editor's atomic rename):
    nothing is written over it; the next round fixes what it holds then."""
    target = tree / "proc.py"
    target.write_text(SOURCE, encoding="utf-8")
    saved = "# saved by the user\n" + SOURCE

    def save() -> None:
        (tree / "proc.py.new").write_text(saved, encoding="utf-8")
        os.replace(tree / "proc.py.new", target)

    _while_transforming(monkeypatch, save)
    result = _invoke("proc.py")
    assert result.exit_code == 0, result.output
    assert target.read_text(encoding="utf-8") == "# saved by the user\n" + FIXED
    assert "Fixed 1 site in 1 file." in result.output


def test_a_diff_shows_the_fix_of_what_the_file_holds_now(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tree / "proc.py"
    target.write_text(SOURCE, encoding="utf-8")
    edited = "# a new first line\n" + SOURCE
    _before_each_fix(monkeypatch, lambda path: path.write_text(edited, encoding="utf-8"))
    result = CliRunner().invoke(cli, ["fix", "--diff", "proc.py"])
    assert result.exit_code == 1
    assert "-        out = self.process_and_combine_mm_data(x)\n" in result.stdout
    assert "+        out = await self.process_and_combine_mm_data_async(x)\n" in result.stdout
    assert result.stdout.startswith("--- a/proc.py\n+++ b/proc.py\n@@ -1,5 +1,5 @@\n # a new first line\n")
    assert target.read_text(encoding="utf-8") == edited


def test_a_file_that_changes_in_every_round_is_left_and_reported(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tree / "proc.py"
    target.write_text(SOURCE, encoding="utf-8")
    real_fix_file = fix_run.fix_file

    def fix_file(file, *, write):
        with open(file.abs_path, "a", encoding="utf-8") as handle:
            handle.write("# still typing\n")
        return real_fix_file(file, write=write)

    monkeypatch.setattr(fix_run, "fix_file", fix_file)
    monkeypatch.setattr(fix_cli, "MAX_FIX_ROUNDS", 3)
    result = _invoke("proc.py")
    assert result.exit_code == 1
    assert (
        "proc.py: error: changed on disk while it was being fixed, in each of 3 rounds: left as it is now"
        in result.output
    )
    assert "fix stopped after 3 rounds with files still changing" in result.stderr
    assert target.read_text(encoding="utf-8") == SOURCE + "# still typing\n" * 3


# -- 17.3: a file swapped for a symbolic link -----------------------------------------


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.py"
    victim.write_text(SOURCE, encoding="utf-8")  # the same bytes: only the link check can tell
    return victim


def _swap_for_link(path: Path, target: Path) -> None:
    path.unlink()
    path.symlink_to(target)


def test_a_file_swapped_for_a_link_after_the_walk_is_not_written_through(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree / "proc.py").write_text(SOURCE, encoding="utf-8")
    victim = _outside(tmp_path)
    _before_each_fix(monkeypatch, lambda path: _swap_for_link(path, victim))
    result = _invoke(".")
    assert victim.read_text(encoding="utf-8") == SOURCE
    assert (tree / "proc.py").is_symlink()
    assert result.exit_code == 1
    assert "proc.py: error: not written: it is a symbolic link now" in result.output
    assert sorted(p.name for p in victim.parent.iterdir()) == ["victim.py"]


def test_a_file_swapped_for_a_link_before_the_write_is_not_written_through(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree / "proc.py").write_text(SOURCE, encoding="utf-8")
    victim = _outside(tmp_path)
    _while_transforming(monkeypatch, lambda: _swap_for_link(tree / "proc.py", victim))
    result = _invoke(".")
    assert victim.read_text(encoding="utf-8") == SOURCE
    assert (tree / "proc.py").is_symlink() and os.readlink(tree / "proc.py") == str(victim)
    assert result.exit_code == 1
    assert "proc.py: error: not written: it is a symbolic link now" in result.output
    assert sorted(p.name for p in tree.iterdir()) == ["proc.py"]


@pytest.mark.parametrize("when", ["after the walk", "before the write"])
def test_a_file_swapped_for_a_fifo_is_not_written_and_nothing_hangs(
    tree: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    target = tree / "proc.py"
    target.write_text(SOURCE, encoding="utf-8")

    def swap(path: Path = target) -> None:
        path.unlink()
        os.mkfifo(path)

    if when == "after the walk":
        _before_each_fix(monkeypatch, swap)
    else:
        _while_transforming(monkeypatch, swap)
    result = _invoke(".")
    assert result.exit_code == 1
    assert "proc.py: error: not written: it is not a regular file now" in result.output
    assert stat.S_ISFIFO(os.lstat(target).st_mode)


def test_a_link_named_on_the_command_line_is_fixed_through(tree: Path, tmp_path: Path) -> None:
    victim = _outside(tmp_path)
    (tree / "proc.py").symlink_to(victim)
    result = _invoke("proc.py")
    assert result.exit_code == 0, result.output
    assert victim.read_text(encoding="utf-8") == FIXED and (tree / "proc.py").is_symlink()


# -- 17.4: temporary files a killed run left ------------------------------------------


def _aged(path: Path, seconds: float = 3600) -> Path:
    path.write_text("half a fix\n", encoding="utf-8")
    old = time.time() - seconds
    os.utime(path, (old, old))
    return path


def test_a_later_run_removes_its_own_old_leftovers_and_says_so(tree: Path) -> None:
    (tree / "pkg").mkdir()
    (tree / "pkg" / "proc.py").write_text(SOURCE, encoding="utf-8")
    (tree / "clean.py").write_text("X = 1\n", encoding="utf-8")
    ours = [_aged(tree / "pkg" / ".proc.py.k3x9_q2a.mmlint-tmp"), _aged(tree / ".clean.py.abcdefgh.mmlint-tmp")]
    # Beside a file with nothing to fix: younger than the age threshold, it may be a live run's.
    young = tree / ".clean.py.young123.mmlint-tmp"
    young.write_text("a live run's\n", encoding="utf-8")
    not_ours = [
        _aged(tree / "pkg" / ".proc.py.k3x9_q2a.tmp"),
        _aged(tree / "pkg" / "proc.py.k3x9_q2a.mmlint-tmp"),
        _aged(tree / "pkg" / ".proc.py.short.mmlint-tmp"),
        _aged(tree / "pkg" / ".proc.py.UPPERCAS.mmlint-tmp"),
    ]
    result = _invoke(".")
    assert result.exit_code == 0, result.output
    assert not any(path.exists() for path in ours)
    assert young.exists() and all(path.exists() for path in not_ours)
    warnings = [line for line in result.stderr.splitlines() if "temporary file" in line]
    assert sorted(warnings) == [
        "mmlint: warning: removed .clean.py.abcdefgh.mmlint-tmp, a temporary file an interrupted `mmlint fix` left behind",
        "mmlint: warning: removed pkg/.proc.py.k3x9_q2a.mmlint-tmp, a temporary file an interrupted "
        "`mmlint fix` left behind",
    ]
    assert (tree / "pkg" / "proc.py").read_text(encoding="utf-8") == FIXED


def test_a_temporary_file_a_live_run_is_writing_is_left_alone(tree: Path) -> None:
    (tree / "proc.py").write_text(SOURCE, encoding="utf-8")
    live = _aged(tree / ".proc.py.abcdefgh.mmlint-tmp")
    with open(live, "rb") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        result = _invoke(".")
    assert result.exit_code == 0, result.output
    assert live.exists() and "temporary file" not in result.stderr


def test_a_check_or_a_dry_run_removes_nothing(tree: Path) -> None:
    (tree / "proc.py").write_text(SOURCE, encoding="utf-8")
    leftover = _aged(tree / ".proc.py.abcdefgh.mmlint-tmp")
    assert _invoke("--check", ".").exit_code == 1
    assert CliRunner().invoke(cli, ["check", "."]).exit_code == 1
    assert leftover.exists()


def test_an_interrupted_fix_removes_the_temporary_file_of_the_file_it_was_writing(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed mid-write cannot clean up; the run that loses it does,
    on its way out (Ctrl-C or SIGTERM tear the pool down this way)."""
    (tree / "proc.py").write_text(SOURCE, encoding="utf-8")

    def killed_mid_write(file, *, write):
        (file.abs_path.parent / f".{file.abs_path.name}.abcd1234.mmlint-tmp").write_text("half\n", encoding="utf-8")
        raise KeyboardInterrupt

    monkeypatch.setattr(fix_run, "fix_file", killed_mid_write)
    result = CliRunner().invoke(cli, ["fix", "."])
    assert result.exit_code != 0
    assert sorted(p.name for p in tree.iterdir()) == ["proc.py"]
    assert (tree / "proc.py").read_text(encoding="utf-8") == SOURCE


def _temporary_files(directory: Path) -> list[Path]:
    return sorted(directory.glob(".*.mmlint-tmp"))


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_fix_stopped_while_writing_leaves_nothing_behind(tmp_path: Path, signum: int) -> None:
    """A pooled fix stopped while it writes: on SIGTERM it removes its workers'
    temporary files itself; after SIGKILL the next run does (once they are old
    enough). Every file ends either as it was or fixed."""
    work = tmp_path / "work"
    work.mkdir()
    names = [f"proc{index:02d}.py" for index in range(60)]
    for name in names:
        (work / name).write_text(SOURCE * 40, encoding="utf-8")
    env = {**os.environ, "MMLINT_JOBS": "2", "MMLINT_NO_CACHE": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "mmlint", "fix", "-q", "."], cwd=work, env=env, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while process.poll() is None and not _temporary_files(work) and time.monotonic() < deadline:
        time.sleep(0.002)
    process.send_signal(signum)
    process.wait(timeout=60)
    if signum == signal.SIGTERM:
        time.sleep(0.5)  # workers killed with the pool are gone before the parent exits; be generous
        assert _temporary_files(work) == []
    for leftover in _temporary_files(work):
        old = time.time() - 3600
        os.utime(leftover, (old, old))
    finished = subprocess.run(
        [sys.executable, "-m", "mmlint", "fix", "."], cwd=work, env=env, capture_output=True, text=True, timeout=600
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert sorted(p.name for p in work.iterdir()) == names
    assert all(p.read_text(encoding="utf-8") == FIXED * 40 for p in work.iterdir())


# -- 17.9: owner, group, mode and hard links ------------------------------------------


def test_hard_links_stay_linked(tree: Path, tmp_path: Path) -> None:
    target = tree / "proc.py"
    target.write_text(SOURCE, encoding="utf-8")
    target.chmod(0o640)
    other = tmp_path / "elsewhere.py"
    os.link(target, other)
    inode = target.stat().st_ino
    result = _invoke("proc.py")
    assert result.exit_code == 0, result.output
    assert target.stat().st_ino == inode == other.stat().st_ino and target.stat().st_nlink == 2
    assert other.read_text(encoding="utf-8") == FIXED
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tree.iterdir()) == ["proc.py"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_a_file_of_another_owner_keeps_its_owner_group_and_mode(tree: Path) -> None:
    target = tree / "proc.py"
    target.write_text(SOURCE, encoding="utf-8")
    os.chown(target, 4242, 4343)
    target.chmod(0o664)
    result = _invoke("proc.py")
    assert result.exit_code == 0, result.output
    status = target.stat()
    assert (status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)) == (4242, 4343, 0o664)
    assert target.read_text(encoding="utf-8") == FIXED


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file any group")
def test_a_renamed_file_keeps_its_group_and_mode(tree: Path) -> None:
    target = tree / "proc.py"
    target.write_text(SOURCE, encoding="utf-8")
    os.chown(target, os.geteuid(), 4343)
    target.chmod(0o2750)
    inode = target.stat().st_ino
    result = _invoke("proc.py")
    assert result.exit_code == 0, result.output
    status = target.stat()
    assert status.st_ino != inode  # replaced by a rename, as a single-link file of ours is
    assert (status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)) == (os.geteuid(), 4343, 0o2750)
    assert target.read_text(encoding="utf-8") == FIXED


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file any group")
def test_a_group_this_process_cannot_give_is_kept_by_writing_in_place(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a user not in the file's group meets: chown of the new file is
    refused, so the file is rewritten in place rather than handed a new group."""
    import mmlint.core.write as write_module

    target = tree / "proc.py"
    target.write_text(SOURCE, encoding="utf-8")
    os.chown(target, os.geteuid(), 4343)
    inode = target.stat().st_ino

    def refuse(fd, uid, gid):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(write_module.os, "fchown", refuse)
    result = _invoke("proc.py")
    assert result.exit_code == 0, result.output
    assert (target.stat().st_ino, target.stat().st_gid) == (inode, 4343)
    assert target.read_text(encoding="utf-8") == FIXED
    assert sorted(p.name for p in tree.iterdir()) == ["proc.py"]


# -- 17.10: a second `fix` is a no-op ---------------------------------------------------


def _chain(length: int) -> str:
    """Twin pairs where ``astepK`` suspends only once its call of ``stepK-1`` is
    awaited: each round makes the next call fixable."""
    lines = [
        "import asyncio",
        "",
        "",
        "def step0(x):",
        "    return x",
        "",
        "",
        "async def astep0(x):",
        "    await asyncio.sleep(0)",
        "    return x",
        "",
    ]
    for k in range(1, length + 1):
        lines += [
            "",
            f"def step{k}(x):",
            f"    return step{k - 1}(x)",
            "",
            "",
            f"async def astep{k}(x):",
            f"    return step{k - 1}(x)",
            "",
        ]
    return "\n".join(lines)


def test_a_chain_longer_than_five_rounds_is_fixed_in_one_run(tree: Path) -> None:
    target = tree / "chain.py"
    target.write_text(_chain(8), encoding="utf-8")
    result = _invoke("chain.py")
    assert result.exit_code == 0, result.output
    assert "Fixed 8 sites in 1 file." in result.output
    text = target.read_text(encoding="utf-8")
    assert all(f"return await astep{k - 1}(x)" in text for k in range(1, 9))
    again = _invoke("--check", "chain.py")
    assert again.exit_code == 0 and "Nothing to fix." in again.output


def test_the_round_bound_is_reported(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tree / "chain.py").write_text(_chain(8), encoding="utf-8")
    monkeypatch.setattr(fix_cli, "MAX_FIX_ROUNDS", 3)
    result = _invoke("chain.py")
    assert result.exit_code == 1
    assert "mmlint: error: fix stopped after 3 rounds with files still changing; run it again to go on" in result.stderr


def test_the_round_bound_is_reported_for_standard_input(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fix_cli, "MAX_FIX_ROUNDS", 3)
    result = CliRunner().invoke(cli, ["fix", "--stdin-filename", "chain.py", "-"], input=_chain(8))
    assert result.exit_code == 1
    assert "fix stopped after 3 rounds with files still changing" in result.stderr


def test_standard_input_goes_through_the_rounds_of_a_file(tree: Path) -> None:
    # One rounds loop (fix_in_rounds) for files and `fix -`: the buffer is fixed from
    # its bytes in each round, and nothing is written, not even --stdin-filename's file.
    (tree / "chain.py").write_text("# on disk\n", encoding="utf-8")
    piped = CliRunner().invoke(cli, ["fix", "--stdin-filename", "chain.py", "-"], input=_chain(8))
    assert (tree / "chain.py").read_text(encoding="utf-8") == "# on disk\n"
    (tree / "chain.py").write_text(_chain(8), encoding="utf-8")
    written = _invoke("chain.py")
    assert piped.exit_code == written.exit_code == 0, piped.stderr
    assert piped.stdout_bytes == (tree / "chain.py").read_bytes()
    assert "Fixed 8 sites in 1 file." in piped.stderr
    assert sorted(path.name for path in tree.iterdir()) == ["chain.py"]


def test_fix_in_rounds_follows_a_buffer_without_writing(tree: Path) -> None:
    from mmlint.api import check

    target = tree / "chain.py"
    target.write_text("# on disk\n", encoding="utf-8")
    seen: list[bytes] = []

    def scan(buffers):
        (data,) = buffers.values()
        seen.append(data)
        target.write_bytes(data)  # the scan reads the file; the fixer must not
        report = check([target], cwd=tree)
        target.write_text("# on disk\n", encoding="utf-8")
        return report

    first = scan({"chain.py": _chain(3).encode()})
    run, _ = fix_run.fix_in_rounds(first, scan, write=True, buffers={"chain.py": _chain(3).encode()})
    assert target.read_text(encoding="utf-8") == "# on disk\n"
    assert run.sites_fixed == 3 and len(seen) == 4  # the first scan, then one per round that changed it
    assert run.changed[0].new.count(b"return await astep") == 3 and seen[-1] == run.changed[0].new


# -- 23.4: another run fixed the files first ---------------------------------------------


def test_files_another_run_fixed_first_are_a_success_said_once(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for index in range(24):
        (tree / f"proc{index:02d}.py").write_text(SOURCE, encoding="utf-8")
    _before_each_fix(monkeypatch, lambda path: path.write_text(FIXED, encoding="utf-8"))
    result = _invoke(".")
    assert result.exit_code == 0, result.output
    assert "error" not in result.output
    assert result.output.count("planned again") == 1
    assert "Changed on disk while being fixed, so planned again from what they hold now: 24 files." in result.output
    assert all(path.read_text(encoding="utf-8") == FIXED for path in tree.iterdir())


def test_a_file_another_run_fixed_while_this_one_planned_is_a_success(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tree / "proc.py"
    target.write_text(SOURCE, encoding="utf-8")
    _while_transforming(monkeypatch, lambda: target.write_text(FIXED, encoding="utf-8"))
    result = _invoke("proc.py")
    assert result.exit_code == 0, result.output
    assert "error" not in result.output
    assert "Already fixed by another run, nothing to write: 1 file." in result.output
    assert target.read_text(encoding="utf-8") == FIXED


@pytest.mark.slow
def test_concurrent_runs_all_succeed(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for index in range(24):
        (work / f"proc{index:02d}.py").write_text(SOURCE * 20, encoding="utf-8")
    env = {**os.environ, "MMLINT_NO_CACHE": "1"}
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "mmlint", "fix", "--no-color", "."],
            cwd=work,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [run.communicate(timeout=300) for run in runs]
    for run, (out, err) in zip(runs, outputs):
        assert run.returncode == 0, out + err
        assert "error" not in out + err
    assert all(path.read_text(encoding="utf-8") == FIXED * 20 for path in work.iterdir())
