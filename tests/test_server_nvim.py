"""`mmlint server` from a real editor: Neovim, headless, opens a processor of
the fixtures (a temporary copy), receives its MM001, applies the code action
that fixes it and writes the buffer; the file on disk is then what
`mmlint fix` makes of it. `.ci/run` installs Debian's `neovim` where it is
missing; the test is skipped only where no `nvim` can be found."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "processors"
SCRIPT = Path(__file__).resolve().parent / "nvim" / "fix_with_mmlint.lua"
NVIM = shutil.which("nvim")


@pytest.mark.slow
@pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed; .ci/run installs Debian's `neovim` package")
def test_neovim_receives_mm001_applies_the_fix_and_writes_what_mmlint_fix_writes(tmp_path: Path) -> None:
    relative = "mmproc/processors/clip.py"
    edited, by_cli = tmp_path / "edited", tmp_path / "by-cli"
    shutil.copytree(FIXTURES, edited)
    shutil.copytree(FIXTURES, by_cli)
    home = tmp_path / "home"  # Neovim's state, logs and caches stay in the test's directory
    env = {
        **os.environ,
        "HOME": str(home),
        **{
            name: str(home / name.lower())
            for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")
        },
        "MMLINT_CACHE_DIR": str(tmp_path / "mmlint-cache"),
        "MMLINT_NVIM_CMD": json.dumps([sys.executable, "-m", "mmlint", "server"]),
        "MMLINT_NVIM_ROOT": str(edited),
        "MMLINT_NVIM_RESULT": str(tmp_path / "result.json"),
    }
    subprocess.run(
        [NVIM, "--headless", "--clean", "-n", "-i", "NONE", "-c", f"luafile {SCRIPT}", relative],
        cwd=edited,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=240,
    )
    result = json.loads((tmp_path / "result.json").read_text())
    assert result.get("error") is None, result
    assert [(d["code"], d["lnum"], d["source"]) for d in result["diagnostics"]] == [("MM001", 17, "mmlint")]
    assert result["title"] == "mmlint: fix MM001 (sync-twin-call)"

    subprocess.run(
        [sys.executable, "-m", "mmlint", "fix", relative], cwd=by_cli, env=env, capture_output=True, timeout=120
    )
    expected = (by_cli / relative).read_bytes()
    assert expected != (FIXTURES / relative).read_bytes()
    assert (edited / relative).read_bytes() == expected


RECIPE_DRIVER = Path(__file__).resolve().parent / "nvim" / "readme_recipe_driver.lua"
README = Path(__file__).resolve().parent.parent / "README.md"
# Recorded before init.lua runs: what Neovim said through vim.notify (its deprecation warnings go there).
RECORD_NOTIFY = "lua MMLINT_NOTIFIED = {}; local n = vim.notify; vim.notify = function(m, ...) table.insert(MMLINT_NOTIFIED, m); return n(m, ...) end"


def readme_neovim_recipe() -> str:
    """The ```lua block of the README's Neovim recipe, as a user copies it."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("**Neovim**") : text.index("**Helix**")]
    return section.split("```lua\n", 1)[1].split("```", 1)[0]


@pytest.mark.slow
@pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed; .ci/run installs Debian's `neovim` package")
def test_the_readme_recipe_starts_one_client_offers_the_actions_and_fixes_all(tmp_path: Path) -> None:
    relative, second = "mmproc/processors/clip.py", "mmproc/processors/llava.py"
    edited, by_cli = tmp_path / "edited", tmp_path / "by-cli"
    shutil.copytree(FIXTURES, edited)
    shutil.copytree(FIXTURES, by_cli)
    (tmp_path / "init.lua").write_text(readme_neovim_recipe(), encoding="utf-8")
    bin_dir = tmp_path / "bin"  # `mmlint` on PATH, as the recipe's `cmd` expects: this checkout's
    bin_dir.mkdir()
    (bin_dir / "mmlint").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mmlint "$@"\n', encoding="utf-8")
    (bin_dir / "mmlint").chmod(0o755)
    home = tmp_path / "home"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home),
        **{
            name: str(home / name.lower())
            for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")
        },
        "MMLINT_CACHE_DIR": str(tmp_path / "mmlint-cache"),
        "MMLINT_NVIM_SECOND": second,
        "MMLINT_NVIM_RESULT": str(tmp_path / "result.json"),
    }
    subprocess.run(
        [
            NVIM,
            "--headless",
            "-n",
            "-i",
            "NONE",
            "--cmd",
            RECORD_NOTIFY,
            "-u",
            str(tmp_path / "init.lua"),
            "-c",
            f"luafile {RECIPE_DRIVER}",
            relative,
        ],
        cwd=edited,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=240,
    )
    result = json.loads((tmp_path / "result.json").read_text())
    assert result.get("error") is None, result
    assert [(d["code"], d["lnum"], d["source"]) for d in result["diagnostics"]] == [("MM001", 17, "mmlint")]
    assert result["titles"] == [
        "mmlint: fix MM001 (sync-twin-call)",
        "mmlint: suppress MM001 with `# mmlint: ignore[MM001]`",
        "Fix all mmlint problems in this file",
    ]
    assert result["clients"] == ["mmlint"]  # the second file reuses the first one's server
    assert result["notified"] == [] and "deprecated" not in result["messages"], result

    subprocess.run(
        [sys.executable, "-m", "mmlint", "fix", relative], cwd=by_cli, env=env, capture_output=True, timeout=120
    )
    assert (edited / relative).read_bytes() == (by_cli / relative).read_bytes() != (FIXTURES / relative).read_bytes()
