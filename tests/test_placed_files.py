"""Files a repository or another process could have placed (mmlint.core.safe_read):
a FIFO, a link to /dev/zero or /dev/null, a directory, an oversize file or JSON
nested 100,000 deep never hang a run nor read without bound. A file the user
named (a baseline, `--config`) is exit 2 naming it; a discovered configuration
too large is exit 2 naming it; a `.gitignore` is not applied, with a warning; a
cache entry is a miss and the cache's key file turns the cache off, with a
warning. Every shape runs in a real process with a timeout, so a regression
fails instead of hanging the suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cache_support import SOURCE
from cli_support import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from mmlint.cli import cli
from mmlint.core.safe_read import (
    BASELINE_MAX_BYTES,
    CONFIG_MAX_BYTES,
    GITIGNORE_MAX_BYTES,
    JSON_MAX_DEPTH,
    PlacedFileError,
    json_depth,
    read_placed,
)

pytestmark = pytest.mark.skipif(
    not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"), reason="POSIX FIFOs and devices"
)

TIMEOUT = 60


def _matrix(*shapes: str) -> list[object]:
    """The FIFO (the shape that hangs a reader) in the fast loop, the rest
    (a real process each, about a second) marked slow."""
    return [shape if shape == "fifo" else pytest.param(shape, marks=pytest.mark.slow) for shape in shapes]


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _null(path: Path) -> None:
    path.symlink_to("/dev/null")


def _directory(path: Path) -> None:
    path.mkdir()


def _oversize(limit: int) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        with open(path, "wb") as handle:  # sparse: no disk space taken
            handle.truncate(limit + 1)

    return make


SHAPES: dict[str, Callable[[Path], None]] = {"fifo": _fifo, "zero": _zero, "null": _null, "directory": _directory}
KINDS = {"fifo": "a FIFO", "zero": "a character device", "null": "a character device", "directory": "a directory"}


def _mmlint(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "mmlint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=environment,
    )


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "p.py").write_text(SOURCE)
    monkeypatch.chdir(root)
    monkeypatch.setenv("PWD", str(root))
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    return root


# --- the reader itself ------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
def test_read_placed_refuses_what_is_not_a_regular_file(tmp_path: Path, shape: str) -> None:
    SHAPES[shape](tmp_path / "f")
    with pytest.raises(PlacedFileError, match=f"not a regular file \\(it is {KINDS[shape]}\\)"):
        read_placed(tmp_path / "f", 100)


def test_read_placed_bounds_and_links(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"x" * 10)
    assert read_placed(tmp_path / "f", 10).data == b"x" * 10
    with pytest.raises(PlacedFileError, match="too large"):
        read_placed(tmp_path / "f", 9)
    (tmp_path / "link").symlink_to(tmp_path / "f")
    assert read_placed(tmp_path / "link", 10).data == b"x" * 10
    with pytest.raises(PlacedFileError, match="it is a symbolic link"):
        read_placed(tmp_path / "link", 10, follow_links=False)
    with pytest.raises(FileNotFoundError):
        read_placed(tmp_path / "missing", 10)


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab\n\u00e9'),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(alphabet='[]{}"\\a'), inner, max_size=4),
    max_leaves=30,
)


@given(_JSON, st.booleans())
def test_json_depth_is_the_nesting_of_the_value(value: object, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert json_depth(text.encode("utf-8")) == _depth(value)


# --- check --baseline FILE --------------------------------------------------------


@pytest.mark.parametrize("shape", _matrix(*SHAPES, "oversize", "deep", "nul"))
def test_a_hostile_baseline_is_exit_2_naming_it(project: Path, shape: str) -> None:
    baseline = project / "baseline.json"
    if shape == "oversize":
        _oversize(BASELINE_MAX_BYTES)(baseline)
    elif shape == "deep":
        baseline.write_text("[" * 100_000)
    elif shape == "nul":
        baseline.write_text(
            json.dumps({"version": 1, "entries": [{"path": "p\x00.py", "code": "MM001", "text": "x", "count": 1}]})
        )
    else:
        SHAPES[shape](baseline)
    expected = {
        "oversize": f"cannot read: too large ({BASELINE_MAX_BYTES + 1:,} bytes; mmlint reads at most {BASELINE_MAX_BYTES:,} bytes",
        "deep": f"not a baseline: JSON nested more than {JSON_MAX_DEPTH} deep",
        "nul": "entry 1: 'path' holds a NUL character",
    }.get(shape, f"cannot read: not a regular file (it is {KINDS.get(shape)})")
    ran = _mmlint(project, "check", "--baseline", "baseline.json")
    assert ran.returncode == 2, ran.stderr
    if shape == "directory":  # click's own check of the option
        assert "'baseline.json' is a directory" in ran.stderr
        return
    assert ran.stderr.startswith(f"mmlint: error: baseline baseline.json: {expected}"), ran.stderr
    if shape not in ("fifo", "zero"):  # cannot hang: the same in process
        result = CliRunner().invoke(cli, ["check", "--baseline", "baseline.json"])
        assert result.exit_code == 2 and result.stderr == ran.stderr


def test_a_baseline_nested_within_the_limit_is_read(project: Path) -> None:
    nested = json.dumps({"version": 1, "entries": [], "extra": [[[[1]]]]})
    (project / "baseline.json").write_text(nested)
    assert json_depth(nested.encode()) <= JSON_MAX_DEPTH
    result = CliRunner().invoke(cli, ["check", "--baseline", "baseline.json"])
    assert result.exit_code == 1, result.output


# --- configuration files -------------------------------------------------------------


@pytest.mark.parametrize("shape", _matrix(*SHAPES, "oversize"))
def test_a_hostile_config_named_with_config_is_exit_2_naming_it(project: Path, shape: str) -> None:
    (_oversize(CONFIG_MAX_BYTES) if shape == "oversize" else SHAPES[shape])(project / "mmlint.toml")
    ran = _mmlint(project, "check", "--config", "mmlint.toml")
    assert ran.returncode == 2, ran.stderr
    expected = {
        "directory": "Invalid value for '--config': File 'mmlint.toml' is a directory.",
        "oversize": f"mmlint.toml: cannot read: too large ({CONFIG_MAX_BYTES + 1:,} bytes",
    }.get(shape, f"mmlint.toml: cannot read: not a regular file (it is {KINDS.get(shape)})")
    assert ran.stderr.startswith(f"mmlint: error: {expected}"), ran.stderr


@pytest.mark.parametrize(
    "name",
    [
        "pyproject.toml",
        pytest.param("mmlint.toml", marks=pytest.mark.slow),
        pytest.param(".mmlint.toml", marks=pytest.mark.slow),
    ],
)
def test_a_discovered_config_too_large_is_exit_2_naming_it(project: Path, name: str) -> None:
    _oversize(CONFIG_MAX_BYTES)(project / name)
    ran = _mmlint(project, "check")
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr.startswith(f"mmlint: error: {name}: cannot read: too large ("), ran.stderr


@pytest.mark.parametrize("shape", _matrix(*SHAPES))
def test_a_discovered_config_that_is_not_a_regular_file_is_not_one(project: Path, shape: str) -> None:
    """As before: only a regular file is a configuration; the run does not hang on it."""
    SHAPES[shape](project / "pyproject.toml")
    ran = _mmlint(project, "check")
    assert ran.returncode == 1, ran.stderr
    assert "MM001" in ran.stdout


def test_a_config_swapped_for_a_fifo_after_the_check_is_refused(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kind is taken from the open file: a FIFO that passed a stale check (a
    swap between the stat and the open) is refused, not waited on."""
    _fifo(project / "mmlint.toml")
    monkeypatch.setattr(Path, "is_file", lambda self: os.path.lexists(self))
    result = CliRunner().invoke(cli, ["check"])
    assert result.exit_code == 2
    assert result.stderr == "mmlint: error: mmlint.toml: cannot read: not a regular file (it is a FIFO)\n"


