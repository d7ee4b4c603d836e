"""Gitignore-style glob matching of POSIX relative paths.

Semantics (those of ``.gitignore``, minus negation):

* ``*`` and ``?`` never cross ``/``; ``[...]`` is a character class (``[!...]``
  or ``[^...]`` negates it) that never matches ``/``; ``\\x`` is a literal ``x``.
* ``**`` as a whole path segment matches any number of directories, zero
  included: ``**/tests/**`` matches ``tests/a.py`` and ``a/b/tests/c/d.py``.
  A ``**`` inside a segment (``a**b``) is an ordinary ``*``.
* A pattern without a ``/`` (a trailing one aside) matches the basename at any
  depth; a pattern with a ``/`` is anchored to the configuration root (a
  leading ``/`` or ``./`` only anchors it and is otherwise ignored).
* A pattern that matches a directory matches everything under it, and a
  trailing ``/`` restricts a pattern to directories: ``build/`` matches
  ``build/x.py`` and ``src/build/y.py`` but not a file named ``build``.

Each pattern is compiled once (cached) into path segments, matched without
backtracking blow-up: a configuration is the repository's text, and a
backtracking regular expression for ``*a*a*a*a*a*a*a*a*b`` takes exponential
time on a long name (so does pathspec's, which translates to one). ``**``
segments and ``*`` inside a segment are each matched by the greedy
two-pointer wildcard algorithm, whose cost is at most the product of the
lengths (see ``_wildcard_match``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar, Union

__all__ = ["GlobPattern", "compile_glob", "matches_any"]


# A compiled segment: a literal name, or a list of tokens for _wildcard_match.
_Segment = Union[str, "tuple[object, ...]", object]
T = TypeVar("T")
# Tokens of a segment and of a path: `*` (any run, zero included), `?` (one
# item), a literal character, a character class (a compiled one-character regex).
_STAR = object()
_ONE = object()
# A path pattern's item: a segment, or _STAR for any number of segments (`**`).


@dataclass(frozen=True)
class GlobPattern:
    """One compiled pattern. ``matches`` takes a ``/``-separated path relative to
    the root the pattern is anchored to (no leading ``./``)."""

    pattern: str
    directory_only: bool
    # The path's segments the pattern matches whole (a trailing `**` matches
    # one segment or more: `a/**` is everything under `a`).
    _items: tuple[object, ...] = field(repr=False, compare=False)

    def matches(self, relpath: str, *, is_dir: bool = False) -> bool:
        """True if ``relpath`` (a file, or a directory when ``is_dir``) is matched
        by the pattern itself or lies under a directory it matches."""
        parts = _normalise(relpath).split("/")
        if self.directory_only and not is_dir:
            # Only what lies strictly below a match: the file itself must not count.
            return _wildcard_match(self._items + (_ONE, _STAR), parts, _segment_matches)
        return _wildcard_match(self._items + (_STAR,), parts, _segment_matches)

    def matches_itself(self, relpath: str, *, is_dir: bool = False) -> bool:
        """True if the pattern matches ``relpath`` itself, not for lying under a
        match (a `.gitignore` pattern, as git reads it)."""
        if self.directory_only and not is_dir:
            return False
        return _wildcard_match(self._items, _normalise(relpath).split("/"), _segment_matches)


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> GlobPattern:
    """Compile a gitignore-style ``pattern`` (see the module docstring)."""
    body, directory_only, anchored = split_pattern(pattern)
    if not body:  # a pattern of only slashes names nothing (as in .gitignore)
        return GlobPattern(pattern, directory_only, (_NOTHING,))
    items: list[object] = [] if anchored else [_STAR]  # no "/": the basename at any depth
    segments = body.split("/")
    for index, segment in enumerate(segments):
        if segment == "**":
            if index == len(segments) - 1:
                items.append(_ONE)  # "a/**": everything under a (at least one more segment)
            if not items or items[-1] is not _STAR:
                items.append(_STAR)
            continue
        items.append(_compile_segment(segment))
    return GlobPattern(pattern, directory_only, tuple(items))


def glob_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a glob mmlint can match as written (an unclosed
    ``[``, a class whose range runs backwards), or None. Git would quietly read
    such a pattern as one that matches nothing; a configuration says so."""
    if "\x00" in pattern:  # no file name holds one
        return "it holds a NUL character"
    body = split_pattern(pattern)[0]
    for segment in body.split("/"):
        i = 0
        while i < len(segment):
            if segment[i] == "\\":
                i += 2
                continue
            if segment[i] == "[":
                end, klass = _translate_class(segment, i)
                if klass is None:
                    return f"the `[` at {i + 1} in {segment!r} opens a character class that is never closed (write `\\[` for a literal one)"
                try:
                    re.compile(klass)
                except re.error as error:
                    return f"bad character class {segment[i : end + 1]!r}: {error}"
                i = end
            i += 1
    return None


