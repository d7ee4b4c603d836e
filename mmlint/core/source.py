"""Reading source files as bytes and decoding them the way Python would."""

from __future__ import annotations

import codecs
import re
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DecodeError(Exception):
    """The bytes are not valid in the file's declared encoding."""

    message: str
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return self.message


def detect_encoding(data: bytes) -> str:
    """The encoding Python reads ``data`` with (BOM, then a PEP 263 cookie in the
    first two lines, else UTF-8). The lines are Python's: a cookie line may end
    with a lone CR, which ``tokenize.detect_encoding`` over ``BytesIO.readline``
    (split at LF only) would read together with the rest of the file. Raises
    ``SyntaxError`` for an unknown cookie or a BOM and cookie that disagree."""
    lines = iter(data.splitlines(keepends=True))  # bytes split at \n, \r\n and \r only
    return tokenize.detect_encoding(lambda: next(lines, b""))[0]


def decode_source(data: bytes) -> str:
    """Decode with the encoding Python would use (BOM, then PEP 263 cookie, else
    UTF-8): the one decoder of source text. It decodes once and never looks at
    the text again for a cookie, so no encoding can make it recurse."""
    try:
        return decode_keeping_format(data)[0]
    except SyntaxError as error:  # unknown encoding name, or BOM and cookie disagree
        raise DecodeError(str(error)) from None
    except UnicodeDecodeError as error:
        encoding, body, start = error.encoding, error.object, error.start  # body: the bytes after a BOM
        line = body.count(b"\n", 0, start) + 1
        line_start = body.rfind(b"\n", 0, start) + 1
        column = len(body[line_start:start].decode(encoding, errors="replace")) + 1
        offset = start + len(data) - len(body)
        raise DecodeError(f"not valid {encoding}: {error.reason} at byte {offset}", line, column) from None
    except LookupError as error:
        raise DecodeError(f"unknown encoding: {error}") from None


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


def python_tokens(text: str) -> list[tokenize.TokenInfo]:
    """Every token of ``text`` (see ``iter_python_tokens``)."""
    return list(iter_python_tokens(text))


def iter_python_tokens(text: str) -> Iterator[tokenize.TokenInfo]:
    """The tokens of ``text`` as Python reads it, lines split at \\n, \\r\\n and \\r
    (``io.StringIO.readline`` splits at \\n only, and before Python 3.12 the
    tokenizer takes a lone CR for an error token, not a line end). A lone CR
    is read as LF, as CPython's own tokenizer does: same length, so every
    position is the same. Raises ``tokenize.TokenError`` / ``SyntaxError``."""
    lines = split_lines(_LONE_CR.sub("\n", text), keepends=True)
    return tokenize.generate_tokens(iter(lines).__next__)


_LONE_CR = re.compile(r"\r(?!\n)")


# The blanks that start a line, up to and including the last form feed among them.
_INDENT_THROUGH_FORM_FEED = re.compile(r"[ \t\f]*\f")


def indentation_view(text: str) -> tuple[str, dict[int, int]]:
    """``text`` without the blanks up to the last form feed at the start of a
    line, and how many characters each such line lost (1-based line -> count).

    Python resets its indentation count at a form feed in a line's leading
    blanks (so ``"\\f        y"`` is indented 8, whatever came before); libcst
    does not, and rejects or misreads such a block. Without them the view means
    the same to Python, libcst reads it, and a position on a changed line is the
    original one shifted by the count. On a line without code (blank, or only a
    comment), whose indentation means nothing, each such form feed becomes a
    space instead: emptied, a line ended by LF after a lone CR would make one
    CRLF of the two, and every later line would move up. The file itself is
    never changed: fixes are edits of the original text."""
    if "\f" not in text:
        return text, {}
    pieces: list[str] = []
    removed: dict[int, int] = {}
    for number, line in enumerate(split_lines(text, keepends=True), start=1):
        match = _INDENT_THROUGH_FORM_FEED.match(line)
        if match:
            rest = line[match.end() :].lstrip(" \t\f")
            if rest[:1] in ("", "#", "\r", "\n"):
                line = match.group().replace("\f", " ") + line[match.end() :]
            else:
                removed[number] = match.end()
                line = line[match.end() :]
        pieces.append(line)
    return "".join(pieces), removed


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
    encoding = detect_encoding(source)
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
