"""Identifiers as Python compares them: NFKC-normalised (PEP 3131), so
`process_and_combine_mm_dａta` (a fullwidth `a`) names the same function as
`process_and_combine_mm_data`. An ASCII name, nearly every one, costs one check."""

from __future__ import annotations

import unicodedata


def normalise_identifier(name: str) -> str:
    """``name`` as Python binds it (a dotted name part by part alike)."""
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


def may_hold_unnormalised_identifiers(text: str) -> bool:
    """Whether ``text`` holds a character that NFKC changes and that can be
    part of an identifier (a fullwidth or mathematical letter, a ligature):
    only then can an identifier in it differ from its normalised spelling.
    Chinese prose and fullwidth punctuation in comments and strings do not
    count: they are no identifier characters."""
    return not text.isascii() and utf8_may_hold_unnormalised_identifiers(text.encode("utf-8", "surrogatepass"))


_ASCII_BYTES = bytes(range(128))


def utf8_may_hold_unnormalised_identifiers(data: bytes) -> bool:
    """``may_hold_unnormalised_identifiers`` of UTF-8 ``data``. Only its
    non-ASCII characters are looked at: deleting the ASCII bytes leaves whole
    UTF-8 sequences, a small fraction of a file, at C speed."""
    if data.isascii():
        return False
    others = set(data.translate(None, _ASCII_BYTES).decode("utf-8", "ignore"))
    return any(("a" + char).isidentifier() and unicodedata.normalize("NFKC", char) != char for char in others)
