"""What the reach (mmlint.check.reach) learnt of each file it followed, kept
between runs: a re-check after one file changed follows again only the
names of files whose bytes changed.

A step of the reach, a name asked of a file, leads to other names of the same
file and to names asked of the modules the file's references denote. That
is a function of the file's facts (so of its bytes and whether it was
analysed or read in the light tier) and of the scan's module index (which
files the scan holds, and where): a step is kept under the file's content
digest, and a memo under the digest of the index it was made with. A memo
made with another index is not used at all; a file whose bytes changed has
its steps followed again, and so does a name never asked of it before.
Nothing is taken on trust beyond that: no finding and no fact is kept here,
only which names lead to which."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mmlint.check.reach import Candidate
    from mmlint.facts.model import FileFacts

__all__ = ["REACH_MEMO", "ReachMemo", "Step", "decode_memo", "encode_memo", "index_digest"]

# The options part of the memo's facts-cache key (a full entry's is its twins and budgets).
REACH_MEMO = ("reach memo", 1)

# What following one name of a file gave: the group asked of it when it is a
# light-tier file (mmlint.facts.light_groups; None for an analysed file), the
# names of the same file it leads to, and the (display path, name) pairs of
# other files.
Step = tuple[str | None, tuple[str, ...], tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class ReachMemo:
    index: bytes  # index_digest of the scan it was made in
    by_last: dict[str, list[str]]  # the module index's files by the last part of their module path
    files: dict[str, tuple[bytes, dict[str, Step]]]  # display path -> (content digest, name -> step)


def index_digest(analysed: Mapping[str, FileFacts], candidates: Mapping[str, Candidate]) -> bytes:
    """The digest of what the module index is made of: each analysed file's
    module path and name, and each candidate's path and whether a walk found
    it (so a file that moves between the two, appears or goes, changes it)."""
    digest = hashlib.sha256()
    for shown, facts in analysed.items():
        digest.update(f"a\0{shown}\0{facts.module}\0{chr(1).join(facts.module_path)}\n".encode("utf-8", "surrogateescape"))
    for shown, candidate in candidates.items():
        digest.update(f"c\0{shown}\0{candidate.real}\0{int(candidate.walked)}\n".encode("utf-8", "surrogateescape"))
    return digest.digest()


def encode_memo(memo: ReachMemo) -> tuple[bytes, dict[str, list[str]], dict[str, tuple[bytes, dict[str, Step]]]]:
    """Plain data for the cache (tuples, dicts, strings and bytes)."""
    return memo.index, memo.by_last, memo.files


def decode_memo(data: object) -> ReachMemo:
    """The memo ``data`` holds; raises ValueError for anything not of the shape encode_memo gives."""
    if type(data) is not tuple or len(data) != 3:
        raise ValueError("not a reach memo")
    index, by_last, files = data
    if type(index) is not bytes or type(by_last) is not dict or type(files) is not dict:
        raise ValueError("not a reach memo")
    for last, shown in by_last.items():
        if type(last) is not str or type(shown) is not list or not all(type(item) is str for item in shown):
            raise ValueError("a reach memo's index is not strings")
    for shown, entry in files.items():
        if type(shown) is not str or type(entry) is not tuple or len(entry) != 2:
            raise ValueError("a reach memo's file is not (digest, steps)")
        digest, steps = entry
        if type(digest) is not bytes or type(steps) is not dict:
            raise ValueError("a reach memo's file is not (digest, steps)")
        for name, step in steps.items():
            if type(name) is not str or not _is_step(step):
                raise ValueError("a reach memo's step is not (group, names, pairs)")
    return ReachMemo(index, by_last, files)


def _is_step(step: object) -> bool:
    if type(step) is not tuple or len(step) != 3:
        return False
    group, local, matched = step
    return (
        (group is None or type(group) is str)
        and type(local) is tuple
        and all(type(name) is str for name in local)
        and type(matched) is tuple
        and all(type(pair) is tuple and len(pair) == 2 and type(pair[0]) is str and type(pair[1]) is str for pair in matched)
    )
