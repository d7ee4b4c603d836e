"""File discovery: what is walked, what is skipped, and how PATHs are checked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mmlint.check.discovery import (
    Discovery,
    DiscoveryError,
    context_files,
    discover,
    glob_relpath,
)
from mmlint.config.load import ConfigError, load_settings
from mmlint.config.settings import Settings


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
    (tmp_path / "mmlint.toml").write_text(
        'exclude = ["**/tests/**", "srt/multimodal/generated/", "*.pyi", "/srt/gen.py"]\n'
    )
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
    assert glob_relpath(tmp_path, tmp_path) == "."


@pytest.mark.parametrize(
    "written", ["a//b.py", "./a/./b.py", "a/b/", "/r/x.py", "/r", "/r/", "/rx/y.py", "/r/./s//t.py"]
)
def test_glob_relpath_is_the_posix_form_of_the_relative_path(written: str) -> None:
    """As pathlib would give it (the path is normalised when the Path is built)."""
    path, root = Path(written), Path("/r")
    expected = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()
    assert glob_relpath(path, root) == expected


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


# --- .gitignore, default excludes, extend-exclude ---------------------------------


def git_repository(root: Path) -> Path:
    """A directory that git would see as a repository root (no git binary needed)."""
    (root / ".git" / "info").mkdir(parents=True)
    return root


def test_nested_gitignore_files_with_negation(tmp_path: Path) -> None:
    git_repository(tmp_path)
    touch(
        tmp_path,
        "keep.py",
        "generated/g.py",
        "pkg/a.py",
        "pkg/out_gen.py",
        "pkg/sub/deep_gen.py",
        "pkg/sub/wanted_gen.py",
        "pkg/cache/c.py",
        "pkg/cache.py",
        "other/cache/c2.py",
        "pkg/anchored.py",
        "pkg/sub/anchored.py",
    )
    (tmp_path / ".gitignore").write_text("# comment\n/generated/\n*_gen.py\n")
    # Relative to pkg/: `cache/` is any directory named cache below pkg (not the
    # file cache.py, not other/cache), `/anchored.py` only pkg/anchored.py.
    (tmp_path / "pkg" / ".gitignore").write_text("cache/\n/anchored.py\n")
    # A deeper file re-includes what a shallower one ignored.
    (tmp_path / "pkg" / "sub" / ".gitignore").write_text("!wanted_gen.py\n")
    discovery = discover(None, Settings(root=tmp_path), tmp_path)
    assert rel(discovery, tmp_path) == [
        "keep.py",
        "other/cache/c2.py",
        "pkg/a.py",
        "pkg/cache.py",
        "pkg/sub/anchored.py",
        "pkg/sub/wanted_gen.py",
    ]


def test_gitignore_of_the_repository_applies_to_a_walk_started_below_it(tmp_path: Path) -> None:
    git_repository(tmp_path)
    touch(tmp_path, "src/pkg/a.py", "src/pkg/gen/g.py")
    (tmp_path / ".gitignore").write_text("src/pkg/gen/\n")
    discovery = discover([Path("pkg")], Settings(root=tmp_path), tmp_path / "src")
    assert rel(discovery, tmp_path) == ["src/pkg/a.py"]


def test_git_info_exclude_is_honoured_and_gitignore_beats_it(tmp_path: Path) -> None:
    git_repository(tmp_path)
    touch(tmp_path, "a.py", "local/scratch.py", "local/kept.py")
    (tmp_path / ".git" / "info" / "exclude").write_text("local/*.py\n")
    (tmp_path / "local" / ".gitignore").write_text("!kept.py\n")
    discovery = discover(None, Settings(root=tmp_path), tmp_path)
    assert rel(discovery, tmp_path) == ["a.py", "local/kept.py"]


def test_worktree_git_file_points_at_the_info_exclude(tmp_path: Path) -> None:
    common = tmp_path / "main" / ".git"
    (common / "info").mkdir(parents=True)
    (common / "info" / "exclude").write_text("scratch/\n")
    gitdir = common / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "commondir").write_text("../..\n")
    worktree = tmp_path / "wt"
    touch(worktree, "a.py", "scratch/s.py")
    (worktree / ".git").write_text(f"gitdir: {gitdir}\n")
    assert rel(discover(None, Settings(root=worktree), worktree), worktree) == ["a.py"]


def test_a_nested_repository_does_not_inherit_the_outer_rules(tmp_path: Path) -> None:
    git_repository(tmp_path)
    touch(tmp_path, "vendor/lib/x_gen.py", "y_gen.py")
    (tmp_path / ".gitignore").write_text("*_gen.py\n")
    (tmp_path / "vendor" / "lib" / ".git").mkdir()
    assert rel(discover(None, Settings(root=tmp_path), tmp_path), tmp_path) == ["vendor/lib/x_gen.py"]


def test_gitignore_is_honoured_outside_a_repository(tmp_path: Path) -> None:
    # tmp_path is not inside a git repository (pytest's base temp is not).
    assert not any((parent / ".git").exists() for parent in (tmp_path, *tmp_path.parents))
    touch(tmp_path, "a.py", "generated/g.py", "sub/b.py")
    (tmp_path / ".gitignore").write_text("generated/\n")
    assert rel(discover(None, Settings(root=tmp_path), tmp_path), tmp_path) == ["a.py", "sub/b.py"]
    # From the configuration's directory down, also when the walk starts below it.
    touch(tmp_path, "sub/generated/h.py")
    assert rel(discover([Path("sub")], Settings(root=tmp_path), tmp_path), tmp_path) == ["sub/b.py"]


def test_respect_gitignore_false_reads_ignored_files(tmp_path: Path) -> None:
    git_repository(tmp_path)
    touch(tmp_path, "a.py", "generated/g.py")
    (tmp_path / ".gitignore").write_text("generated/\n")
    (tmp_path / "mmlint.toml").write_text("respect-gitignore = false\n")
    settings = load_settings(tmp_path)
    assert settings.respect_gitignore is False
    assert rel(discover(None, settings, tmp_path), tmp_path) == ["a.py", "generated/g.py"]


def test_explicit_gitignored_file_is_read_but_exclude_still_applies(tmp_path: Path) -> None:
    git_repository(tmp_path)
    touch(tmp_path, "generated/g.py", "generated/tests/t.py")
    (tmp_path / ".gitignore").write_text("generated/\n")
    settings = Settings(root=tmp_path, extend_exclude=("**/tests/**",))
    discovery = discover([Path("generated/g.py"), Path("generated/tests/t.py")], settings, tmp_path)
    assert rel(discovery, tmp_path) == ["generated/g.py"]
    assert discovery.explicitly_excluded == (tmp_path / "generated" / "tests" / "t.py",)


def test_unreadable_or_invalid_gitignore_lines_do_not_stop_the_walk(tmp_path: Path) -> None:
    touch(tmp_path, "a.py", "b_gen.py")
    # "!" alone and a lone backslash are not patterns git can read; the rest apply.
    (tmp_path / ".gitignore").write_bytes(b"!\n\\\n*_gen.py\n\xff\n")
    assert rel(discover(None, Settings(root=tmp_path), tmp_path), tmp_path) == ["a.py"]


def test_default_excludes_skip_build_and_environment_folders(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "pkg/a.py",
        "build/lib/pkg/a.py",
        "dist/pkg/a.py",
        "pkg/sub/node_modules/n.py",
        "lib/site-packages/s.py",
        ".venv/lib/v.py",
        "__pypackages__/3.11/lib/p.py",
        "_build/x.py",
        "buck-out/y.py",
        ".tox/py311/t.py",
    )
    assert rel(discover(None, Settings(root=tmp_path), tmp_path), tmp_path) == ["pkg/a.py"]


def test_default_excluded_directory_named_explicitly_is_walked(tmp_path: Path) -> None:
    # Auditing an installed copy: the walk root (and its ancestors) are never
    # matched against the default excludes, only what lies below it.
    touch(tmp_path, "venv/lib/site-packages/pkg/a.py", "venv/lib/site-packages/pkg/build/b.py")
    named = Path("venv/lib/site-packages/pkg")
    assert rel(discover([named], Settings(root=tmp_path), tmp_path), tmp_path) == ["venv/lib/site-packages/pkg/a.py"]
    explicit = discover([Path("venv/lib/site-packages/pkg/build/b.py")], Settings(root=tmp_path), tmp_path)
    assert rel(explicit, tmp_path) == ["venv/lib/site-packages/pkg/build/b.py"]


def test_extend_exclude_adds_to_exclude(tmp_path: Path) -> None:
    touch(tmp_path, "pkg/a.py", "pkg/tests/t.py", "pkg/gen/g.py")
    (tmp_path / "mmlint.toml").write_text('exclude = ["**/tests/**"]\nextend-exclude = ["pkg/gen/"]\n')
    settings = load_settings(tmp_path)
    assert settings.extend_exclude == ("pkg/gen/",)
    assert rel(discover(None, settings, tmp_path), tmp_path) == ["pkg/a.py"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "respect_gitignore = false\n",
            "unknown key 'respect_gitignore' in the top level (did you mean 'respect-gitignore'?)",
        ),
        ("extend-excludes = []\n", "unknown key 'extend-excludes' in the top level (did you mean 'extend-exclude'?)"),
        ('respect-gitignore = "no"\n', "'respect-gitignore' must be true or false, got string"),
        ('extend-exclude = "build/"\n', "'extend-exclude' must be an array of strings, got string"),
        ("extend-exclude = [1]\n", "'extend-exclude[0]' must be a string, got integer"),
    ],
)
def test_new_keys_are_validated(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "mmlint.toml").write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert str(info.value) == f"mmlint.toml:1: {message}"


# --- unreadable directories ---------------------------------------------------------


def test_unreadable_subdirectory_is_a_warning_and_the_walk_goes_on(tmp_path: Path, monkeypatch) -> None:
    touch(tmp_path, "a.py", "locked/l.py", "z/b.py")
    real_scandir = os.scandir
    locked = str(tmp_path / "locked")

    def scandir(path):
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    discovery = discover(None, Settings(root=tmp_path), tmp_path)
    assert rel(discovery, tmp_path) == ["a.py", "z/b.py"]
    assert discovery.warnings == ("locked: cannot read directory: Permission denied; skipped",)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every directory")
def test_unreadable_subdirectory_for_real(tmp_path: Path) -> None:
    touch(tmp_path, "pkg/a.py", "pkg/locked/l.py")
    (tmp_path / "pkg" / "locked").chmod(0)
    try:
        discovery = discover([Path("pkg")], Settings(root=tmp_path), tmp_path)
    finally:
        (tmp_path / "pkg" / "locked").chmod(0o755)
    assert rel(discovery, tmp_path) == ["pkg/a.py"]
    assert discovery.warnings == ("pkg/locked: cannot read directory: Permission denied; skipped",)


def test_gitignored_directory_named_explicitly_is_walked_with_its_own_rules(tmp_path: Path) -> None:
    git_repository(tmp_path)
    touch(tmp_path, "generated/g.py", "generated/sub/h.py", "generated/tmp_x.py", "other/o.py")
    (tmp_path / ".gitignore").write_text("generated/\n")
    (tmp_path / "generated" / ".gitignore").write_text("tmp_*.py\n")
    discovery = discover([Path("generated")], Settings(root=tmp_path), tmp_path)
    assert rel(discovery, tmp_path) == ["generated/g.py", "generated/sub/h.py"]
    below = discover([Path("generated/sub")], Settings(root=tmp_path), tmp_path)
    assert rel(below, tmp_path) == ["generated/sub/h.py"]


def test_gitignore_lines_are_read_as_git_reads_them(tmp_path: Path) -> None:
    git_repository(tmp_path)
    touch(
        tmp_path,
        "#hash.py",
        "!bang.py",
        "space .py",
        "trail.py",
        "a.py",
        "lib/x.py",
        "lib/keep/y.py",
        "lib/keep/z_gen.py",
    )
    (tmp_path / ".gitignore").write_text(
        "# a comment, not a pattern\n"
        "\\#hash.py\n"  # an escaped `#` is literal
        "\\!bang.py\n"  # so is an escaped `!`
        "space\\ .py\n"  # an escaped blank is kept
        "trail.py   \n"  # trailing blanks are dropped
        "lib/*\n"
        "!lib/keep/\n"  # re-includes the directory only
        "*_gen.py\n"
    )
    assert rel(discover(None, Settings(root=tmp_path), tmp_path), tmp_path) == ["a.py", "lib/keep/y.py"]


@pytest.mark.slow
def test_an_adversarial_gitignore_does_not_hang_the_walk(tmp_path: Path) -> None:
    """pathspec's regular expressions backtrack exponentially on such a line (a
    subprocess with a generous timeout: minutes per name, before)."""
    import subprocess
    import sys

    git_repository(tmp_path)
    (tmp_path / ".gitignore").write_text("*a" * 12 + "*b\n" + "**/" * 10 + "a*a*a*a*a*a*a*a*b/\n")
    deep = tmp_path / "/".join(["a" * 60] * 3)
    deep.mkdir(parents=True)
    (deep / ("a" * 200 + ".py")).write_text("async def f():\n    import time\n    time.sleep(1)\n")
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "--no-cache", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and '"MM005"' in result.stdout, result.stderr


def test_only_files_named_explicitly_are_recorded_as_possible_links(tmp_path: Path) -> None:
    touch(tmp_path, "real/a.py", "real/sub/b.py", "outside/o.py")
    (tmp_path / "real" / "linked.py").symlink_to(tmp_path / "outside" / "o.py")
    found = discover([Path("real"), Path("real/linked.py"), Path("outside/o.py")], Settings(), tmp_path)
    assert sorted(rel(found, tmp_path)) == ["outside/o.py", "real/a.py", "real/linked.py", "real/sub/b.py"]
    assert found.named == {str(tmp_path / "real" / "linked.py"), str(tmp_path / "outside" / "o.py")}
