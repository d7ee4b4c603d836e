"""The JSON-RPC layer under the server: pygls' protocol, with an answer for
every request it cannot handle and the protocol's lines for documents.

pygls logs and drops a message it cannot read (malformed JSON, a request whose
params have the wrong shape) and every request after ``shutdown``, so the
editor waits for its own timeout. Here each request gets the error the
specification names: -32700 for JSON that does not parse (id null), -32600 for
a message that is not a request, notification or response (and for any
request after ``shutdown``), -32602 for params of the wrong shape, -32002 for
a request before ``initialize``. Notifications are never answered: a
malformed one is logged to the client, and one before ``initialize`` or after
``shutdown`` (but ``exit``) is dropped."""

from __future__ import annotations

import json
import logging
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from typing import Any

from cattrs.errors import ClassValidationError
from cattrs.v import transform_error
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage
from pygls.protocol.language_server import lsp_method

from mmlint.core.source import split_lines
from mmlint.server.text_sync import LspWorkspace

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603  # our request failed: the client's answer to it is malformed
SERVER_NOT_INITIALIZED = -32002


@dataclass(frozen=True)
class Unreadable:
    """A message pygls could not structure: the raw object, and what is wrong with it."""

    data: Mapping[str, Any]
    code: int
    reason: str


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def envelope_problem(data: Mapping[str, Any]) -> str | None:
    """What makes ``data`` no JSON-RPC 2.0 request, notification or response (None: nothing)."""
    if data.get("jsonrpc") != "2.0":
        return 'its "jsonrpc" is not "2.0"'
    if "method" in data:
        if not isinstance(data["method"], str):
            return 'its "method" is not a string'
        if "id" in data and not _valid_id(data["id"]):
            return 'its "id" is not a number or a string'
        return None
    if "id" not in data:
        return "it has neither a method nor an id"
    if "result" not in data and "error" not in data:
        return "a response without a result or an error"
    return None


class _AnsweredParseErrors(logging.Filter):
    """Drops pygls' traceback for a body that is not JSON: the client is answered instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, UNPARSABLE)


UNPARSABLE = (json.JSONDecodeError, UnicodeDecodeError)
_ANSWERED_PARSE_ERRORS = _AnsweredParseErrors()


class MmlintProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_seen = False
        logging.getLogger("pygls.server").addFilter(_ANSWERED_PARSE_ERRORS)  # its reading loop's logger

    # -- documents with the protocol's lines -----------------------------------------------

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        # pygls makes its workspace first thing, before its first step (the
        # server's own initialize handler): ours takes its place there.
        steps = super().lsp_initialize(params)
        replaced = False
        sent: Any = None
        try:
            while True:
                step = steps.send(sent)
                if not replaced:
                    self._use_lsp_workspace()
                    replaced = True
                sent = yield step
        except StopIteration as stop:
            if not replaced:
                self._use_lsp_workspace()
            result: types.InitializeResult = stop.value
            return result

    def _use_lsp_workspace(self) -> None:
        self._workspace = LspWorkspace.like(self.workspace, self._server._text_document_sync_kind)

    # -- messages that cannot be handled ---------------------------------------------------

    def structure_message(self, data: dict[str, Any]) -> Any:
        if "jsonrpc" not in data:
            return data  # an object inside a message; a message without it is answered by handle_message
        problem = envelope_problem(data)
        if problem is not None:
            return Unreadable(data, INVALID_REQUEST, problem)
        # pygls' own structuring, without its traceback on stderr: the client is told instead.
        method = data.get("method")
        if method is not None:
            kind = self.get_message_type(method)
            if kind is None:  # a method pygls does not know (answered "method not found"): params may be left out
                kind = JsonRPCRequestMessage if "id" in data else JsonRPCNotification
                data = {"params": None, **data}
        elif "error" in data:
            kind = types.ResponseErrorMessage
        else:
            kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
        try:
            return self._converter.structure(data, kind)
        except ClassValidationError as error:
            return Unreadable(data, INVALID_PARAMS, "; ".join(transform_error(error)))
        except Exception as error:  # a value cattrs cannot take: told, not raised
            return Unreadable(data, INVALID_PARAMS, _first_line(error))

    def handle_message(self, message: Any) -> None:
        if isinstance(message, Unreadable):
            self._answer_unreadable(message)
            return
        if not hasattr(message, "jsonrpc"):  # valid JSON, but no message: a list, a number, no "jsonrpc"
            data = message if isinstance(message, Mapping) else {}
            self._answer_unreadable(Unreadable(data, INVALID_REQUEST, "not a JSON-RPC 2.0 message"))
            return
        method = getattr(message, "method", None)
        request_id = getattr(message, "id", None) if method is not None else None
        if method == types.INITIALIZE:
            self.initialize_seen = True
        elif method != types.EXIT and method is not None:
            if self._shutdown:
                self._refuse(request_id, INVALID_REQUEST, "server is shutting down")
                return
            if not self.initialize_seen:
                self._refuse(request_id, SERVER_NOT_INITIALIZED, "server not initialized: initialize comes first")
                return
        super().handle_message(message)

    def answer_unparsable(self, error: Exception) -> None:
        """A body that is not JSON (or not UTF-8): its id cannot be known."""
        self.send_error(None, PARSE_ERROR, f"parse error: {_first_line(error)}")

    def send_error(self, request_id: str | int | None, code: int, message: str) -> None:
        # By hand: lsprotocol's error message leaves out an id that is None, and JSON-RPC wants it null.
        self._send_data({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})

    def _refuse(self, request_id: Any, code: int, message: str) -> None:
        """An error for a request; a notification is dropped."""
        if request_id is not None:
            self.send_error(request_id, code, message)

    def _answer_unreadable(self, message: Unreadable) -> None:
        data, reason = message.data, message.reason
        method, request_id = data.get("method"), data.get("id")
        if "method" not in data and _valid_id(request_id):
            # The client's answer to one of our requests: never answered, but that request fails.
            future = self._request_futures.pop(data["id"], None)
            if future is not None and not future.done():
                future.set_exception(JsonRpcException(code=INTERNAL_ERROR, message=f"malformed response: {reason}"))
            self._log(f"mmlint: ignored a malformed response: {reason}")
        elif "method" in data and "id" not in data and message.code == INVALID_PARAMS:
            self._log(f"mmlint: ignored a malformed {method} notification: {reason}")  # never answered
        else:
            known_id = request_id if "method" in data and _valid_id(request_id) else None
            what = "params" if message.code == INVALID_PARAMS else "request"
            self.send_error(known_id, message.code, f"invalid {what}: {reason}")

    def _log(self, message: str) -> None:
        self.notify(types.WINDOW_LOG_MESSAGE, types.LogMessageParams(types.MessageType.Error, message))


def _first_line(error: BaseException) -> str:
    lines = split_lines(str(error).strip())
    return lines[0] if lines else type(error).__name__
