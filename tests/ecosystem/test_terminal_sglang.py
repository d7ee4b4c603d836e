"""`check` and `audit` over sglang 0.5.14's multimodal tree at 80 columns:
no line wider than the terminal but quoted source, and the twin pairs of
`audit` grouped (forty of them, nearly all alike)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_readable_at_80_columns import wider_than_the_terminal

from sglang_layout import REPO

pytestmark = pytest.mark.ecosystem

ENV = {"COLUMNS": "80", "NO_COLOR": "1", "MMLINT_NO_CACHE": "1", "PYTHONPATH": str(REPO)}


def _run(command: str, multimodal: Path, *options: str) -> subprocess.CompletedProcess[str]:
    root = multimodal.parents[2]
    return subprocess.run(
        [sys.executable, "-m", "mmlint", command, *options, str(multimodal.relative_to(root))], cwd=root,
        capture_output=True, text=True, timeout=600, env={**os.environ, **ENV},
    )  # fmt: skip


def test_check_fits_80_columns(sglang_0_5_14: Path) -> None:
    result = _run("check", sglang_0_5_14)
    assert result.returncode == 1 and result.stdout.count("= help: ") >= 20, result.stderr
    assert wider_than_the_terminal(result.stdout) == []


def test_audit_fits_80_columns_with_its_twin_pairs_grouped(sglang_0_5_14: Path) -> None:
    grouped = _run("audit", sglang_0_5_14)
    assert grouped.returncode == 0, grouped.stderr
    assert wider_than_the_terminal(grouped.stdout) == []
    pairs = int(re.search(r"^(\d+) twin pairs \(MM010\)", grouped.stdout, re.M).group(1))
    assert pairs >= 20 and "\ntwin pair " not in grouped.stdout
    full = _run("audit", sglang_0_5_14, "--show-twins")
    assert full.stdout.count("\ntwin pair ") == pairs
