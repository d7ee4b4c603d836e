"""Reading source files as bytes and decoding them the way Python would."""

from __future__ import annotations

import codecs
import io
import re
import tokenize
from collections.abc import Callable
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


# Python's physical line breaks, the tokenizer's: \n, \r\n and \r only. str.splitlines
# would also split at \f, \v, \x1c-\x1e, \x85, U+2028 and U+2029, which Python
# keeps inside a line (in comments and strings, or as whitespace), and so shift
# every line number after them. Every line split in mmlint goes through here.
LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str, keepends: bool = False) -> list[str]:
    """``text`` split into Python's physical lines (like ``str.splitlines``, but
    only at \\n, \\r\\n and \\r): no empty last item for a final line break."""
    if keepends:
        starts = line_starts(text)
        lines = [text[start:end] for start, end in zip(starts, starts[1:] + [len(text)])]
    else:
        lines = LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def line_starts(text: str) -> list[int]:
    """The offset in ``text`` where each physical line starts (the first is 0; a
    line break at the very end starts one more, empty, line)."""
    return [0] + [match.end() for match in LINE_BREAK.finditer(text)]


def source_lines(data: bytes) -> list[str]:
    """The decoded lines (without line endings), split where Python counts lines
    (see ``split_lines``). Empty when the bytes do not decode."""
    try:
        text = decode_source(data)
    except DecodeError:
        return []
    return split_lines(text)


def decode_keeping_format(source: bytes) -> tuple[str, Callable[[str], bytes]]:
    """The text of ``source`` as Python decodes it, and a function that encodes a
    text back the same way (same codec, BOM kept). Raises ``SyntaxError`` for an
    unknown cookie and ``UnicodeDecodeError`` for invalid bytes."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    has_bom = source.startswith(codecs.BOM_UTF8)
    body = source[len(codecs.BOM_UTF8) :] if has_bom else source
    codec = "utf-8" if encoding == "utf-8-sig" else encoding
    prefix = codecs.BOM_UTF8 if has_bom else b""
    return body.decode(codec), lambda text: prefix + text.encode(codec)


def round_trips(data: bytes) -> bool:
    """Whether decoding ``data`` and encoding the text back gives the same bytes
    (not so for some UTF-7 spellings): only then can text edits leave every
    other byte alone."""
    try:
        text, encode = decode_keeping_format(data)
        return encode(text) == data
    except (SyntaxError, UnicodeError, LookupError):
        return False
