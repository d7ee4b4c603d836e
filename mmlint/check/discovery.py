"""Which files a run reads.

PATHs given on the command line (or, without them, the configured ``paths``,
else the current directory) are expanded: directories are walked recursively
for ``*.py`` and ``*.pyi``, skipping hidden entries, ``__pycache__``, virtual
environments, the usual build and environment folders (DEFAULT_EXCLUDES, as
ruff), what ``.gitignore`` ignores (unless ``respect-gitignore = false``; see
mmlint.check.gitignore), ``exclude`` / ``extend-exclude`` globs and symbolic links
(to files or directories: a walk never leaves the tree it was given). A file
named explicitly is read whatever its name (pre-commit passes files one by
one), even if gitignored, a link or inside a default-excluded folder, but
``exclude`` still applies to it. A directory the walk cannot read is skipped
with a warning; a PATH that cannot be read is an error.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mmlint.check.gitignore import IgnoreRules
from mmlint.config.globs import GlobPattern, compile_glob
from mmlint.core.paths import display_path
from mmlint.config.settings import Settings

__all__ = ["DEFAULT_EXCLUDES", "Discovery", "DiscoveryError", "context_files", "discover", "glob_relpath"]

SOURCE_SUFFIXES = (".py", ".pyi")
# Conventional names of virtual environments; skipped when they really hold one
# (an `env` package in a project is ordinary code; `venv` is a default exclude).
VENV_NAMES = frozenset({"venv", ".venv", "env"})
# Directory names a walk skips at any depth below where it starts, whatever the
# configuration says (ruff's defaults): build output, caches, environments and
# VCS metadata. Naming such a directory (or a file in it) explicitly reads it.
DEFAULT_EXCLUDES = frozenset({
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".mypy_cache", ".nox", ".pants.d",
    ".pytype", ".ruff_cache", ".svn", ".tox", ".venv", "__pypackages__", "_build", "buck-out",
    "build", "dist", "node_modules", "site-packages", "venv",
})


class DiscoveryError(Exception):
    """A PATH that does not exist or cannot be read (exit code 2); ``str()`` is
    one line naming it."""


@dataclass(frozen=True)
class Discovery:
    files: tuple[Path, ...]  # absolute, sorted, deduplicated
    # Files named on the command line that `exclude` removed (the CLI may say so).
    explicitly_excluded: tuple[Path, ...]
    # True when no PATH was given: the configured paths (or the cwd) were scanned.
    full_scan: bool
    # One line each, for stderr: what the walk had to skip (an unreadable directory).
    warnings: tuple[str, ...] = ()


def discover(paths: Sequence[Path] | None, settings: Settings, cwd: Path) -> Discovery:
    """Expand ``paths`` (relative to ``cwd``) into the files to read; with no
    paths, scan ``settings.paths`` or else ``cwd``. Raises DiscoveryError for a
    path that does not exist or cannot be read."""
    cwd = Path(os.path.abspath(cwd))
    full_scan = not paths
    if full_scan:
        targets = [(path, display_path(path, cwd)) for path in (settings.paths or (cwd,))]
    else:
        targets = [(Path(os.path.abspath(cwd / path)), str(path)) for path in paths]
    walker = _Walker(settings)
    excluded: list[Path] = []
    for path, shown in targets:
        mode = _stat(path, shown)
        if stat.S_ISDIR(mode):
            walker.walk(path, shown)
        elif stat.S_ISREG(mode):
            if not walker.add_named_file(path, shown) and not full_scan:
                excluded.append(path)
        else:
            raise DiscoveryError(f"{shown}: not a regular file or directory")
    return Discovery(
        files=tuple(sorted(walker.files)),
        explicitly_excluded=tuple(sorted(set(excluded))),
        full_scan=full_scan,
        warnings=tuple(dict.fromkeys(walker.warnings)),
    )


def context_files(settings: Settings, cwd: Path) -> tuple[Path, ...]:
    """The files of the configured ``paths`` (read as context by cross-file
    rules when PATH names only some files); empty when none are configured."""
    if not settings.paths:
        return ()
    return discover(None, settings, cwd).files


def glob_relpath(path: Path, root: Path) -> str:
    """The string globs of the configuration are matched against: ``path``
    relative to ``root`` with ``/`` separators, or its absolute POSIX form when
    it lies outside the root (then only unanchored patterns can match it)."""
    relative = _relative_to(str(path), str(root))
    return Path(relative).as_posix() if relative is not None else Path(path).as_posix()


class _Walker:
    """Collects files; holds the compiled exclude globs for the whole run."""

    def __init__(self, settings: Settings) -> None:
        self.root = str(Path(os.path.abspath(settings.root)))
        globs = settings.exclude + settings.extend_exclude
        self.exclude: tuple[GlobPattern, ...] = tuple(compile_glob(glob) for glob in globs)
        self.respect_gitignore = settings.respect_gitignore
        self.files: set[Path] = set()
        self.warnings: list[str] = []

    def add_named_file(self, path: Path, shown: str) -> bool:
        """Add a file named explicitly; False when `exclude` removes it."""
        _check_readable(path, shown)
        relative = _relative_to(str(path), self.root)
        # Outside the root, the file is matched by its path relative to the scan
        # path, here its own directory: its name.
        relpath = relative.replace(os.sep, "/") if relative is not None else path.name
        if self._excluded(relpath, is_dir=False):
            return False
        self.files.add(path)
        return True

    def walk(self, directory: Path, shown: str) -> None:
        relative = _relative_to(str(directory), self.root)
        # Paths under the root are matched relative to it; a directory outside
        # the root is matched relative to itself.
        prefix = "" if not relative or relative == "." else relative.replace(os.sep, "/") + "/"
        rules = IgnoreRules.for_walk(str(directory), self.root, self.warnings.append) if self.respect_gitignore else None
        try:
            children = _list_directory(str(directory))
        except OSError as error:
            raise DiscoveryError(f"{shown}: cannot read directory: {error.strerror or error}") from None
        stack = [(children, prefix, shown, rules)]
        while stack:
            entries, prefix, current_shown, rules = stack.pop()
            for entry in entries:
                child = self._visit(entry, prefix, rules)
                if child is None:
                    continue
                child_prefix, child_rules = child
                child_shown = entry.name if current_shown == "." else os.path.join(current_shown, entry.name)
                try:
                    grandchildren = _list_directory(entry.path)
                except OSError as error:
                    # One unreadable corner must not hide the rest of the tree.
                    self.warnings.append(f"{child_shown}: cannot read directory: {error.strerror or error}; skipped")
                    continue
                stack.append((grandchildren, child_prefix, child_shown, child_rules))

    def _visit(self, entry: os.DirEntry[str], prefix: str, rules: IgnoreRules | None) -> tuple[str, IgnoreRules | None] | None:
        """Add ``entry`` if it is a source file to read; for a directory to walk
        into, return its glob prefix and the ignore rules in force inside it."""
        name = entry.name
        if name.startswith("."):
            return None
        try:
            # Links (to files or directories) are not followed: no cycles, and
            # nothing outside the tree is read, or rewritten by `fix`.
            if entry.is_symlink():
                return None
            is_dir = entry.is_dir(follow_symlinks=False)
            if not is_dir and not entry.is_file(follow_symlinks=False):
                return None  # sockets, fifos, devices
        except OSError:
            return None  # vanished while walking
        relpath = prefix + name
        if is_dir:
            if name == "__pycache__" or name in DEFAULT_EXCLUDES or _is_virtualenv(entry.path, name):
                return None
            if self._excluded(relpath, is_dir=True):
                return None
            if rules is not None:
                if rules.ignores(entry.path, is_dir=True):
                    return None
                rules = rules.enter(entry.path)
            return relpath + "/", rules
        if not name.endswith(SOURCE_SUFFIXES) or self._excluded(relpath, is_dir=False):
            return None
        if rules is None or not rules.ignores(entry.path, is_dir=False):
            self.files.add(Path(entry.path))
        return None

    def _excluded(self, relpath: str, *, is_dir: bool) -> bool:
        return any(pattern.matches(relpath, is_dir=is_dir) for pattern in self.exclude)


def _list_directory(path: str) -> list[os.DirEntry[str]]:
    with os.scandir(path) as entries:
        return list(entries)


def _is_virtualenv(path: str, name: str) -> bool:
    """A directory holding ``pyvenv.cfg`` (any name), or one of the usual venv
    names holding ``bin/activate`` (virtualenv before pyvenv.cfg, some tools)."""
    if os.path.isfile(os.path.join(path, "pyvenv.cfg")):
        return True
    return name in VENV_NAMES and os.path.isfile(os.path.join(path, "bin", "activate"))


def _stat(path: Path, shown: str) -> int:
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        raise DiscoveryError(f"{shown}: no such file or directory") from None
    except OSError as error:
        raise DiscoveryError(f"{shown}: cannot read: {error.strerror or error}") from None


def _check_readable(path: Path, shown: str) -> None:
    try:
        with open(path, "rb"):
            pass
    except OSError as error:
        raise DiscoveryError(f"{shown}: cannot read: {error.strerror or error}") from None


def _relative_to(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` (both absolute and normalised), or None when
    it lies outside; "." for the root itself."""
    if path == root:
        return "."
    base = root if root.endswith(os.sep) else root + os.sep
    return path[len(base) :] if path.startswith(base) else None


