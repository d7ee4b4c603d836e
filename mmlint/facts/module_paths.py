"""Where a file sits among packages: its dotted module name, its path parts,
and where a relative import starts. Plain path questions (no parser): the
libcst collector and the stdlib-`ast` one (mmlint.facts.light) both ask them."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["ModulePaths", "module_name_for", "module_path_parts", "relative_anchor"]


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


class ModulePaths:
    """module_path_parts of many files, asked one at a time, with string
    operations rather than pathlib's: each directory is resolved once (a
    whole package's files share a few hundred directories, a few levels
    deep). ``last_parts`` is what an index of a whole scan needs of every
    file, with no system call for a file known not to be a link; ``parts``
    only of those a name picks."""

    def __init__(self) -> None:
        self._directories: dict[str, tuple[str, ...]] = {}

    def parts(self, text: str) -> tuple[str, ...]:
        directory, name = os.path.split(text)
        if os.path.islink(text):
            return module_path_parts(Path(text))
        parts = _resolved_directory(directory, self._directories)
        stem = os.path.splitext(name)[0]
        return parts if stem == "__init__" else parts + (stem,)

    def last_parts(self, files: Iterable[tuple[str, bool]]) -> list[str | None]:
        """parts(text)[-1] (None for no parts) of each ``(text, may_be_link)``,
        resolving only the file's directory (``may_be_link`` False: the caller
        knows it is no symbolic link, as a walk found it); one loop, as a
        scan's thousands of files ask."""
        found: list[str | None] = []
        split, splitext = os.path.split, os.path.splitext
        for text, may_be_link in files:
            directory, name = split(text)
            if may_be_link and os.path.islink(text):
                parts = module_path_parts(Path(text))
            else:
                stem = splitext(name)[0]
                if stem != "__init__":
                    found.append(stem)
                    continue
                parts = _resolved_directory(directory, self._directories)
            found.append(parts[-1] if parts else None)
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
