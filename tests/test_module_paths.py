"""Where a file sits among packages (mmlint.facts.module_paths): the form
the reach indexes a whole scan with (ModulePaths, each directory resolved
once) agrees with the one-file form, symlinked files and directories
included, and so does the last part it indexes every candidate by."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mmlint.facts.module_paths import ModulePaths, module_path_parts


def module_path_parts_of_many(files: list[Path]) -> list[tuple[str, ...]]:
    """ModulePaths.parts of each file, through one ModulePaths (as the reach asks)."""
    paths = ModulePaths()
    return [paths.parts(os.fspath(file)) for file in files]


def last_parts(files: list[Path], may_be_link: bool = True) -> list[str | None]:
    return ModulePaths().last_parts([(os.fspath(file), may_be_link) for file in files])


def test_many_agrees_with_one_at_a_time(tmp_path: Path) -> None:
    package = tmp_path / "pkg" / "sub"
    package.mkdir(parents=True)
    files = [tmp_path / "pkg" / "__init__.py", package / "__init__.py", package / "api.py", tmp_path / "top.py"]
    for file in files:
        file.write_text("x = 1\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "real.py").write_text("y = 2\n", encoding="utf-8")
    try:
        (package / "linked.py").symlink_to(elsewhere / "real.py")
        (tmp_path / "linkdir").symlink_to(package, target_is_directory=True)
    except OSError:
        pytest.skip("symlinks are not available here")
    files += [package / "linked.py", tmp_path / "linkdir" / "api.py", tmp_path / "linkdir" / "__init__.py"]
    assert module_path_parts_of_many(files) == [module_path_parts(file) for file in files]
    assert module_path_parts_of_many([package / "linked.py"]) == [(*elsewhere.resolve().parts, "real")]
    assert os.path.islink(package / "linked.py")
    # What the reach indexes every candidate by: a file linked under another
    # name has its target's, an __init__ in a linked directory the target directory's.
    assert last_parts(files) == [module_path_parts(file)[-1] for file in files]
    assert last_parts([package / "linked.py", tmp_path / "linkdir" / "__init__.py"]) == ["real", "sub"]


def test_many_agrees_with_one_at_a_time_on_odd_names_and_relative_paths(tmp_path: Path, monkeypatch) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    names = ["a.py", "__init__.py", "x.tar.py", ".hidden.py", "b.pyi", "__init__.pyi", "no_suffix"]
    for name in names:
        (package / name).write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "top.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    files = [package / name for name in names] + [Path("pkg/a.py"), Path("top.py"), Path("pkg/__init__.py")]
    assert module_path_parts_of_many(files) == [module_path_parts(file) for file in files]
    # None of them a link: a walk found them, and the last part needs no system call.
    assert last_parts(files, may_be_link=False) == [module_path_parts(file)[-1] for file in files]


def test_a_directory_below_a_symlinked_one_resolves_through_the_link(tmp_path: Path, monkeypatch) -> None:
    real = tmp_path / "real" / "deep" / "er"
    real.mkdir(parents=True)
    (real / "mod.py").write_text("x = 1\n", encoding="utf-8")
    try:
        (tmp_path / "alias").symlink_to(tmp_path / "real", target_is_directory=True)
    except OSError:
        pytest.skip("symlinks are not available here")
    monkeypatch.chdir(tmp_path / "real" / "deep")
    files = [
        tmp_path / "alias" / "deep" / "er" / "mod.py",
        Path("er/mod.py"),
        Path("../deep/er/mod.py"),
        Path("./er/mod.py"),
    ]
    assert module_path_parts_of_many(files) == [module_path_parts(file) for file in files]
    assert module_path_parts_of_many(files[:1]) == [(*real.resolve().parts, "mod")]
