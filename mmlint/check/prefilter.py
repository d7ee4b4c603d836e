"""The cheap text pass: a file that cannot hold a finding is never parsed.

A file can hold a finding only if its bytes name a twin (MM001, MM002, MM006),
define a coroutine (MM003-MM007 all live in or around an `async def`, and
`async for` / `async with` only occur inside one) or hold an mmlint comment
(MM009), or define a Ray Serve deployment, whose sync methods run on the
replica's event loop (MM005: `deployment`, and `ray.serve` or `from ray
import serve`). Matching `async def` rather than the bare word matters: `import
asyncio` alone would otherwise send about twice as many of sglang's files to
the parser (benchmarks/scan.py --only whole). Every trigger is ASCII, so a byte
search is exact for UTF-8 and every ASCII-compatible encoding a cookie can
declare. A file that cannot hold a finding may still lead to one (a helper
the call graph reaches, a package `__init__` re-exporting a twin): such files
get light-tier facts on demand (mmlint.check.reach), never a full parse.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from mmlint.check.file_index import prefilter_key
from mmlint.core.identifiers import may_hold_unnormalised_identifiers, utf8_may_hold_unnormalised_identifiers
from mmlint.core.source import DecodeError, decode_source
from mmlint.core.twins import TwinPair

# `async` and `def` may be separated by any whitespace, even a line continuation.
_COROUTINE_DEF = re.compile(rb"\basync(?:[ \t\f]|\\(?:\r\n?|\n))+def\b")
# The same, tried only where `async` starts: a pattern opening with `\b` gets
# no literal-prefix search, so searching with it tries every byte of the file.
_DEF_AFTER_ASYNC = re.compile(rb"(?:[ \t\f]|\\(?:\r\n?|\n))+def\b")
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


class Prefilter:
    def __init__(self, twins: Iterable[TwinPair]) -> None:
        words = {b"mmlint:"}
        for pair in twins:
            # The async twin's name need not contain the sync one's.
            words.add(pair.sync.encode("ascii", "backslashreplace"))
            words.add(pair.async_.encode("ascii", "backslashreplace"))
        # A word containing another is found wherever that one is: one search each.
        self.words = tuple(sorted(w for w in words if not any(o != w and o in w for o in words)))
        self.key = prefilter_key(self.words)  # its verdicts' key in the file index

    def could_hold_finding(self, data: bytes) -> bool:
        if self._names_a_trigger(data):
            return True
        text = _decoded_if_not_ascii_based(data)
        # The decoded text is searched as UTF-8 bytes, once: read again as a file,
        # those bytes would still carry the cookie and be decoded over and over.
        if text is not None and self._names_a_trigger(text.encode("utf-8", "surrogatepass")):
            return True
        if text is None:  # UTF-8: only its non-ASCII bytes are looked at, and then rarely decoded
            if not utf8_may_hold_unnormalised_identifiers(data):
                return False
            text = data.decode("utf-8", "replace")
        elif not may_hold_unnormalised_identifiers(text):
            return False
        # Python reads `mm_dａta` (a fullwidth a) as `mm_data`: a name can be spelled
        # with characters NFKC folds into ASCII, which no byte search sees. Such
        # characters are rare outside identifiers (Chinese prose and fullwidth
        # punctuation are not among them), so the text is normalised only when it
        # holds one, and then searched like any other: sound, and nearly free.
        return self._names_a_trigger(unicodedata.normalize("NFKC", text).encode("utf-8", "surrogatepass"))

    def _names_a_trigger(self, data: bytes) -> bool:
        return any(word in data for word in self.words) or _defines_coroutine(data) or _may_define_deployment(data)


def _defines_coroutine(data: bytes) -> bool:
    """Whether ``data`` holds `async def` (as _COROUTINE_DEF matches it)."""
    start = data.find(b"async")
    while start != -1:
        if (start == 0 or data[start - 1] not in _WORD_BYTES) and _DEF_AFTER_ASYNC.match(data, start + 5):
            return True
        start = data.find(b"async", start + 5)
    return False


def _may_define_deployment(data: bytes) -> bool:
    """Whether ``data`` may define a Ray Serve deployment (mmlint.facts.ray_entry):
    it names `deployment` and imports `ray.serve`. Not `ray` as a word alone: in
    vLLM that would send ten more files, `engine/arg_utils.py` among them, to
    the full parse."""
    if b"deployment" not in data:
        return False
    # `import ray.serve`, `from ray.serve import deployment`, `@ray.serve.deployment`.
    if b"ray.serve" in data:
        return True
    # `from ray import serve`, `from ray import (..., serve)` and `from ray import \`
    # continued on the next line: the names imported, up to the end of the statement.
    start = data.find(b"ray import")
    while start != -1:
        names = data[start + 10 : start + 300]
        end = names.find(b")") if names.lstrip(b" \t").startswith(b"(") else _line_end(names)
        if b"serve" in (names if end == -1 else names[:end]):
            return True
        start = data.find(b"ray import", start + 10)
    return False


def _line_end(data: bytes) -> int:
    """Where the logical line starting ``data`` ends (its newline not after a
    backslash), or -1."""
    end = data.find(b"\n")
    while end != -1 and data[:end].rstrip(b"\r").endswith(b"\\"):
        end = data.find(b"\n", end + 1)
    return end


# PEP 263: a cookie in a comment on the first or second line (lines end at
# \n, \r\n or a lone \r, as CPython reads them).
_COOKIE = re.compile(rb"\A(?:[^\r\n]*(?:\r\n?|\n))?[ \t\f]*#[^\r\n]*?coding[:=][ \t]*([-\w.]+)")
_UTF8_NAMES = frozenset({"utf-8", "utf8", "utf_8", "utf-8-sig", "utf_8_sig"})


def _decoded_if_not_ascii_based(data: bytes) -> str | None:
    """The text of a file whose cookie names an encoding other than UTF-8 (such
    as UTF-7, where `async def` need not appear as those bytes), else None. A
    file that does not decode passes, so that the per-file pass reports it (MM999)."""
    match = _COOKIE.match(data)
    if match is None or match.group(1).decode("ascii", "replace").lower() in _UTF8_NAMES:
        return None
    try:
        return decode_source(data)
    except DecodeError:
        return "mmlint:"  # undecodable: let the per-file pass report it
