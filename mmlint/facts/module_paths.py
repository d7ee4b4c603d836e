"""Where a file sits among packages: its dotted module name, its path parts,
and where a relative import starts. Plain path questions (no parser): the
libcst collector and the stdlib-`ast` one (mmlint.facts.light) both ask them."""

from __future__ import annotations

from pathlib import Path

__all__ = ["module_name_for", "module_path_parts", "relative_anchor"]


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


def relative_anchor(real_path: Path, level: int) -> tuple[str, ...] | None:
    """The absolute path parts of the package ``from <level dots> import``
    starts from: the file's directory, then one up per extra dot."""
    directory = real_path.resolve().parent
    for _ in range(level - 1):
        if directory.parent == directory:
            return None
        directory = directory.parent
    return directory.parts
