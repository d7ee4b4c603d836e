"""The README stays true: its set-up commands, and its example output is what
mmlint prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

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


def test_console_example_is_real_output():
    match = re.search(r"```console\n\$ cd (\S+) && mmlint (.+?)\n(.*?)```", README, re.S)
    directory, arguments, shown = match.groups()
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", *arguments.split(), "--no-color"],
        cwd=REPO / directory,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert result.stdout == shown
