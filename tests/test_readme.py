"""The README stays true: its set-up commands, and its example output is what
mmlint prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_starts_with_the_two_setup_commands():
    first_block = re.search(r"```sh\n(.*?)```", README, re.S).group(1).splitlines()
    assert first_block == [
        "python3 -m pip install . && (cd fixtures/processors && mmlint check)",
        "python3 -m pip install -e '.[test]' && python3 -m pytest",
    ]
    assert README.index("```sh") < README.index("## ")


def test_ci_runs_the_readme_commands():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 -m pip install -e '.[test]' && python3 -m pytest" in ci
    assert "python3 -m pip install . && (cd fixtures/processors && mmlint check" in ci


CONSOLE_EXAMPLES = re.findall(r"```console\n\$ cd (\S+) && mmlint (.+?)\n(.*?)```", README, re.S)


def test_readme_opens_with_what_it_is_then_setup_then_a_first_check():
    lines = README.splitlines()
    assert lines[0] == "# mmlint" and lines[1] == ""
    assert lines[2].startswith("mmlint finds ") and lines[3] == "" and lines[4] == "```sh"
    first_section = README.index("## ")
    assert README[first_section:].startswith("## A first check")
    assert README.index("```console") > first_section
    assert README.index("```console") < README.index("## ", first_section + 3)


def test_readme_snippets_pin_the_release_the_changelog_names():
    from mmlint import __version__

    tags = set(re.findall(r"(?:rev: |@)(v\d+\.\d+\.\d+)\b", README))
    assert tags == {f"v{__version__}"}
    assert f"## [{__version__}]" in (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "<commit sha>" not in README and "<mmlint repository URL>" not in README
    assert "actions/cache@" in README and "~/.cache/mmlint" in README


def test_hooks_fix_before_they_check_and_bind_named_files_to_paths():
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    ids = re.findall(r"^- id: (\S+)$", hooks, re.M)
    assert ids == ["mmlint-fix", "mmlint"]
    entries = re.findall(r"^  entry: (.+)$", hooks, re.M)
    assert entries == ["mmlint fix --exit-zero --force-paths --", "mmlint check --force-paths --"]


@pytest.mark.parametrize(("directory", "arguments", "shown"), CONSOLE_EXAMPLES, ids=[a for _, a, _ in CONSOLE_EXAMPLES])
def test_console_example_is_real_output(directory, arguments, shown):
    assert len(CONSOLE_EXAMPLES) >= 3
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", *arguments.split(), "--no-color"],
        cwd=REPO / directory,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", "MMLINT_NO_CACHE": "1"},
    )
    assert result.stdout == shown


def test_the_setup_says_how_long_each_command_takes_and_names_the_fast_loop():
    top = README[: README.index("## ")]
    assert "about ten minutes" in top and "40 to 60 s" in top
    assert '    python3 -m pytest -m "not slow and not ecosystem"\n' in top
    marker = re.search(r"^markers = \[(.*?)^\]", (REPO / "pyproject.toml").read_text(encoding="utf-8"), re.M | re.S)
    assert '"slow:' in marker.group(1) and '"ecosystem:' in marker.group(1)  # the markers the command names