# --- .gitignore and .git ----------------------------------------------------------------


@pytest.mark.parametrize("shape", _matrix(*SHAPES, "oversize"))
def test_a_hostile_gitignore_is_not_applied_with_a_warning(project: Path, shape: str) -> None:
    (project / ".git").mkdir()
    (project / "sub").mkdir()
    (project / "sub" / "q.py").write_text(SOURCE)
    (_oversize(GITIGNORE_MAX_BYTES) if shape == "oversize" else SHAPES[shape])(project / "sub" / ".gitignore")
    ran = _mmlint(project, "check", "--format", "json")
    assert ran.returncode == 1, ran.stderr
    assert {d["path"] for d in json.loads(ran.stdout)["diagnostics"]} == {"p.py", "sub/q.py"}
    reason = "too large (" if shape == "oversize" else f"not a regular file (it is {KINDS[shape]})"
    assert f"sub/.gitignore: cannot read: {reason}" in ran.stderr
    assert "its patterns are not applied" in ran.stderr


@pytest.mark.parametrize("where", [".git", "commondir"])
@pytest.mark.parametrize("shape", _matrix("fifo", "zero"))
def test_a_hostile_git_pointer_does_not_hang_the_walk(tmp_path: Path, project: Path, where: str, shape: str) -> None:
    if where == ".git":
        SHAPES[shape](project / ".git")
    else:  # a worktree's .git file points at a gitdir whose commondir is hostile
        gitdir = tmp_path / "gitdir"
        gitdir.mkdir()
        SHAPES[shape](gitdir / "commondir")
        (project / ".git").write_text(f"gitdir: {gitdir}\n")
    ran = _mmlint(project, "check")
    assert ran.returncode == 1, ran.stderr
    assert "MM001" in ran.stdout


