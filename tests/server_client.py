"""A small JSON-RPC client for the server tests: it starts `mmlint server` in
a subprocess and speaks to it over stdio as an editor would (Content-Length
framed JSON), answering the server's own requests (workspace/configuration,
workspace/applyEdit) the way a client does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lsp_model

TIMEOUT = 60.0


def uri_of(path: Path) -> str:
    return Path(os.path.abspath(path)).as_uri()


class LspClient:
    def __init__(
        self,
        cwd: Path,
        env: dict[str, str],
        *,
        command: list[str] | None = None,
        configuration: Any = None,
        capabilities: dict | None = None,
    ) -> None:
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "mmlint", "server"],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.configuration = configuration  # what workspace/configuration answers for "mmlint"
        self.capabilities = capabilities
        self.messages: list[dict] = []  # every message from the server, in order
        self.applied_edits: list[dict] = []
        self._next_id = 0
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._stderr: list[bytes] = []
        self._stderr_reader = threading.Thread(target=lambda: self._stderr.extend(self.process.stderr), daemon=True)
        self._stderr_reader.start()

    # -- the wire --------------------------------------------------------------------------

    def _send(self, message: dict) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8"))

    def send_raw(self, body: bytes) -> None:
        """``body`` framed as a message, whatever it holds."""
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    with self._changed:
                        self._changed.notify_all()
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            message = json.loads(stream.read(int(headers["content-length"])))
            if "method" in message and "id" in message:
                self._answer(message)
            with self._changed:
                self.messages.append(message)
                self._changed.notify_all()

    def _answer(self, request: dict) -> None:
        method, params = request["method"], request.get("params")
        result: Any = None
        if method == "workspace/configuration":
            result = [self.configuration for _ in params["items"]]
        elif method == "workspace/applyEdit":
            self.applied_edits.append(params["edit"])
            result = {"applied": True}
        self._send({"id": request["id"], "result": result})

    # -- requests and notifications --------------------------------------------------------

    def request(self, method: str, params: Any = None, timeout: float = TIMEOUT) -> Any:
        self._next_id += 1
        request_id = self._next_id
        self._send({"id": request_id, "method": method, "params": params})
        response = self.wait_for(lambda m: m.get("id") == request_id and "method" not in m, timeout)
        if "error" in response:
            raise RuntimeError(f"{method}: {response['error']}")
        return response.get("result")

    def notify(self, method: str, params: Any = None) -> None:
        self._send({"method": method, "params": params})

    def wait_for(self, predicate: Callable[[dict], bool], timeout: float = TIMEOUT, start: int = 0) -> dict:
        deadline = time.monotonic() + timeout
        seen = start
        with self._changed:
            while True:
                for message in self.messages[seen:]:
                    if predicate(message):
                        return message
                seen = len(self.messages)
                left = deadline - time.monotonic()
                if left <= 0 or (self.process.poll() is not None and seen == len(self.messages)):
                    raise TimeoutError(f"no such message from the server; its stderr:\n{self.stderr()[-3000:]}")
                self._changed.wait(min(left, 0.5))

    def mark(self) -> int:
        """Where the messages end now: wait_for(..., start=mark) sees only later ones."""
        with self._changed:
            return len(self.messages)

    def diagnostics(
        self, uri: str, *, start: int = 0, version: int | None = None, timeout: float = TIMEOUT
    ) -> list[dict]:
        """The next publishDiagnostics for ``uri`` after ``start`` (of ``version``, when given)."""
        message = self.wait_for(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri
                and (version is None or m["params"].get("version") == version)
            ),
            timeout,
            start,
        )
        return message["params"]["diagnostics"]

    def stderr(self) -> str:
        return b"".join(self._stderr).decode(errors="replace")

    def logs(self) -> list[str]:
        return [m["params"]["message"] for m in self.messages if m.get("method") == "window/logMessage"]

    # -- the usual steps -------------------------------------------------------------------

    def initialize(self, root: Path, options: Any = None) -> dict:
        capabilities = self.capabilities or {
            "workspace": {
                "configuration": self.configuration is not None,
                "workspaceEdit": {"documentChanges": True},
                "applyEdit": True,
            },
            "textDocument": {
                "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
                "codeAction": {
                    "codeActionLiteralSupport": {
                        "codeActionKind": {"valueSet": ["quickfix", "source", "source.fixAll"]}
                    }
                },
            },
        }
        result = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": uri_of(root),
                "workspaceFolders": [{"uri": uri_of(root), "name": root.name}],
                "capabilities": capabilities,
                "initializationOptions": options,
            },
        )
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str | None = None, version: int = 1) -> str:
        uri = uri_of(path)
        source = path.read_text(encoding="utf-8") if text is None else text
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {"uri": uri, "languageId": "python", "version": version, "text": source},
            },
        )
        return uri

    def change(self, uri: str, text: str, version: int) -> None:
        self.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            },
        )

    def stop(self, timeout: float = TIMEOUT) -> int:
        """shutdown, then exit; the server's exit code."""
        self.request("shutdown")
        self.notify("exit")
        try:
            return self.process.wait(timeout)
        finally:
            self.close()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._stderr_reader.join(10)  # all of stderr read
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                stream.close()
            except OSError:
                pass


def apply_edits(text: str, edits: list[dict], encoding: str = "utf-16") -> str:
    """Apply LSP text edits to ``text`` as a client does (lines split at \\n, \\r\\n and \\r only)."""
    return lsp_model.apply_edits(text, edits, encoding)


def edits_of(workspace_edit: dict, uri: str) -> list[dict]:
    if workspace_edit.get("documentChanges"):
        return [
            e
            for change in workspace_edit["documentChanges"]
            if change["textDocument"]["uri"] == uri
            for e in change["edits"]
        ]
    return workspace_edit.get("changes", {}).get(uri, [])
