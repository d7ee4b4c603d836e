"""A run with no PATH that no configuration governs, from a directory with
one a few levels below (sglang's checkout root, its configuration in
python/pyproject.toml), says so on stderr and how to use it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import CliRunner

from mmlint.check.config_below import MAX_DEPTH, configuration_below
from mmlint.cli import cli
from sglang_layout import REPO, make_sglang_layout

WARNING = (
    "mmlint: warning: no configuration here, so the whole tree below is scanned\n"
    "  python/pyproject.toml holds [tool.mmlint]: run from python/, or pass\n"
    "  --config python/pyproject.toml\n"
)


@pytest.fixture()
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    checkout = make_sglang_layout(tmp_path / "sglang")
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    return checkout


def _run(args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("PWD", str(cwd))
    return CliRunner().invoke(cli, args)


@pytest.mark.parametrize("command", [["check"], ["check", "--format", "json"], ["audit"], ["fix", "--diff"]])
def test_the_root_names_the_configuration_below(root: Path, monkeypatch, command: list[str]) -> None:
    result = _run(command, root, monkeypatch)
    assert result.stderr.startswith(WARNING), result.stderr
    assert result.stderr.count("no configuration here") == 1


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (["check"], "python"),
        (["check", "--config", "python/pyproject.toml"], "."),
        (["check", "python/sglang"], "."),
        (["check", "-q"], "."),
    ],
)
def test_no_warning_where_a_configuration_governs_or_paths_are_named(root: Path, monkeypatch, args, where) -> None:
    result = _run(args, root / where, monkeypatch)
    assert result.exit_code == 1 and "no configuration here" not in result.stderr, result.output


def test_a_real_process_warns(root: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "--statistics"], cwd=root, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1", "MMLINT_NO_CACHE": "1"},
    )  # fmt: skip
    assert result.returncode == 1 and result.stderr.startswith(WARNING), result.stderr


@pytest.mark.parametrize(
    ("relative", "text", "found"),
    [
        ("a/mmlint.toml", "", True),
        ("a/b/.mmlint.toml", "", True),
        ("a/pyproject.toml", "[tool.mmlint]\npaths = ['x']\n", True),
        ("a/pyproject.toml", "[tool.mmlint\n", True),  # broken, still named
        ("a/pyproject.toml", "[project]\nname = 'x'\n", False),
        (".hidden/mmlint.toml", "", False),
        ("build/mmlint.toml", "", False),
        ("third_party/lib/mmlint.toml", "", False),
        ("/".join("d" * (MAX_DEPTH + 1)) + "/mmlint.toml", "", False),
        ("/".join("d" * MAX_DEPTH) + "/mmlint.toml", "", True),
    ],
)
def test_the_search_is_bounded_and_skips_hidden_build_and_vendored(tmp_path: Path, relative, text, found) -> None:
    path = tmp_path / relative
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    assert configuration_below(tmp_path) == (path if found else None)


def test_the_shallowest_wins_and_a_link_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "mmlint.toml").write_text("")
    (tmp_path / "z").mkdir()
    (tmp_path / "z" / "mmlint.toml").write_text("")
    assert configuration_below(tmp_path) == tmp_path / "z" / "mmlint.toml"
    linked = tmp_path / "elsewhere"
    linked.mkdir()
    (linked / "l").mkdir()
    (linked / "l" / "mmlint.toml").write_text("")
    only = tmp_path / "only"
    only.mkdir()
    (only / "link").symlink_to(linked / "l")
    assert configuration_below(only) is None
