"""Where a file sits among packages: its dotted module name, its path parts,
and where a relative import starts. Plain path questions (no parser): the
libcst collector and the stdlib-`ast` one (mmlint.facts.light) both ask them."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["module_name_for", "module_path_parts", "module_path_parts_of_many", "relative_anchor"]


def module_name_for(real_path: Path) -> tuple[str, bool]:
    """The dotted module name of a file, walking up directories holding
    ``__init__.py``; and whether the file is a package ``__init__``."""
    real_path = real_path.resolve()
    is_package = real_path.stem == "__init__"
    parts: list[str] = [] if is_package else [real_path.stem]
    directory = real_path.parent
    while (directory / "__init__.py").exists() or (directory / "__init__.pyi").exists():
        parts.insert(0, directory.name)
        if directory.parent == directory:
            break
        directory = directory.parent
    if not parts:  # a lone __init__.py outside any package
        parts = [real_path.parent.name]
    return ".".join(parts), is_package


def module_path_parts(real_path: Path) -> tuple[str, ...]:
    resolved = real_path.resolve()
    if resolved.stem == "__init__":
        return resolved.parent.parts
    return resolved.parent.parts + (resolved.stem,)


def module_path_parts_of_many(real_paths: Iterable[Path]) -> list[tuple[str, ...]]:
    """module_path_parts of each path, resolving each directory once: a file
    that is not a symlink resolves to its resolved directory and its name,
    and a directory that is not one to its resolved parent and its name (a
    whole package's files share a few hundred directories, a few levels
    deep). String operations, not pathlib's: a run asks this of every file
    of the scan."""
    directories: dict[str, tuple[str, ...]] = {}
    found = []
    for real_path in real_paths:
        text = os.fspath(real_path)
        if os.path.islink(text):
            found.append(module_path_parts(real_path))
            continue
        directory, name = os.path.split(text)
        parts = _resolved_directory(directory, directories)
        stem = os.path.splitext(name)[0]
        found.append(parts if stem == "__init__" else parts + (stem,))
    return found


def _resolved_directory(directory: str, resolved: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The parts of ``directory`` resolved (``resolved``: those known so far):
    one lstat per directory, where resolving each from the root costs one per
    part of its path."""
    parts = resolved.get(directory)
    if parts is None:
        parent, name = os.path.split(directory)
        if not name or name in (os.curdir, os.pardir) or parent == directory or os.path.islink(directory):
            parts = Path(directory).resolve().parts  # the root, the cwd, a dot, a link: resolved in full
        else:
            parts = _resolved_directory(parent, resolved) + (name,)
        resolved[directory] = parts
    return parts


def relative_anchor(real_path: Path, level: int) -> tuple[str, ...] | None:
    """The absolute path parts of the package ``from <level dots> import``
    starts from: the file's directory, then one up per extra dot."""
    directory = real_path.resolve().parent
    for _ in range(level - 1):
        if directory.parent == directory:
            return None
        directory = directory.parent
    return directory.parts
