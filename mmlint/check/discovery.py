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
``exclude`` still applies to it, and with --force-paths (what the pre-commit
hooks pass) so do the configured ``paths``: a named file outside them is left
out. A directory the walk cannot read is skipped
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
from mmlint.config.load import SOURCE_SUFFIXES
from mmlint.config.resolve import ConfigResolver
from mmlint.config.settings import Settings
from mmlint.core.paths import display_path

__all__ = [
    "DEFAULT_EXCLUDES",
    "Discovery",
    "DiscoveryError",
    "SourceFile",
    "as_resolver",
    "context_files",
    "context_sources",
    "discover",
    "discover_stdin",
    "glob_relpath",
]

# Conventional names of virtual environments; skipped when they really hold one
# (an `env` package in a project is ordinary code; `venv` is a default exclude).
VENV_NAMES = frozenset({"venv", ".venv", "env"})
# Directory names a walk skips at any depth below where it starts, whatever the
# configuration says (ruff's defaults): build output, caches, environments and
# VCS metadata. Naming such a directory (or a file in it) explicitly reads it.
DEFAULT_EXCLUDES = frozenset(
    {
        ".bzr",
        ".direnv",
        ".eggs",
        ".git",
        ".git-rewrite",
        ".hg",
        ".mypy_cache",
        ".nox",
        ".pants.d",
        ".pytype",
        ".ruff_cache",
        ".svn",
        ".tox",
        ".venv",
        "__pypackages__",
        "_build",
        "buck-out",
        "build",
        "dist",
        "node_modules",
        "site-packages",
        "venv",
    }
)


class DiscoveryError(Exception):
    """A PATH that does not exist or cannot be read (exit code 2); ``str()`` is
    one line naming it."""


@dataclass(frozen=True)
class SourceFile:
    """A file to read and the Settings that govern it, decided once, by
    discovery: every later stage carries them instead of asking again."""

    path: Path  # absolute
    settings: Settings


@dataclass(frozen=True)
class Discovery:
    sources: tuple[SourceFile, ...]  # absolute, sorted, deduplicated, each with its settings
    # Files named on the command line that `exclude` removed (the CLI may say so).
    explicitly_excluded: tuple[Path, ...]
    # True when no PATH was given: the configured paths (or the cwd) were scanned.
    full_scan: bool
    # One line each, for stderr: what the walk had to skip (an unreadable directory).
    warnings: tuple[str, ...] = ()
    # The directories walked (absolute): a configuration whose whole scope lies
    # under one of them was scanned in full (MM008, MM009's stale entries).
    walked: tuple[Path, ...] = ()
    # The files named explicitly (as strings): only these may be symbolic
    # links, since a walk passes none (the reach resolves their module path).
    named: frozenset[str] = frozenset()
    # The settings governing each of ``walked`` (a configuration whose scan came out empty still hears of it).
    walked_settings: tuple[Settings, ...] = ()

    @property
    def files(self) -> tuple[Path, ...]:
        return tuple(source.path for source in self.sources)


def discover(paths: Sequence[Path] | None, config: Settings | ConfigResolver, cwd: Path) -> Discovery:
    """Expand ``paths`` (relative to ``cwd``) into the files to read; with no
    paths, scan the configured ``paths`` of the configuration governing ``cwd``,
    or else ``cwd``. Each directory is walked with the excludes of the
    configuration governing it (``config``: one Settings for every file, or a
    resolver finding each file's own). Raises DiscoveryError for a path that
    does not exist or cannot be read."""
    cwd = Path(os.path.abspath(cwd))
    resolver = as_resolver(config, cwd)
    full_scan = not paths
    if full_scan:
        targets = [(path, display_path(path, cwd)) for path in (resolver.for_cwd.paths or (cwd,))]
    else:
        targets = [(Path(os.path.abspath(cwd / path)), str(path)) for path in paths or ()]
    walker = _Walker(resolver)
    excluded: list[Path] = []
    walked: dict[Path, Settings] = {}
    for path, shown in targets:
        mode = _stat(path, shown)
        if stat.S_ISDIR(mode):
            walked[path] = walker.walk(path, shown)
        elif stat.S_ISREG(mode):
            if not walker.add_named_file(path, shown) and not full_scan:
                excluded.append(path)
        else:
            raise DiscoveryError(f"{shown}: not a regular file or directory")
    return Discovery(
        sources=tuple(SourceFile(Path(path), walker.files[path]) for path in sorted(walker.files, key=_path_order)),
        explicitly_excluded=tuple(sorted(set(excluded))),
        full_scan=full_scan,
        warnings=tuple(dict.fromkeys(walker.warnings)),
        walked=tuple(walked),
        named=frozenset(walker.named),
        walked_settings=tuple(walked.values()),
    )


