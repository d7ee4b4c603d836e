"""File discovery: what is walked, what is skipped, and how PATHs are checked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mmlint.config import load_settings
from mmlint.discovery import Discovery, DiscoveryError, context_files, discover, glob_relpath
from mmlint.settings import Settings


def touch(root: Path, *relpaths: str) -> None:
    for relpath in relpaths:
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n", encoding="utf-8")


def rel(discovery: Discovery, base: Path) -> list[str]:
    return [path.relative_to(base).as_posix() for path in discovery.files]


def test_walks_python_sources_recursively(tmp_path: Path) -> None:
    touch(tmp_path, "a.py", "pkg/b.py", "pkg/c.pyi", "pkg/sub/d.py", "pkg/readme.md", "pkg/e.pyc", "pkg/f.py.bak")
    discovery = discover(None, Settings(root=tmp_path), tmp_path)
    assert rel(discovery, tmp_path) == ["a.py", "pkg/b.py", "pkg/c.pyi", "pkg/sub/d.py"]
    assert discovery.full_scan
    assert discovery.explicitly_excluded == ()
    assert all(path.is_absolute() for path in discovery.files)


def test_skips_hidden_pycache_and_virtualenvs(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "keep.py",
        ".hidden.py",
        ".git/hooks/h.py",
        "pkg/.cache/c.py",
        "pkg/__pycache__/m.py",
        "myenv/pyvenv.cfg",
        "myenv/lib/site.py",
        "venv/bin/activate",
        "venv/lib/v.py",
        "env/bin/activate",
        "env/lib/e.py",
        # Named like a venv but not one: ordinary code ...
        "pkg/env/settings.py",
        # ... except `venv`, which is among ruff's default excludes.
        "pkg/venv/tool.py",
    )
    discovery = discover(None, Settings(root=tmp_path), tmp_path)
    assert rel(discovery, tmp_path) == ["keep.py", "pkg/env/settings.py"]


def test_symlinks_to_directories_and_files_are_not_followed_in_walks(tmp_path: Path) -> None:
    touch(tmp_path, "real/a.py", "outside/o.py")
    (tmp_path / "real" / "loop").symlink_to(tmp_path / "real", target_is_directory=True)
    (tmp_path / "real" / "other").symlink_to(tmp_path / "outside", target_is_directory=True)
    (tmp_path / "real" / "linked.py").symlink_to(tmp_path / "outside" / "o.py")
    (tmp_path / "real" / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    discovery = discover([Path("real")], Settings(root=tmp_path), tmp_path)
    assert rel(discovery, tmp_path) == ["real/a.py"]


def test_symlinked_file_named_explicitly_is_read(tmp_path: Path) -> None:
    touch(tmp_path, "real/a.py", "outside/o.py")
    (tmp_path / "real" / "linked.py").symlink_to(tmp_path / "outside" / "o.py")
    discovery = discover([Path("real/linked.py")], Settings(root=tmp_path), tmp_path)
    assert rel(discovery, tmp_path) == ["real/linked.py"]


def test_symlinked_directory_named_explicitly_is_walked(tmp_path: Path) -> None:
    touch(tmp_path, "real/a.py")
    (tmp_path / "alias").symlink_to(tmp_path / "real", target_is_directory=True)
    discovery = discover([Path("alias")], Settings(root=tmp_path), tmp_path)
    assert rel(discovery, tmp_path) == ["alias/a.py"]


def test_exclude_globs_are_relative_to_the_configuration_root(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "srt/multimodal/processors/clip.py",
        "srt/multimodal/tests/test_clip.py",
        "srt/multimodal/generated/g.py",
        "srt/gen.py",
        "srt/multimodal/stubs.pyi",
    )
    (tmp_path / "mmlint.toml").write_text('exclude = ["**/tests/**", "srt/multimodal/generated/", "*.pyi", "/srt/gen.py"]\n')
    cwd = tmp_path / "srt"
    settings = load_settings(cwd)
    assert settings.root == tmp_path
    discovery = discover(None, settings, cwd)
    assert rel(discovery, tmp_path) == ["srt/multimodal/processors/clip.py"]


def test_anchored_exclude_does_not_match_deeper_copies(tmp_path: Path) -> None:
    touch(tmp_path, "gen/a.py", "src/gen/b.py", "src/c.py")
    discovery = discover(None, Settings(root=tmp_path, exclude=("/gen",)), tmp_path)
    assert rel(discovery, tmp_path) == ["src/c.py", "src/gen/b.py"]


def test_explicit_files_are_read_even_if_hidden_or_not_python(tmp_path: Path) -> None:
    touch(tmp_path, ".hidden/secret.py", "scripts/run", ".dot.py")
    paths = [Path(".hidden/secret.py"), Path("scripts/run"), Path(".dot.py")]
    discovery = discover(paths, Settings(root=tmp_path), tmp_path)
    assert rel(discovery, tmp_path) == [".dot.py", ".hidden/secret.py", "scripts/run"]
    assert not discovery.full_scan


def test_explicit_hidden_directory_is_walked(tmp_path: Path) -> None:
    touch(tmp_path, ".github/scripts/check.py", ".github/scripts/.private.py")
    discovery = discover([Path(".github/scripts")], Settings(root=tmp_path), tmp_path)
    assert rel(discovery, tmp_path) == [".github/scripts/check.py"]


def test_exclude_applies_to_explicit_files(tmp_path: Path) -> None:
    touch(tmp_path, "pkg/tests/test_a.py", "pkg/a.py")
    settings = Settings(root=tmp_path, exclude=("**/tests/**",))
    discovery = discover([Path("pkg/tests/test_a.py"), Path("pkg/a.py")], settings, tmp_path)
    assert rel(discovery, tmp_path) == ["pkg/a.py"]
    assert discovery.explicitly_excluded == (tmp_path / "pkg" / "tests" / "test_a.py",)


def test_files_outside_the_root_match_relative_to_the_scan_path(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    touch(tmp_path, "elsewhere/tests/t.py", "elsewhere/keep.py", "elsewhere/gen.py", "elsewhere/sub/gen.py")
    settings = Settings(root=root, exclude=("tests/", "/gen.py"))
    discovery = discover([tmp_path / "elsewhere"], settings, root)
    assert rel(discovery, tmp_path) == ["elsewhere/keep.py", "elsewhere/sub/gen.py"]
    # An explicit file outside the root is matched by its name.
    excluded = discover([tmp_path / "elsewhere" / "gen.py"], settings, root)
    assert excluded.files == ()
    assert excluded.explicitly_excluded == (tmp_path / "elsewhere" / "gen.py",)


def test_results_are_deduplicated_and_sorted(tmp_path: Path) -> None:
    touch(tmp_path, "b.py", "a/z.py", "a/y.py")
    paths = [Path("b.py"), Path("."), Path("a"), Path("a/../a/y.py")]
    discovery = discover(paths, Settings(root=tmp_path), tmp_path)
    assert rel(discovery, tmp_path) == ["a/y.py", "a/z.py", "b.py"]


def test_missing_path_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(DiscoveryError) as info:
        discover([Path("no/such.py")], Settings(root=tmp_path), tmp_path)
    assert str(info.value) == "no/such.py: no such file or directory"


def test_special_file_is_an_error(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(DiscoveryError, match=r"^pipe: not a regular file or directory$"):
        discover([Path("pipe")], Settings(root=tmp_path), tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads everything")
def test_unreadable_paths_are_errors(tmp_path: Path) -> None:
    touch(tmp_path, "locked/a.py", "secret.py")
    (tmp_path / "locked").chmod(0)
    (tmp_path / "secret.py").chmod(0)
    try:
        with pytest.raises(DiscoveryError, match=r"^locked: cannot read directory"):
            discover([Path("locked")], Settings(root=tmp_path), tmp_path)
        with pytest.raises(DiscoveryError, match=r"^secret.py: cannot read"):
            discover([Path("secret.py")], Settings(root=tmp_path), tmp_path)
    finally:
        (tmp_path / "locked").chmod(0o755)
        (tmp_path / "secret.py").chmod(0o644)


def test_full_scan_uses_configured_paths(tmp_path: Path) -> None:
    touch(tmp_path, "srt/multimodal/a.py", "srt/other/b.py", "single.py", "top.py")
    (tmp_path / "pyproject.toml").write_text('[tool.mmlint]\npaths = ["srt/multimodal", "single.py"]\n')
    cwd = tmp_path / "srt" / "other"
    settings = load_settings(cwd)
    discovery = discover(None, settings, cwd)
    assert rel(discovery, tmp_path) == ["single.py", "srt/multimodal/a.py"]
    assert discovery.full_scan
    assert context_files(settings, cwd) == discovery.files
    # Named PATHs replace the configured ones.
    assert rel(discover([Path(".")], settings, cwd), tmp_path) == ["srt/other/b.py"]


def test_without_configured_paths_the_cwd_is_scanned_and_context_is_empty(tmp_path: Path) -> None:
    touch(tmp_path, "a.py", "sub/b.py")
    settings = Settings(root=tmp_path)
    assert rel(discover([], settings, tmp_path / "sub"), tmp_path) == ["sub/b.py"]
    assert context_files(settings, tmp_path) == ()


def test_glob_relpath(tmp_path: Path) -> None:
    assert glob_relpath(tmp_path / "a" / "b.py", tmp_path) == "a/b.py"
    assert glob_relpath(Path("/elsewhere/c.py"), tmp_path) == "/elsewhere/c.py"


def test_many_files_in_many_packages_are_all_found(tmp_path: Path) -> None:
    # Speed is measured by benchmarks/scan.py, not asserted here.
    for package in range(20):
        directory = tmp_path / f"pkg{package}" / "processors"
        directory.mkdir(parents=True)
        for module in range(50):
            (directory / f"m{module}.py").touch()
    settings = Settings(root=tmp_path, exclude=("**/tests/**", "*.pyi", "build/"))
    discovery = discover(None, settings, tmp_path)
    assert len(discovery.files) == 1000
