"""`mmlint server` as a command: it needs nothing but mmlint's own
dependencies (no pygls, no lsprotocol); the other commands never import
the server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "processors"

# Runs the CLI with pygls and lsprotocol made impossible to import, as where they are not installed.
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


def _framed(*messages: dict) -> bytes:
    bodies = [json.dumps({"jsonrpc": "2.0", **message}).encode() for message in messages]
    return b"".join(b"Content-Length: %d\r\n\r\n" % len(body) + body for body in bodies)


def test_the_server_runs_without_pygls_or_lsprotocol(tmp_path: Path) -> None:
    session = _framed(
        {"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"method": "initialized", "params": {}},
        {"id": 2, "method": "shutdown"},
        {"method": "exit"},
    )
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_EXTRA, "server"],
        cwd=tmp_path,
        env={**os.environ, "MMLINT_CACHE_DIR": str(tmp_path / "cache")},
        input=session,
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert b'"positionEncoding":"utf-16"' in result.stdout and b'"id":2,"result":null' in result.stdout


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