def discover_stdin(path: Path, config: Settings | ConfigResolver, cwd: Path) -> Discovery:
    """What a run on standard input reads: the file it stands for (``path``,
    absolute, which need not exist), unless `exclude` removes it, as for a file
    named explicitly."""
    walker = _Walker(as_resolver(config, cwd))
    settings = walker.named_file_settings(path)
    excluded = settings is None
    return Discovery(
        sources=() if settings is None else (SourceFile(path, settings),),
        explicitly_excluded=(path,) if excluded else (),
        full_scan=False,
        named=frozenset(() if excluded else (str(path),)),
    )


def as_resolver(config: Settings | ConfigResolver, cwd: Path) -> ConfigResolver:
    """One Settings given (tests, --config through the API) governs every file."""
    return config if isinstance(config, ConfigResolver) else ConfigResolver.fixed(config, cwd)


def context_files(settings: Settings, cwd: Path, config: Settings | ConfigResolver | None = None) -> tuple[Path, ...]:
    """The files of the configured ``paths`` of ``settings`` (read as context by
    cross-file rules when PATH names only some files); empty when none are
    configured. ``config`` decides the excludes below them (default: ``settings``)."""
    return tuple(source.path for source in context_sources(settings, cwd, config))


def context_sources(
    settings: Settings, cwd: Path, config: Settings | ConfigResolver | None = None
) -> tuple[SourceFile, ...]:
    """context_files, each with the settings governing it."""
    if not settings.paths:
        return ()
    resolver = as_resolver(config if config is not None else settings, cwd)
    return discover([Path(p) for p in settings.paths], resolver, cwd).sources


def glob_relpath(path: Path, root: Path) -> str:
    """The string globs of the configuration are matched against: ``path``
    relative to ``root`` with ``/`` separators, or its absolute POSIX form when
    it lies outside the root (then only unanchored patterns can match it)."""
    text = str(path)
    relative = _relative_to(text, str(root))
    if relative is not None:
        text = relative
    # A Path's text is normalised already: only its separators may not be "/"
    # (a run asks this of every file, so no Path is built for it).
    return text if os.sep == "/" else text.replace(os.sep, "/")


