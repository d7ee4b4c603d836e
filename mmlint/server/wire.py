"""JSON-RPC 2.0 as the Language Server Protocol uses it, on the event loop:
the client's requests and notifications to their handlers, their answers
back, the server's own requests to the client and their responses, and the
lifecycle's rules (nothing before ``initialize``, nothing after
``shutdown`` but ``exit``).

Every request gets an answer, even one that cannot be handled, with the
error the specification names: -32700 for a body that is not JSON (id
null), -32600 for a message that is not a request, notification or
response (and for any request after ``shutdown``), -32601 for a method the
server does not handle, -32602 for params of the wrong shape (what is wrong,
and where: mmlint.server.shapes), -32002 for a request before
``initialize``, -32800 for one the client cancelled. Notifications are never
answered: a malformed one is logged to the client, an unknown one (``$/``
or not) is dropped, and one before ``initialize`` or after ``shutdown``
(but ``exit``) is dropped."""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from mmlint.core.source import split_lines
from mmlint.server.shapes import Check, problems_of

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603  # a handler failed, or the client's answer to our request is malformed
SERVER_NOT_INITIALIZED = -32002
REQUEST_CANCELLED = -32800

# MessageType, for window/logMessage and window/showMessage.
MESSAGE_ERROR, MESSAGE_WARNING = 1, 2

# A handler takes the params and returns the result (None for a notification), or a coroutine making it.
Handler = Callable[[Any], Any]


