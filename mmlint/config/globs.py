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

Each pattern is compiled once to a regular expression (cached).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = ["GlobPattern", "compile_glob", "matches_any"]


@dataclass(frozen=True)
class GlobPattern:
    """One compiled pattern. ``matches`` takes a ``/``-separated path relative to
    the root the pattern is anchored to (no leading ``./``)."""

    pattern: str
    directory_only: bool
    # Matches the path itself or any path below it (the path is a match, or one
    # of its ancestor directories is).
    _self_or_below: re.Pattern[str] = field(repr=False, compare=False)
    # Matches only paths strictly below a match (for directory-only patterns
    # tested against a file: the file itself must not count).
    _strictly_below: re.Pattern[str] = field(repr=False, compare=False)

    def matches(self, relpath: str, *, is_dir: bool = False) -> bool:
        """True if ``relpath`` (a file, or a directory when ``is_dir``) is matched
        by the pattern itself or lies under a directory it matches."""
        relpath = _normalise(relpath)
        if self.directory_only and not is_dir:
            return self._strictly_below.match(relpath) is not None
        return self._self_or_below.match(relpath) is not None


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> GlobPattern:
    """Compile a gitignore-style ``pattern`` (see the module docstring)."""
    body = pattern
    directory_only = body.endswith("/")
    body = body.rstrip("/")
    anchored = "/" in body
    if body.startswith("./"):
        body = body[2:]
    body = body.lstrip("/")
    # A pattern of only slashes names nothing (as in .gitignore); "(?!)" never matches.
    core = _translate(body) if body else "(?!)"
    prefix = "" if anchored else "(?:.*/)?"
    return GlobPattern(
        pattern=pattern,
        directory_only=directory_only,
        _self_or_below=re.compile(f"{prefix}{core}(?:/.*)?\\Z", re.DOTALL),
        _strictly_below=re.compile(f"{prefix}{core}/.*\\Z", re.DOTALL),
    )


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


def _translate(body: str) -> str:
    """The regex for a pattern body (no leading/trailing slashes), segment by segment."""
    segments = body.split("/")
    parts: list[str] = []
    last = len(segments) - 1
    for index, segment in enumerate(segments):
        if segment == "**":
            if index == last:
                # "a/**": everything under a (at least one more segment).
                parts.append(".*")
            else:
                # "**/" (leading or in the middle): zero or more directories.
                parts.append("(?:[^/]*/)*")
            continue
        parts.append(_translate_segment(segment))
        if index != last:
            parts.append("/")
    return "".join(parts)


def _translate_segment(segment: str) -> str:
    """The regex for one path segment: ``*``, ``?``, ``[...]`` and escapes."""
    out: list[str] = []
    i = 0
    n = len(segment)
    while i < n:
        char = segment[i]
        if char == "*":
            # Consecutive stars inside a segment behave as one.
            while i + 1 < n and segment[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(segment[i]))
        elif char == "[":
            end, klass = _translate_class(segment, i)
            if klass is None:
                out.append(re.escape(char))
            else:
                out.append(klass)
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


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
