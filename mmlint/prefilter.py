"""The cheap text pass: a file that cannot hold a finding is never parsed.

A file can hold a finding only if its bytes name a twin (MM001, MM002, MM006),
contain ``async`` (MM003-MM007 all live in async code) or hold an mmlint
comment (MM009). Every twin name and these words are ASCII, so a byte search is
exact for UTF-8 and every ASCII-compatible encoding a cookie can declare.
"""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.facts.model import TwinPair


def trigger_words(twins: Iterable[TwinPair]) -> tuple[bytes, ...]:
    words = {b"async", b"mmlint:"}
    for pair in twins:
        # The async twin's name need not contain the sync one's.
        words.add(pair.sync.encode("ascii", "backslashreplace"))
        words.add(pair.async_.encode("ascii", "backslashreplace"))
    return tuple(sorted(words))


def could_hold_finding(data: bytes, triggers: tuple[bytes, ...]) -> bool:
    return any(word in data for word in triggers)
