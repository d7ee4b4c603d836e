"""Shared test set-up: keep the tests directory importable for helper modules
(``expectations``) whichever import mode pytest runs in."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent
FIXTURES_DIR = REPO_ROOT / "fixtures"

if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

# The facts cache lives in the user's cache directory; the tests use one of
# their own (shared by the whole session and its subprocesses), so they neither
# read a developer's cache nor leave entries in it.
os.environ["MMLINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="mmlint-test-cache-")


# Bytecode in a directory of the user's own under the temporary directory,
# never beside the sources. Where PYTHONDONTWRITEBYTECODE is set (this image
# sets it), each of the suite's hundreds of mmlint subprocesses would compile
# mmlint again (a second and a half a run on a fresh clone) and every session
# would rewrite every test module's asserts again: the prefix keeps the
# tree as clean as that setting does, and pays each compile once.
def _bytecode_directory() -> str | None:
    directory = Path(tempfile.gettempdir()) / f"mmlint-tests-bytecode-{os.getuid() if hasattr(os, 'getuid') else 0}"
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(directory)
    except OSError:
        return None
    # Another user's directory could hold bytecode that the suite would run.
    if not stat.S_ISDIR(info.st_mode) or (
        hasattr(os, "geteuid") and (info.st_uid != os.geteuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))
    ):
        return None
    return str(directory)


if "PYTHONPYCACHEPREFIX" not in os.environ and (_bytecode := _bytecode_directory()) is not None:
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix = _bytecode
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False

# pytest-xdist's workers start with COLUMNS=80 and LINES=24 of their own (execnet
# sets them): not the user's terminal, and the CLI lays its output out by
# COLUMNS. A worker runs as a serial session does, with neither.
if "PYTEST_XDIST_WORKER" in os.environ:
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A cache directory of the test's own, with no cache setting inherited."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("MMLINT_CACHE_DIR", str(directory))
    monkeypatch.delenv("MMLINT_NO_CACHE", raising=False)
    monkeypatch.delenv("MMLINT_CACHE_MAX_MB", raising=False)
    return directory


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: one worker more than the cores (``--maxprocesses`` still
    caps it). Many tests wait on an mmlint subprocess or a pool, and the
    spare worker keeps the cores busy meanwhile: on two cores the fast loop
    took 43.6 s with three workers against 47.8 s with two."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # the user's own choice: xdist reads it
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1
