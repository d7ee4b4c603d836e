"""Where a file sits among packages (mmlint.facts.module_paths): the batch
form the reach indexes a whole scan with agrees with the one-file form,
symlinked files and directories included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mmlint.facts.module_paths import ModulePaths, module_path_parts, module_path_parts_of_many


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


def test_a_directory_below_a_symlinked_one_resolves_through_the_link(tmp_path: Path, monkeypatch) -> None:
    real = tmp_path / "real" / "deep" / "er"
    real.mkdir(parents=True)
    (real / "mod.py").write_text("x = 1\n", encoding="utf-8")
    try:
        (tmp_path / "alias").symlink_to(tmp_path / "real", target_is_directory=True)
    except OSError:
        pytest.skip("symlinks are not available here")
    monkeypatch.chdir(tmp_path / "real" / "deep")
    files = [tmp_path / "alias" / "deep" / "er" / "mod.py", Path("er/mod.py"), Path("../deep/er/mod.py"), Path("./er/mod.py")]
    assert module_path_parts_of_many(files) == [module_path_parts(file) for file in files]
    assert module_path_parts_of_many(files[:1]) == [(*real.resolve().parts, "mod")]


def test_the_last_part_agrees_with_the_whole_path(tmp_path: Path, monkeypatch) -> None:
    """What the reach indexes every candidate by (ModulePaths.last_part) is
    the last of the parts module_path_parts gives, for a file linked under
    another name, an __init__ in a linked directory and a relative path."""
    package = tmp_path / "pkg"
    package.mkdir()
    for name in ("a.py", "__init__.py", "x.tar.py", "b.pyi"):
        (package / name).write_text("x = 1\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "target.py").write_text("y = 2\n", encoding="utf-8")
    try:
        (package / "alias.py").symlink_to(elsewhere / "target.py")
        (tmp_path / "linked_pkg").symlink_to(package, target_is_directory=True)
    except OSError:
        pytest.skip("symlinks are not available here")
    monkeypatch.chdir(tmp_path)
    files = [package / name for name in ("a.py", "__init__.py", "x.tar.py", "b.pyi", "alias.py")]
    files += [tmp_path / "linked_pkg" / "__init__.py", tmp_path / "linked_pkg" / "alias.py", Path("pkg/a.py"), Path("pkg/__init__.py")]
    paths = ModulePaths()
    assert [paths.last_part(os.fspath(file)) for file in files] == [module_path_parts(file)[-1] for file in files]
    assert paths.last_part(os.fspath(package / "alias.py")) == "target"
    assert paths.last_part(os.fspath(tmp_path / "linked_pkg" / "__init__.py")) == "pkg"