class _Walker:
    """Collects files, each directory's entries judged by the excludes of the
    configuration governing that directory."""

    def __init__(self, resolver: ConfigResolver) -> None:
        self.resolver = resolver
        self._excludes: dict[int, tuple[GlobPattern, ...]] = {}  # by id of a Settings the resolver keeps
        # Strings (a Path per file is built once, at the end) -> the settings governing each.
        self.files: dict[str, Settings] = {}
        self.named: set[str] = set()  # files named explicitly, which may be links
        self.warnings: list[str] = []

    def add_named_file(self, path: Path, shown: str) -> bool:
        """Add a file named explicitly; False when `exclude` removes it."""
        _check_readable(path, shown)
        settings = self.named_file_settings(path)
        if settings is None:
            return False
        self.files[str(path)] = settings
        self.named.add(str(path))
        return True

    def named_file_settings(self, path: Path) -> Settings | None:
        """The settings governing ``path`` (which need not exist) when named
        explicitly; None when `exclude` removes it, or, with --force-paths, it
        lies outside the configured `paths`."""
        settings = self.resolver.settings_for(path)
        if self.resolver.force_paths and settings.paths and not _under_any(str(path), settings.paths):
            return None
        relative = _relative_to(str(path), _root_of(settings))
        # Outside the root, the file is matched by its path relative to the scan
        # path, here its own directory: its name.
        relpath = relative.replace(os.sep, "/") if relative is not None else path.name
        return None if self._excluded(settings, relpath, is_dir=False) else settings

    def walk(self, directory: Path, shown: str) -> Settings:
        """Walk ``directory``; the settings governing it."""
        top = self.resolver.settings_for_directory(directory)
        rules = IgnoreRules.for_walk(str(directory), _root_of(top), self.warnings.append)
        try:
            children = _list_directory(str(directory))
        except OSError as error:
            raise DiscoveryError(f"{shown}: cannot read directory: {error.strerror or error}") from None
        stack: list[tuple[list[os.DirEntry[str]], str, str, IgnoreRules, Settings | None]] = [
            (children, str(directory), shown, rules, top)
        ]
        while stack:
            entries, parent, current_shown, rules, known = stack.pop()
            # Paths under a configuration's root are matched relative to it; a
            # directory outside it is matched relative to where the walk started.
            # Each directory is looked up once; its files carry what it found.
            settings = known if known is not None else self.resolver.settings_for_directory(Path(parent))
            base = _relative_to(parent, _root_of(settings))
            if base is None:
                base = _relative_to(parent, str(directory))
            prefix = "" if base in (None, ".") else base.replace(os.sep, "/") + "/"
            honoured = rules if settings.respect_gitignore else None
            for entry in entries:
                child = self._visit(entry, prefix, settings, honoured)
                if child is None:
                    continue
                child_shown = entry.name if current_shown == "." else os.path.join(current_shown, entry.name)
                try:
                    grandchildren = _list_directory(entry.path)
                except OSError as error:
                    # One unreadable corner must not hide the rest of the tree.
                    self.warnings.append(f"{child_shown}: cannot read directory: {error.strerror or error}; skipped")
                    continue
                stack.append((grandchildren, entry.path, child_shown, rules.enter(entry.path), None))
        return top

    def _visit(
        self, entry: os.DirEntry[str], prefix: str, settings: Settings, rules: IgnoreRules | None
    ) -> bool | None:
        """Add ``entry`` if it is a source file to read; True for a directory to walk into."""
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
            if self._excluded(settings, relpath, is_dir=True):
                return None
            if rules is not None and rules.ignores(entry.path, is_dir=True):
                return None
            return True
        if not name.endswith(SOURCE_SUFFIXES) or self._excluded(settings, relpath, is_dir=False):
            return None
        if rules is None or not rules.ignores(entry.path, is_dir=False):
            self.files[entry.path] = settings
        return None

    def _excluded(self, settings: Settings, relpath: str, *, is_dir: bool) -> bool:
        patterns = self._excludes.get(id(settings))
        if patterns is None:
            globs = settings.exclude + settings.extend_exclude
            patterns = self._excludes[id(settings)] = tuple(compile_glob(glob) for glob in globs)
        return any(pattern.matches(relpath, is_dir=is_dir) for pattern in patterns)


def _path_order(path: str) -> list[str]:
    """pathlib's order: component by component."""
    return path.split(os.sep)


def _root_of(settings: Settings) -> str:
    return str(Path(os.path.abspath(settings.root)))


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


def _under_any(path: str, scope: Sequence[Path]) -> bool:
    """Whether ``path`` is one of ``scope`` (absolute paths) or lies under one."""
    return any(_relative_to(path, str(entry)) is not None for entry in scope)


def _relative_to(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` (both absolute and normalised), or None when
    it lies outside; "." for the root itself."""
    if path == root:
        return "."
    base = root if root.endswith(os.sep) else root + os.sep
    return path[len(base) :] if path.startswith(base) else None