# --- the cache ---------------------------------------------------------------------------


@pytest.fixture
def cached(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, str]]:
    """A project checked once with a cache of its own: (cache directory, environment)."""
    cache = tmp_path / "cache"
    env = {"MMLINT_CACHE_DIR": str(cache), "MMLINT_NO_CACHE": "0", "MMLINT_CACHE_MAX_MB": "1"}
    ran = _mmlint(project, "check", env=env)
    assert ran.returncode == 1 and "MM001" in ran.stdout
    return cache, env


def _entries(cache: Path) -> list[Path]:
    return [p for p in cache.rglob("*") if p.is_file() and len(p.name) == 64]


@pytest.mark.parametrize("shape", _matrix(*SHAPES, "oversize", "link"))
def test_a_hostile_cache_entry_is_a_miss(project: Path, cached: tuple[Path, dict[str, str]], shape: str) -> None:
    cache, env = cached
    entries = _entries(cache)
    assert entries
    for entry in entries:
        good = entry.read_bytes()
        entry.unlink()
        if shape == "oversize":  # over the cap (1 MiB), its bytes good
            entry.write_bytes(good + b"\0" * (1024 * 1024))
        elif shape == "link":  # a link to a good entry: never followed
            (entry.parent / "good").write_bytes(good)
            entry.symlink_to(entry.parent / "good")
        else:
            SHAPES[shape](entry)
    ran = _mmlint(project, "check", env=env)
    assert ran.returncode == 1, ran.stderr
    assert "MM001" in ran.stdout and ran.stderr == ""


@pytest.mark.parametrize("shape", _matrix(*SHAPES, "oversize", "link"))
def test_a_hostile_cache_key_file_turns_the_cache_off_with_a_warning(
    project: Path, cached: tuple[Path, dict[str, str]], shape: str
) -> None:
    cache, env = cached
    key = cache / "key"
    good = key.read_bytes()
    key.unlink()
    if shape == "oversize":
        key.write_bytes(good * 5)
        key.chmod(0o600)
    elif shape == "link":
        (cache / "other").write_bytes(good)
        key.symlink_to(cache / "other")
    else:
        SHAPES[shape](key)
    ran = _mmlint(project, "check", env=env)
    assert ran.returncode == 1, ran.stderr
    assert "MM001" in ran.stdout
    reason = {
        "oversize": "too large (160 bytes",
        "link": "it is a symbolic link",
        "zero": "it is a symbolic link",
        "null": "it is a symbolic link",
    }.get(shape, f"not a regular file (it is {KINDS.get(shape)})")
    assert ran.stderr.startswith(
        f"mmlint: warning: not using the cache at {cache}: its key file is refused: {reason}"
    ), ran.stderr
