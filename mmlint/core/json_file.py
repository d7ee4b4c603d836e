"""Read a JSON file a user names (a report, a confirm report) safely: a
regular file only (never a FIFO or a device that blocks or never ends), at
most ``max_bytes``, nesting at most ``max_depth`` deep, UTF-8. Every failure
is one JsonFileError whose message names the file, for an exit 2 or a usage
error, never a traceback."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

MAX_JSON_BYTES = 64 * 1024 * 1024
MAX_JSON_DEPTH = 64


class JsonFileError(Exception):
    """A JSON file that cannot be read or is not JSON: the message names it."""


def read_json_file(path: Path, *, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH) -> Any:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise JsonFileError(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise JsonFileError(f"{path}: not a regular file")
        if info.st_size > max_bytes:
            raise JsonFileError(f"{path}: larger than {max_bytes} bytes")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1 << 20):  # the size may have grown since fstat
            size += len(chunk)
            if size > max_bytes:
                raise JsonFileError(f"{path}: larger than {max_bytes} bytes")
            chunks.append(chunk)
    except OSError as error:
        raise JsonFileError(f"{path}: cannot read: {error.strerror or error}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if _depth(data) > max_depth:
        raise JsonFileError(f"{path}: JSON nested deeper than {max_depth} levels")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise JsonFileError(f"{path}: not valid JSON: {error}") from None


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(rb"[\[\]{}]")


def _depth(data: bytes) -> int:
    """The deepest bracket nesting outside strings, before json.loads recurses."""
    depth = deepest = 0
    for found in _BRACKET.finditer(_STRING.sub(b"", data)):
        if found.group() in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest
