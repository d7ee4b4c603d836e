"""Reading source files as bytes and decoding them the way Python would."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DecodeError(Exception):
    """The bytes are not valid in the file's declared encoding."""

    message: str
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return self.message


def decode_source(data: bytes) -> str:
    """Decode with the encoding Python would use (BOM, then PEP 263 cookie, else UTF-8)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:  # unknown encoding name, or BOM and cookie disagree
        raise DecodeError(str(error)) from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        line_start = data.rfind(b"\n", 0, error.start) + 1
        column = len(data[line_start : error.start].decode(encoding, errors="replace")) + 1
        raise DecodeError(f"not valid {encoding}: {error.reason} at byte {error.start}", line, column) from None
    except LookupError:
        raise DecodeError(f"unknown encoding {encoding!r}") from None


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def source_lines(data: bytes) -> list[str]:
    """The decoded lines (without line endings), split where Python counts lines:
    at \\n, \\r\\n and \\r only (str.splitlines also splits at form feeds, U+2028,
    ..., which would shift line numbers). Empty when the bytes do not decode."""
    try:
        text = decode_source(data)
    except DecodeError:
        return []
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines
