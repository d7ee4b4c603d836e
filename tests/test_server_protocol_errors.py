"""Every request gets an answer, even one `mmlint server` cannot handle: raw
framed JSON-RPC over stdio to a real server process, each answer awaited
with a short timeout so a missing one fails fast."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from server_client import LspClient, uri_of

pytestmark = pytest.mark.slow  # each test starts a server process

ANSWER_TIMEOUT = 15.0
NOWHERE = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}


@pytest.fixture
def server(tmp_path: Path):
    started: list[LspClient] = []

    def start(client: type[LspClient] = LspClient) -> LspClient:
        lsp = client(tmp_path, {**os.environ, "MMLINT_CACHE_DIR": str(tmp_path / "cache")})
        started.append(lsp)
        return lsp

    yield start
    for lsp in started:
        lsp.close()


def answer_to(lsp: LspClient, body: Any, request_id: Any) -> dict:
    """The response to ``body`` (bytes as they are, anything else as JSON) whose id is ``request_id``."""
    mark = lsp.mark()
    lsp.send_raw(body if isinstance(body, bytes) else json.dumps(body).encode())
    return lsp.wait_for(lambda m: "method" not in m and m.get("id", "absent") == request_id, ANSWER_TIMEOUT, mark)


def error_of(lsp: LspClient, body: Any, request_id: Any) -> tuple[int, str]:
    response = answer_to(lsp, body, request_id)
    assert "result" not in response, response
    return response["error"]["code"], response["error"]["message"]


def initialize(lsp: LspClient, root: Path, request_id: int = 1) -> dict:
    return answer_to(
        lsp,
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "initialize",
            "params": {"processId": None, "rootUri": uri_of(root), "capabilities": {}},
        },
        request_id,
    )


def code_action(request_id: Any, uri: str, **extra: Any) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "textDocument/codeAction",
        "params": {"textDocument": {"uri": uri}, "range": NOWHERE, "context": {"diagnostics": []}},
        **extra,
    }


def test_malformed_messages_are_answered_with_the_json_rpc_error_and_the_server_goes_on(server, tmp_path) -> None:
    lsp = server()
    uri = uri_of(tmp_path / "m.py")
    # Before initialize: a request is refused, and says why.
    assert error_of(lsp, code_action(1, uri), 1)[0] == -32002
    # Not JSON, or not UTF-8: a parse error, with id null.
    code, message = error_of(lsp, b'{"jsonrpc": "2.0", "id": 2, "method": "initialize", ', None)
    assert code == -32700 and message.startswith("parse error: ")
    assert error_of(lsp, b'{"jsonrpc": "2.0", "id": 3, "method": "\xff"}', None)[0] == -32700
    # JSON, but no request: -32600, with the id where there is one to read.
    for body in (
        [1, 2],
        42,
        "initialize",
        {"jsonrpc": "2.0"},
        {"jsonrpc": "2.0", "method": 5},
        {"jsonrpc": "2.0", "id": [4], "method": "initialize"},
        {"jsonrpc": "2.0", "id": None, "method": "x"},
    ):
        assert error_of(lsp, body, None)[0] == -32600, body
    assert error_of(lsp, {"id": 5, "method": "shutdown"}, 5)[0] == -32600  # no "jsonrpc"
    assert error_of(lsp, {"jsonrpc": "1.0", "id": 6, "method": "shutdown"}, 6) == (
        -32600,
        'invalid request: its "jsonrpc" is not "2.0"',
    )
    assert error_of(lsp, {"jsonrpc": "2.0", "id": "7", "method": 7}, "7")[0] == -32600
    # A known request whose params have the wrong shape: -32602, with the request's id and what is wrong.
    assert error_of(lsp, {"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": []}, 8)[0] == -32602
    assert "result" in initialize(lsp, tmp_path, 9)
    lsp.notify("initialized", {})
    code, message = error_of(
        lsp, {"jsonrpc": "2.0", "id": 10, "method": "textDocument/codeAction", "params": {"textDocument": 5}}, 10
    )
    assert code == -32602 and "$.params.range" in message
    # A malformed notification is never answered, but logged; the server goes on.
    lsp.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"range": 1}]})
    lsp.wait_for(
        lambda m: (
            m.get("method") == "window/logMessage"
            and "ignored a malformed textDocument/didChange notification" in m["params"]["message"]
        ),
        ANSWER_TIMEOUT,
    )
    assert error_of(lsp, {"jsonrpc": "2.0", "id": 11, "method": "no/suchMethod"}, 11)[0] == -32601
    assert answer_to(lsp, code_action(12, uri), 12)["result"] == []
    assert not [m for m in lsp.messages if m.get("id") not in (None, 1, 2, 3, 5, 6, "7", 8, 9, 10, 11, 12)]
    assert "Traceback" not in lsp.stderr()
    # Nothing answered twice, nothing the client did not ask.
    answered = [m.get("id") for m in lsp.messages if "method" not in m]
    assert len([i for i in answered if i is not None]) == len({i for i in answered if i is not None})
    assert answer_to(lsp, {"jsonrpc": "2.0", "id": 13, "method": "shutdown"}, 13)["result"] is None
    lsp.notify("exit")
    assert lsp.process.wait(ANSWER_TIMEOUT) == 0


def test_after_shutdown_requests_are_refused_and_exit_ends_the_process_with_0(server, tmp_path) -> None:
    lsp = server()
    uri = uri_of(tmp_path / "m.py")
    initialize(lsp, tmp_path)
    lsp.notify("initialized", {})
    assert answer_to(lsp, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}, 2)["result"] is None
    assert error_of(lsp, code_action(3, uri), 3) == (-32600, "server is shutting down")
    assert error_of(lsp, {"jsonrpc": "2.0", "id": 4, "method": "shutdown"}, 4) == (-32600, "server is shutting down")
    assert error_of(lsp, {"jsonrpc": "2.0", "id": 5, "method": "no/suchMethod"}, 5)[0] == -32600
    lsp.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": ""}})
    lsp.notify("exit")
    assert lsp.process.wait(ANSWER_TIMEOUT) == 0
    assert not [m for m in lsp.messages if m.get("method") == "textDocument/publishDiagnostics"]


@pytest.mark.parametrize("initialized", [False, True])
def test_exit_without_shutdown_ends_the_process_with_1(server, tmp_path, initialized) -> None:
    lsp = server()
    if initialized:
        initialize(lsp, tmp_path)
    lsp.send_raw(b"not json")
    lsp.notify("exit")
    assert lsp.process.wait(ANSWER_TIMEOUT) == 1


class RefusingClient(LspClient):
    """Answers workspace/applyEdit with a result of the wrong shape."""

    def _answer(self, request: dict) -> None:
        if request["method"] == "workspace/applyEdit":
            self._send({"id": request["id"], "result": None})
        else:
            super()._answer(request)


def test_a_malformed_response_fails_the_servers_request_instead_of_hanging_it(server, tmp_path) -> None:
    package = tmp_path / "processors"
    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / "processors", package)
    lsp = server(RefusingClient)
    lsp.initialize(package)
    uri = lsp.open(package / "mmproc/processors/clip.py")
    assert lsp.diagnostics(uri)
    request = {
        "jsonrpc": "2.0",
        "id": 100,
        "method": "workspace/executeCommand",
        "params": {"command": "mmlint.fixAll", "arguments": [uri]},
    }
    code, message = error_of(lsp, request, 100)
    assert code == -32603 and "malformed response" in message
    lsp.wait_for(
        lambda m: m.get("method") == "window/logMessage" and "ignored a malformed response" in m["params"]["message"],
        ANSWER_TIMEOUT,
    )
    assert lsp.stop() == 0


# A code action that never ends, once it has started (it runs on the analysis thread).
_ENDLESS_ACTION = """
import sys, threading
import mmlint.server.code_actions as code_actions
def code_actions_(*args):
    print("code action started", file=sys.stderr, flush=True)
    threading.Event().wait()
code_actions.code_actions = code_actions_
from mmlint.cli import main
sys.argv = ["mmlint", "server"]
main()
"""


def test_a_cancelled_request_is_answered_request_cancelled(tmp_path) -> None:
    path = tmp_path / "proc.py"
    path.write_text("async def run(self, out):\n    return self.process_and_combine_mm_data(out)\n")
    lsp = LspClient(
        tmp_path,
        {**os.environ, "MMLINT_CACHE_DIR": str(tmp_path / "cache")},
        command=[sys.executable, "-c", _ENDLESS_ACTION],
    )
    try:
        lsp.initialize(tmp_path)
        uri = lsp.open(path)
        lsp.diagnostics(uri)
        mark = lsp.mark()
        lsp.send_raw(json.dumps(code_action(50, uri)).encode())
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while "code action started" not in lsp.stderr():
            assert time.monotonic() < deadline, lsp.stderr()
            time.sleep(0.05)
        lsp.notify("$/cancelRequest", {"id": 50})
        response = lsp.wait_for(lambda m: m.get("id") == 50 and "method" not in m, ANSWER_TIMEOUT, mark)
        assert response["error"]["code"] == -32800
        assert lsp.stop() == 0
    finally:
        lsp.close()
