"""`mmlint server`'s code actions over stdio on hostile text, its exit while a
code action runs, and a document opened from outside the workspace folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from mmlint.core.source import split_lines
from server_client import LspClient, edits_of
from test_server import _server_patched

pytestmark = pytest.mark.slow  # each test starts a server process

TWIN = "self.process_and_combine_mm_data"
HOSTILE = (
    "class P(Base):\r\n"
    "    async def run(self, out):  # the entry\r\n"
    f"        a = {TWIN}(out) + \\\r\n"
    "            1\r\n"
    f'        c = {TWIN}("""\r\n'
    '        text""")  # a note\r\n'
    f"        e = {TWIN}(out)  # mmlint: ignore[MM003]\r\n"
    f"        g = 'é😀' + {TWIN}(out)\f\r\n"
    "\r\n"
    "\r\n"
    "def sync(self, out):\r\n"
    f"\treturn {TWIN}(out)"
)


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "MMLINT_CACHE_DIR": str(tmp_path / "cache")}


def _apply(text: str, edits: list[dict]) -> str:
    """LSP edits (UTF-16 positions) applied as a client does, lines split where the protocol splits them."""
    lines = split_lines(text, keepends=True)

    def offset(position: dict) -> int:
        if position["line"] >= len(lines):
            return len(text)
        content, units, index = lines[position["line"]], 0, 0
        while index < len(content) and units < position["character"]:
            units += 2 if ord(content[index]) > 0xFFFF else 1
            index += 1
        return sum(len(line) for line in lines[: position["line"]]) + index

    for start, end, new in sorted(
        ((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits), reverse=True
    ):
        text = text[:start] + new + text[end:]
    return text


def _compiles(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<action>", "exec", dont_inherit=True)
    except SyntaxError:
        return False
    return True


def test_every_action_on_hostile_lines_compiles_and_a_suppression_suppresses(tmp_path) -> None:
    path = tmp_path / "proc.py"
    path.write_bytes(HOSTILE.encode("utf-8"))
    lsp = LspClient(tmp_path, _env(tmp_path))
    try:
        lsp.initialize(tmp_path)
        uri = lsp.open(path, HOSTILE)
        diagnostics = lsp.diagnostics(uri)
        assert sum(d["code"] == "MM001" for d in diagnostics) == 5
        version, offered = 1, []
        for diagnostic in diagnostics:
            at_line = {"start": diagnostic["range"]["start"], "end": diagnostic["range"]["start"]}
            actions = lsp.request(
                "textDocument/codeAction",
                {"textDocument": {"uri": uri}, "range": at_line, "context": {"diagnostics": [diagnostic]}},
            )
            for action in actions:
                offered.append((diagnostic["range"]["start"]["line"], action["title"]))
                result = _apply(HOSTILE, edits_of(action["edit"], uri))
                assert _compiles(result), action["title"]
                if not action["title"].startswith("mmlint: suppress"):
                    continue
                (target,) = action["diagnostics"]  # the action's own, one of those on the line asked about
                version += 1
                mark = lsp.mark()
                lsp.change(uri, result, version)
                after = lsp.diagnostics(uri, start=mark, version=version)
                assert target["range"]["start"] not in [
                    d["range"]["start"] for d in after if d["code"] == target["code"]
                ]
                version += 1
                lsp.change(uri, HOSTILE, version)
                lsp.diagnostics(uri, version=version)
        suppressible = {line for line, title in offered if title.startswith("mmlint: suppress MM001")}
        # Not the call on the line a backslash continues (2); the closing line for the one opening a string (4).
        assert suppressible == {4, 6, 7, 11}
        assert lsp.stop() == 0
    finally:
        lsp.close()


# A code action that never ends, once it has started.
_ENDLESS_ACTION = """
    import sys, threading
    import mmlint.server.code_actions as code_actions
    def code_actions_(*args):
        print("code action started", file=sys.stderr, flush=True)
        threading.Event().wait()
    code_actions.code_actions = code_actions_
"""


def test_exit_does_not_wait_for_a_code_action_still_running(tmp_path) -> None:
    path = tmp_path / "proc.py"
    path.write_text(f"async def run(self, out):\n    return {TWIN}(out)\n")
    lsp = LspClient(tmp_path, _env(tmp_path), command=_server_patched(_ENDLESS_ACTION))
    try:
        lsp.initialize(tmp_path)
        uri = lsp.open(path)
        lsp.diagnostics(uri)
        everything = {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}
        lsp._send(
            {
                "id": 999,
                "method": "textDocument/codeAction",
                "params": {"textDocument": {"uri": uri}, "range": everything, "context": {"diagnostics": []}},
            }
        )
        deadline = time.monotonic() + 60
        while "code action started" not in lsp.stderr():
            assert time.monotonic() < deadline, lsp.stderr()
            time.sleep(0.05)
        assert lsp.stop(timeout=60) == 0  # a pool thread would hold the exit for ever
    finally:
        lsp.close()


# Says on stderr which files the per-file pass parses (MMLINT_JOBS=1: in the server's process).
_COUNTING_PARSES = """
    import sys
    from pathlib import Path
    from mmlint.check import findings
    original = findings.analyse_file
    def analyse_file(data, real_path, *rest):
        print("parsed", Path(real_path).name, file=sys.stderr, flush=True)
        return original(data, real_path, *rest)
    findings.analyse_file = analyse_file
"""


def test_a_document_from_outside_the_folder_is_checked_as_check_file_alone(tmp_path) -> None:
    folder, elsewhere = tmp_path / "workspace", tmp_path / "downloads"
    folder.mkdir()
    elsewhere.mkdir()
    caller = elsewhere / "serve.py"
    caller.write_text(
        f"from decode import frames\n\n\nasync def handle(self, r):\n    {TWIN}(r)\n    return await frames(r)\n"
    )
    (elsewhere / "decode.py").write_text("async def frames(r):\n    for x in r:\n        parse(x)\n")
    for index in range(40):
        (elsewhere / f"other_{index}.py").write_text(f"async def f{index}():\n    return {index}\n")
    env = {**_env(tmp_path), "MMLINT_JOBS": "1"}
    expected = json.loads(
        subprocess.run(
            [sys.executable, "-m", "mmlint", "check", "--format", "json", "serve.py"],
            cwd=elsewhere,
            env={**env, "MMLINT_CACHE_DIR": str(tmp_path / "cli-cache")},
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    )
    lsp = LspClient(folder, env, command=_server_patched(_COUNTING_PARSES))
    try:
        lsp.initialize(folder)
        uri = lsp.open(caller)
        shown = [(d["range"]["start"]["line"] + 1, d["code"]) for d in lsp.diagnostics(uri)]
        assert shown == [(d["line"], d["code"]) for d in expected["diagnostics"]] == [(5, "MM001")]
        assert lsp.stop() == 0
    finally:
        lsp.close()
    assert [line for line in lsp.stderr().splitlines() if line.startswith("parsed ")] == ["parsed serve.py"]
