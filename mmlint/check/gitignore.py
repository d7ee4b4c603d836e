"""The ``.gitignore`` rules a directory walk honours, as git (and ruff) read them.

Sources, from the lowest precedence to the highest: ``info/exclude`` of the
repository, then the ``.gitignore`` of each directory from the repository root
down to the directory being walked, each pattern relative to the directory of
its file. The last matching pattern wins, and a deeper file beats a shallower
one, so ``!keep.py`` in ``pkg/.gitignore`` re-includes what ``*.py`` at the
root ignored (a file inside an ignored directory cannot be re-included: the
walk never enters that directory, as in git). The repository root is the
closest directory at or above the walk that holds ``.git``; a directory below
it that holds its own ``.git`` (a submodule, a nested clone) starts afresh.
Outside a repository the ``.gitignore`` files are honoured all the same, from
the ``top`` the caller gives (the configuration's directory) downward. A walk
that starts inside an ignored directory (it was named explicitly) honours only
the ``.gitignore`` files inside that directory.

Pattern semantics (``dir/``, anchoring, ``**``) are those of the configuration's
globs (mmlint.config.globs), matched in linear time: a ``.gitignore`` is the
repository's text, and pathspec's regular expressions backtrack exponentially
on a pattern such as ``*a*a*a*a*a*a*a*a*b``. Lines are read as git reads them:
``#`` comments, trailing blanks dropped unless escaped, ``!`` negates, ``\\!``
and ``\\#`` are literal. The global ``core.excludesFile`` is not read. A
``.gitignore`` that is not a regular file, or larger than git's own limit
(100 MiB), is not applied, with a warning (mmlint.core.safe_read).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from mmlint.config.globs import GlobPattern, compile_glob
from mmlint.core.safe_read import GIT_POINTER_MAX_BYTES, GITIGNORE_MAX_BYTES, read_placed_bytes

__all__ = ["IgnoreRules", "find_repository_root"]

GITIGNORE = ".gitignore"


@dataclass(frozen=True)
class _Level:
    """The patterns of one file, in order, each with whether it is negated (``!``),
    matched relative to ``base`` (absolute)."""

    base: str
    patterns: tuple[tuple[GlobPattern, bool], ...]

    def verdict(self, path: str, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included by a ``!`` pattern; None: no pattern matches."""
        relative = path[len(self.base) :].lstrip(os.sep).replace(os.sep, "/")
        # The last pattern matching the path itself wins, as in git: what lies
        # under an ignored directory is never asked about, the walk skips it.
        for pattern, negated in reversed(self.patterns):
            if pattern.matches_itself(relative, is_dir=is_dir):
                return not negated
        return None


@dataclass(frozen=True)
class IgnoreRules:
    """The rules in force inside one directory; ``enter`` gives a child's."""

    levels: tuple[_Level, ...]
    warn: Callable[[str], None]

    @classmethod
    def for_walk(cls, directory: str, top: str, warn: Callable[[str], None]) -> IgnoreRules:
        """The rules in force inside ``directory`` (absolute), where a walk starts:
        those of every directory from the repository root (else from ``top``
        when ``directory`` lies under it, else from ``directory`` itself) down to it."""
        repository = find_repository_root(directory)
        start = repository or (top if _is_under(directory, top) else directory)
        chain = [directory]
        while chain[-1] != start:
            chain.append(os.path.dirname(chain[-1]))
        rules = cls((), warn)
        for ancestor in reversed(chain):
            if ancestor != start and rules.ignores(ancestor, is_dir=True):
                # The walk was asked for an ignored directory (as ruff, it is read):
                # the patterns that ignore it would match everything below it, so
                # only the .gitignore files inside it apply.
                rules = cls((), warn)
            rules = rules.enter(ancestor)
        return rules

    def enter(self, directory: str) -> IgnoreRules:
        """The rules inside ``directory``, a child of the directory these rules are for."""
        levels = self.levels
        git = os.path.join(directory, ".git")
        if os.path.lexists(git):
            # A repository's root: the rules of the enclosing one stop here.
            levels = self._levels_of(_info_exclude(git), directory)
        levels += self._levels_of(os.path.join(directory, GITIGNORE), directory)
        return self if levels is self.levels else IgnoreRules(levels, self.warn)

    def ignores(self, path: str, *, is_dir: bool) -> bool:
        for level in reversed(self.levels):
            verdict = level.verdict(path, is_dir)
            if verdict is not None:
                return verdict
        return False

    def _levels_of(self, ignore_file: str | None, base: str) -> tuple[_Level, ...]:
        if ignore_file is None or not os.path.lexists(ignore_file):
            return ()
        try:
            text = read_placed_bytes(ignore_file, GITIGNORE_MAX_BYTES).decode("utf-8", "surrogateescape")
        except OSError as error:  # a FIFO, a device, too large (mmlint.core.safe_read), unreadable
            self.warn(f"{ignore_file}: cannot read: {error.strerror or error}; its patterns are not applied")
            return ()
        patterns = _compile(text.splitlines())
        return (_Level(base, patterns),) if patterns else ()


def find_repository_root(directory: str) -> str | None:
    """The closest directory at or above ``directory`` (absolute) holding ``.git``."""
    current = directory
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


_TRAILING_BLANKS = re.compile(r"(?<!\\)[ \t]+$")  # blanks not escaped by a backslash


def _compile(lines: list[str]) -> tuple[tuple[GlobPattern, bool], ...]:
    """The patterns of a ``.gitignore``'s lines, as git reads them."""
    patterns = []
    for line in lines:
        if line.startswith("#"):
            continue
        line = _TRAILING_BLANKS.sub("", line)
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        if line.startswith(("\\!", "\\#")):
            line = line[1:]
        if not line:
            continue
        patterns.append((compile_glob(line), negated))
    return tuple(patterns)


def _info_exclude(git: str) -> str | None:
    """``info/exclude`` of the repository whose ``.git`` is ``git``: a directory,
    or (worktrees, submodules) a file ``gitdir: PATH`` pointing at one, whose
    ``commondir`` names the directory that holds ``info/``."""
    if os.path.isdir(git):
        return os.path.join(git, "info", "exclude")
    try:
        first = read_placed_bytes(git, GIT_POINTER_MAX_BYTES).decode("utf-8").partition("\n")[0].strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("gitdir:"):
        return None
    gitdir = os.path.join(os.path.dirname(git), first[len("gitdir:") :].strip())
    common = gitdir
    try:
        common = os.path.join(
            gitdir, read_placed_bytes(os.path.join(gitdir, "commondir"), GIT_POINTER_MAX_BYTES).decode("utf-8").strip()
        )
    except (OSError, UnicodeDecodeError, ValueError):  # ValueError: a NUL in the path
        pass
    return os.path.join(common, "info", "exclude")


def _is_under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)