def split_pattern(pattern: str) -> tuple[str, bool, bool]:
    """``pattern``'s body (without the slashes and ``./`` that only anchor or
    mark it), whether it names directories only (a trailing ``/``) and whether
    it is anchored to the root (a ``/`` elsewhere)."""
    directory_only = pattern.endswith("/")
    body = pattern.rstrip("/")
    anchored = "/" in body
    if body.startswith("./"):
        body = body[2:]
    return body.lstrip("/"), directory_only, anchored


def matches_any(relpath: str, patterns: Iterable[str | GlobPattern], *, is_dir: bool = False) -> bool:
    """True if any of ``patterns`` (strings or compiled) matches ``relpath``."""
    for pattern in patterns:
        compiled = compile_glob(pattern) if isinstance(pattern, str) else pattern
        if compiled.matches(relpath, is_dir=is_dir):
            return True
    return False


def _normalise(relpath: str) -> str:
    while relpath.startswith("./"):
        relpath = relpath[2:]
    return relpath


_NOTHING = object()  # a segment no name matches


def _compile_segment(segment: str) -> _Segment:
    """A literal name, or the tokens of a segment with wildcards, classes or escapes."""
    if not any(char in segment for char in "*?[\\"):
        return segment
    tokens: list[object] = []
    i = 0
    n = len(segment)
    while i < n:
        char = segment[i]
        if char == "*":
            # Consecutive stars inside a segment behave as one.
            while i + 1 < n and segment[i + 1] == "*":
                i += 1
            tokens.append(_STAR)
        elif char == "?":
            tokens.append(_ONE)
        elif char == "\\" and i + 1 < n:
            i += 1
            tokens.append(segment[i])
        elif char == "[":
            end, klass = _translate_class(segment, i)
            if klass is None:
                tokens.append(char)
            else:
                tokens.append(re.compile(klass, re.DOTALL))
                i = end
        else:
            tokens.append(char)
        i += 1
    return tuple(tokens)


def _segment_matches(item: _Segment, name: str) -> bool:
    if type(item) is str:
        return item == name
    if item is _NOTHING:
        return False
    assert isinstance(item, tuple)  # the tokens of a segment with wildcards
    return _wildcard_match(item, name, _char_matches)


def _char_matches(token: str | re.Pattern[str], char: str) -> bool:
    if isinstance(token, str):
        return token == char
    return token.match(char) is not None


def _wildcard_match(tokens: Sequence[object], items: Sequence[T], item_matches: Callable[[Any, T], bool]) -> bool:
    """Whether ``tokens`` match the whole sequence ``items``: ``_STAR`` takes any
    run of items, ``_ONE`` any one item, every other token one item that
    ``item_matches``. Greedy, going back only to the last star (an earlier star
    could only take less of what the last one can take): at most
    len(tokens) * len(items) steps, never exponential."""
    t = i = 0
    star = -1  # the token index after the last star seen
    resume = 0  # where the last star's run ends for now
    n_tokens, n_items = len(tokens), len(items)
    while i < n_items:
        if t < n_tokens:
            token = tokens[t]
            if token is _STAR:
                t += 1
                star, resume = t, i
                continue
            if token is _ONE or item_matches(token, items[i]):
                t += 1
                i += 1
                continue
        if star == -1:
            return False
        resume += 1  # the last star takes one more item
        t, i = star, resume
    while t < n_tokens and tokens[t] is _STAR:
        t += 1
    return t == n_tokens


def _translate_class(segment: str, start: int) -> tuple[int, str | None]:
    """Translate the class opening at ``segment[start] == '['``.

    Returns the index of its closing ``]`` and the regex, or ``(start, None)``
    when the bracket is never closed (it is then a literal ``[``)."""
    i = start + 1
    negate = i < len(segment) and segment[i] in "!^"
    if negate:
        i += 1
    members_start = i
    # A "]" right after the opening (or the negation) is a member, not the end.
    if i < len(segment) and segment[i] == "]":
        i += 1
    while i < len(segment) and segment[i] != "]":
        if segment[i] == "\\":
            i += 1
        i += 1
    if i >= len(segment):
        return start, None
    members = segment[members_start:i]
    escaped = []
    j = 0
    while j < len(members):
        char = members[j]
        if char == "\\" and j + 1 < len(members):
            j += 1
            escaped.append(re.escape(members[j]))
        elif char == "-" and 0 < j < len(members) - 1:
            escaped.append("-")
        else:
            escaped.append(re.escape(char) if char in "\\^[]-" else char)
        j += 1
    # A class never matches the separator; a positive one cannot name it (patterns
    # are split on "/" before classes are read), a negated one must exclude it.
    klass = f"[^/{''.join(escaped)}]" if negate else f"[{''.join(escaped)}]"
    return i, klass
