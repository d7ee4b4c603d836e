"""`mmlint server` as a command: without the `server` extra it says which
extra to install and exits 2; the other commands never import pygls."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "processors"

# Runs the CLI with pygls and lsprotocol made impossible to import, as in a base install.
_WITHOUT_EXTRA = """
import importlib.abc, sys
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pygls", "lsprotocol"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Hide())
from mmlint.cli import main
sys.argv = ["mmlint", *sys.argv[1:]]
main()
"""


def test_server_without_the_extra_names_it_and_exits_2(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_EXTRA, "server"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert (
        line.startswith("mmlint: error: `mmlint server` needs the server extra")
        and "pip install 'mmlint[server]'" in line
    )


@pytest.mark.slow
def test_the_other_commands_do_not_import_the_server(tmp_path: Path) -> None:
    env = {**os.environ, "MMLINT_CACHE_DIR": str(tmp_path / "cache")}
    for args in (["check", "--quiet"], ["--help"]):
        # -X importtime lists every module the run imports, on stderr.
        result = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "mmlint", *args],
            cwd=FIXTURES,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        imported = {
            line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")
        }
        assert "mmlint.cli" in imported, args  # the listing is real
        assert not {
            m for m in imported if m.split(".")[0] in ("pygls", "lsprotocol") or m.startswith("mmlint.server")
        }, args


def test_help_lists_the_server_command(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert "server" in result.stdout
