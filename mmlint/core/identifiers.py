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
    if text.isascii():
        return False
    return any(
        not char.isascii() and ("a" + char).isidentifier() and unicodedata.normalize("NFKC", char) != char
        for char in set(text)
    )
