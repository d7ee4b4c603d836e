"""Run one command and print, as one JSON line, its wall time and the peak RSS
of its process tree:  python run_measured.py OUT ERR -- COMMAND...

Why a wrapper: on Linux a child's ru_maxrss starts from the RSS high-water mark
of the process that spawned it (Python's subprocess uses vfork, so the child
exec()s out of the parent's address space), so a large benchmark driver would
inflate every figure; this wrapper is a small, fresh interpreter. It makes
itself a child subreaper, so pool workers and any other descendant that
outlives its parent are reaped here too, and reports the largest peak of any
single process in the tree (wait4's rusage of a process covers the process
and the children it reaped, taking the maximum, not the sum).
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
ORPHAN_DRAIN_SECONDS = 30.0


def become_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def drain_orphans(peak_kib: int) -> int:
    """Reap descendants re-parented to us after the command exited."""
    deadline = time.monotonic() + ORPHAN_DRAIN_SECONDS
    while time.monotonic() < deadline:
        try:
            pid, _, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            time.sleep(0.01)
            continue
        peak_kib = max(peak_kib, usage.ru_maxrss)
    return peak_kib


def main() -> None:
    out_path, err_path, separator, *command = sys.argv[1:]
    if separator != "--" or not command:
        sys.exit("usage: run_measured.py OUT ERR -- COMMAND...")
    subreaper = become_subreaper()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        file_actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
            (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
        ]
        start = time.perf_counter()
        try:
            pid = os.posix_spawnp(command[0], command, os.environ, file_actions=file_actions)
        except OSError as error:
            sys.exit(f"cannot run {command[0]}: {error}")
        _, status, usage = os.wait4(pid, 0)
        seconds = time.perf_counter() - start
    peak_kib = drain_orphans(usage.ru_maxrss) if subreaper else usage.ru_maxrss
    cpu_seconds = usage.ru_utime + usage.ru_stime  # the command and the descendants it waited for
    print(
        json.dumps(
            {
                "seconds": seconds,
                "cpu_seconds": cpu_seconds,
                "peak_kib": peak_kib,
                "exit_code": os.waitstatus_to_exitcode(status),
            }
        )
    )


if __name__ == "__main__":
    main()