class ResponseError(Exception):
    """An error response: raised by a handler to answer with it, and by an
    awaited request of ours that the client answered with one."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


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
    if "error" in data and not _error_shaped(data["error"]):
        return 'its "error" is not an object with a code and a message'
    return None


def _error_shaped(error: Any) -> bool:
    return isinstance(error, dict) and _valid_id(error.get("code")) and isinstance(error.get("message"), str)


class Endpoint:
    """One connection: ``send`` writes a message's body (framing is the
    caller's, mmlint.server.framing); ``receive`` takes each body read.
    Runs on the event loop's thread."""

    def __init__(self, send: Callable[[bytes], None], handlers: Mapping[str, Handler]) -> None:
        self._send = send
        self.handlers: dict[str, Handler] = {**handlers, "$/cancelRequest": self._cancel_request}
        self.initialize_seen = False
        self.shut_down = False  # the client asked for shutdown: only exit is handled now
        self._requests: dict[Any, asyncio.Future[Any]] = {}  # the client's requests being handled, by id
        self._pending: dict[Any, tuple[asyncio.Future[Any], Check | None]] = {}  # ours, awaiting an answer
        self._notifications: set[asyncio.Future[Any]] = set()  # notification handlers still running
        self._ids = itertools.count(1)

    # -- sending ---------------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        # ASCII JSON: a lone surrogate in a text (an undecodable file's) is escaped, never unencodable.
        self._send(json.dumps({"jsonrpc": "2.0", **message}, separators=(",", ":")).encode("ascii"))

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def log(self, kind: int, message: str) -> None:
        self.notify("window/logMessage", {"type": kind, "message": message})

    def send_error(self, request_id: Any, code: int, message: str) -> None:
        self.send({"id": request_id, "error": {"code": code, "message": message}})

    async def request(self, method: str, params: Any, result: Check | None = None) -> Any:
        """A request of ours to the client; its result (checked by ``result``),
        or ResponseError with the client's error or what is malformed in its answer."""
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = (future, result)
        self.send({"id": request_id, "method": method, "params": params})
        try:
            return await future
        finally:
            self._pending.pop(request_id, None)

    # -- receiving -------------------------------------------------------------------------

    def receive(self, body: bytes) -> None:
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:  # its id cannot be known
            self.send_error(None, PARSE_ERROR, f"parse error: {_first_line(error)}")
            return
        self.handle(data)

    def handle(self, data: Any) -> None:
        if not isinstance(data, dict):  # valid JSON, but no message: a list (a batch), a number, a string
            self.send_error(None, INVALID_REQUEST, "invalid request: not a JSON-RPC 2.0 message")
            return
        problem = envelope_problem(data)
        if problem is not None:
            self._unreadable(data, INVALID_REQUEST, problem)
        elif "method" not in data:
            self._response(data)
        elif "id" in data:
            self._request(data["id"], data["method"], data.get("params"))
        else:
            self._notification(data["method"], data.get("params"))

    def _request(self, request_id: Any, method: str, params: Any) -> None:
        if self.shut_down:
            self.send_error(request_id, INVALID_REQUEST, "server is shutting down")
            return
        if method == "initialize":
            self.initialize_seen = True
        elif not self.initialize_seen:
            self.send_error(request_id, SERVER_NOT_INITIALIZED, "server not initialized: initialize comes first")
            return
        handler = self.handlers.get(method)
        if handler is None:
            self.send_error(request_id, METHOD_NOT_FOUND, f"method not found: {method}")
            return
        problems = problems_of(method, params)
        if problems:
            self._unreadable({"id": request_id, "method": method}, INVALID_PARAMS, "; ".join(problems))
            return
        if method == "shutdown":
            self.shut_down = True
            for task in self._requests.values():  # nothing asked before it is answered now but cancelled
                task.cancel()
        try:
            result = handler(params)
        except Exception as error:
            self._answer_failure(request_id, method, error)
            return
        if not asyncio.iscoroutine(result):
            self.send({"id": request_id, "result": result})
            return
        task = asyncio.ensure_future(result)
        self._requests[request_id] = task
        task.add_done_callback(lambda done: self._answer(request_id, method, done))

    def _answer(self, request_id: Any, method: str, done: asyncio.Future[Any]) -> None:
        if self._requests.get(request_id) is done:
            del self._requests[request_id]
        if done.cancelled():
            self.send_error(request_id, REQUEST_CANCELLED, "request cancelled")
            return
        error = done.exception()
        if error is not None:
            self._answer_failure(request_id, method, error)
        else:
            self.send({"id": request_id, "result": done.result()})

    def _answer_failure(self, request_id: Any, method: str, error: BaseException) -> None:
        if isinstance(error, ResponseError):
            self.send_error(request_id, error.code, error.message)
            return
        # A bug of ours: the client is told, the traceback goes to stderr (the client's server log).
        _print_traceback(method, error)
        self.send_error(request_id, INTERNAL_ERROR, f"{method} failed: {type(error).__name__}: {error}")

    def _notification(self, method: str, params: Any) -> None:
        if method != "exit" and (self.shut_down or not self.initialize_seen):
            return
        handler = self.handlers.get(method)
        if handler is None:
            return  # a notification the server does not handle: dropped, as the protocol allows
        problems = problems_of(method, params)
        if problems:
            self._unreadable({"method": method}, INVALID_PARAMS, "; ".join(problems))
            return
        try:
            result = handler(params)
        except Exception as error:
            self._notification_failed(method, error)
            return
        if asyncio.iscoroutine(result):
            task = asyncio.ensure_future(result)
            self._notifications.add(task)  # kept until done: the loop holds tasks only weakly
            task.add_done_callback(lambda done: self._notification_done(method, done))

    def _notification_done(self, method: str, done: asyncio.Future[Any]) -> None:
        self._notifications.discard(done)
        error = None if done.cancelled() else done.exception()
        if error is not None:
            self._notification_failed(method, error)

    def _notification_failed(self, method: str, error: BaseException) -> None:
        _print_traceback(method, error)
        self.log(MESSAGE_ERROR, f"mmlint: {method} failed: {type(error).__name__}: {error}")

    def _cancel_request(self, params: dict[str, Any]) -> None:
        """$/cancelRequest: a request still being handled is answered -32800."""
        task = self._requests.get(params["id"])
        if task is not None:
            task.cancel()

    def _response(self, data: dict[str, Any]) -> None:
        pending = self._pending.get(data["id"])
        if pending is None:
            return  # an answer to nothing we wait for (a request given up on)
        future, check = pending
        if future.done():
            return
        if "error" in data:
            future.set_exception(ResponseError(data["error"]["code"], data["error"]["message"]))
            return
        problems = check(data["result"], "$.result") if check is not None else []
        if problems:
            self._unreadable(data, INVALID_PARAMS, "; ".join(problems))
        else:
            future.set_result(data["result"])

    def _unreadable(self, data: Mapping[str, Any], code: int, reason: str) -> None:
        method, request_id = data.get("method"), data.get("id")
        if "method" not in data and _valid_id(request_id):
            # The client's answer to one of our requests: never answered, but that request fails.
            pending = self._pending.get(request_id)
            if pending is not None and not pending[0].done():
                pending[0].set_exception(ResponseError(INTERNAL_ERROR, f"malformed response: {reason}"))
            self.log(MESSAGE_ERROR, f"mmlint: ignored a malformed response: {reason}")
        elif "method" in data and "id" not in data and code == INVALID_PARAMS:
            self.log(MESSAGE_ERROR, f"mmlint: ignored a malformed {method} notification: {reason}")
        else:
            known_id = request_id if "method" in data and _valid_id(request_id) else None
            what = "params" if code == INVALID_PARAMS else "request"
            self.send_error(known_id, code, f"invalid {what}: {reason}")


def _print_traceback(method: str, error: BaseException) -> None:
    """A bug of ours, for the client's server log (stderr)."""
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    print(f"mmlint: {method} failed:\n{text}", file=sys.stderr, end="")


def _first_line(error: BaseException) -> str:
    lines = split_lines(str(error).strip())
    return lines[0] if lines else type(error).__name__
