"""What the params of each message the server handles must hold, checked
before a handler reads them: a request whose params have the wrong shape is
answered -32602 with each problem and where it is (``$.params.range``), a
malformed notification is logged, never half handled.

Only what the handlers read is checked (and what the protocol requires of
it); other fields pass, as the protocol's later versions add them. The
client's capabilities are read defensively instead (mmlint.server.handshake):
a capability of an odd shape is one the client does not have."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

# A check: the value and where it is → each problem, as "what @ where".
Check = Callable[[Any, str], list[str]]


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _scalar(name: str, accepts: Callable[[Any], bool]) -> Check:
    def check(value: Any, where: str) -> list[str]:
        return [] if accepts(value) else [f"expected {name}, got {_kind(value)} @ {where}"]

    return check


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


STRING = _scalar("a string", lambda value: isinstance(value, str))
INTEGER = _scalar("an integer", _is_int)
BOOLEAN = _scalar("a boolean", lambda value: isinstance(value, bool))
UINTEGER = _scalar("an integer from 0", lambda value: _is_int(value) and value >= 0)


def ANY(value: Any, where: str) -> list[str]:  # noqa: N802 - a check, named as the others
    return []


def nullable(check: Check) -> Check:
    return lambda value, where: [] if value is None else check(value, where)


def array(item: Check) -> Check:
    def check(value: Any, where: str) -> list[str]:
        if not isinstance(value, list):
            return [f"expected an array, got {_kind(value)} @ {where}"]
        return [problem for index, element in enumerate(value) for problem in item(element, f"{where}[{index}]")]

    return check


def obj(required: Mapping[str, Check], optional: Mapping[str, Check] | None = None) -> Check:
    """An object with the ``required`` fields and, when present, the ``optional`` ones."""

    def check(value: Any, where: str) -> list[str]:
        if not isinstance(value, dict):
            return [f"expected an object, got {_kind(value)} @ {where}"]
        problems = []
        for name, field in required.items():
            if name not in value:
                problems.append(f"required field missing @ {where}.{name}")
            else:
                problems += field(value[name], f"{where}.{name}")
        for name, field in (optional or {}).items():
            if name in value:
                problems += field(value[name], f"{where}.{name}")
        return problems

    return check


def either(*checks: Check) -> Check:
    """The first check that passes; else the problems of the last one."""

    def check(value: Any, where: str) -> list[str]:
        problems: list[str] = []
        for alternative in checks:
            problems = alternative(value, where)
            if not problems:
                return []
        return problems

    return check


POSITION = obj({"line": UINTEGER, "character": UINTEGER})
RANGE = obj({"start": POSITION, "end": POSITION})
DOCUMENT = obj({"uri": STRING})
VERSIONED_DOCUMENT = obj({"uri": STRING, "version": INTEGER})
FOLDER = obj({"uri": STRING, "name": STRING})
# A change of a range (its rangeLength is deprecated and never read), else of the whole text.
CONTENT_CHANGE = either(
    obj({"range": RANGE, "text": STRING}, {"rangeLength": nullable(UINTEGER)}),
    obj({"text": STRING}),
)

PARAMS: dict[str, Check] = {
    "initialize": obj(
        {"capabilities": ANY},
        {
            "processId": nullable(INTEGER),
            "rootUri": nullable(STRING),
            "rootPath": nullable(STRING),
            "workspaceFolders": nullable(array(FOLDER)),
        },
    ),
    "textDocument/didOpen": obj(
        {"textDocument": obj({"uri": STRING, "languageId": STRING, "version": INTEGER, "text": STRING})}
    ),
    "textDocument/didChange": obj({"textDocument": VERSIONED_DOCUMENT, "contentChanges": array(CONTENT_CHANGE)}),
    "textDocument/didSave": obj({"textDocument": DOCUMENT}, {"text": nullable(STRING)}),
    "textDocument/didClose": obj({"textDocument": DOCUMENT}),
    "textDocument/codeAction": obj(
        {
            "textDocument": DOCUMENT,
            "range": RANGE,
            "context": obj({"diagnostics": array(ANY)}, {"only": nullable(array(STRING))}),
        }
    ),
    "textDocument/hover": obj({"textDocument": DOCUMENT, "position": POSITION}),
    "workspace/executeCommand": obj({"command": STRING}, {"arguments": nullable(array(ANY))}),
    "workspace/didChangeConfiguration": obj({}, {"settings": ANY}),
    "workspace/didChangeWatchedFiles": obj({"changes": array(obj({"uri": STRING, "type": INTEGER}))}),
    "workspace/didChangeWorkspaceFolders": obj({"event": obj({"added": array(FOLDER), "removed": array(FOLDER)})}),
    "$/cancelRequest": obj({"id": either(INTEGER, STRING)}),
}


def problems_of(method: str, params: Any) -> list[str]:
    """What is wrong with ``params`` for ``method`` (nothing for a method without a check)."""
    check = PARAMS.get(method)
    if check is None:
        return []
    return check(params, "$.params")
