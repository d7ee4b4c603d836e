"""Shared test set-up: keep the tests directory importable for helper modules
(``expectations``) whichever import mode pytest runs in."""

from __future__ import annotations

import os
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
