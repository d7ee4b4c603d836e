"""Which files a run reads.

PATHs given on the command line (or, without them, the configured ``paths``,
else the current directory) are expanded: directories are walked recursively
for ``*.py`` and ``*.pyi``, skipping hidden entries, ``__pycache__``, virtual
environments, ``exclude`` globs and symbolic links to directories. A file named
explicitly is read whatever its name (pre-commit passes files one by one), but
``exclude`` still applies to it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mmlint.globs import GlobPattern, compile_glob
from mmlint.settings import Settings

__all__ = ["Discovery", "DiscoveryError", "context_files", "discover", "glob_relpath"]

SOURCE_SUFFIXES = (".py", ".pyi")
# Conventional names of virtual environments; only skipped when they really hold
# one (a `venv` package in a project is ordinary code).
VENV_NAMES = frozenset({"venv", ".venv", "env"})


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


def discover(paths: Sequence[Path] | None, settings: Settings, cwd: Path) -> Discovery:
    """Expand ``paths`` (relative to ``cwd``) into the files to read; with no
    paths, scan ``settings.paths`` or else ``cwd``. Raises DiscoveryError for a
    path that does not exist or cannot be read."""
    cwd = Path(os.path.abspath(cwd))
    full_scan = not paths
    if full_scan:
        targets = [(path, _display(path, cwd)) for path in (settings.paths or (cwd,))]
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
        self.exclude: tuple[GlobPattern, ...] = tuple(compile_glob(glob) for glob in settings.exclude)
        self.files: set[Path] = set()

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
        stack = [(str(directory), prefix, shown)]
        while stack:
            current, prefix, current_shown = stack.pop()
            try:
                with os.scandir(current) as entries:
                    children = list(entries)
            except OSError as error:
                raise DiscoveryError(f"{current_shown}: cannot read directory: {error.strerror or error}") from None
            for entry in children:
                self._visit(entry, prefix, current_shown, stack)

    def _visit(self, entry: os.DirEntry[str], prefix: str, parent_shown: str, stack: list[tuple[str, str, str]]) -> None:
        name = entry.name
        if name.startswith("."):
            return
        try:
            if entry.is_symlink():
                # Links to directories are not followed (no cycles, no escaping
                # the tree); links to files are read like files.
                if entry.is_dir() or not entry.is_file():
                    return
                is_dir = False
            else:
                is_dir = entry.is_dir(follow_symlinks=False)
                if not is_dir and not entry.is_file(follow_symlinks=False):
                    return  # sockets, fifos, devices
        except OSError:
            return  # vanished while walking
        relpath = prefix + name
        if is_dir:
            if name == "__pycache__" or _is_virtualenv(entry.path, name):
                return
            if self._excluded(relpath, is_dir=True):
                return
            stack.append((entry.path, relpath + "/", os.path.join(parent_shown, name)))
            return
        if name.endswith(SOURCE_SUFFIXES) and not self._excluded(relpath, is_dir=False):
            self.files.add(Path(entry.path))

    def _excluded(self, relpath: str, *, is_dir: bool) -> bool:
        return any(pattern.matches(relpath, is_dir=is_dir) for pattern in self.exclude)


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


def _display(path: Path, cwd: Path) -> str:
    relative = _relative_to(str(path), str(cwd))
    return str(path) if relative is None else relative

