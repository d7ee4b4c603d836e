"""The README's configuration recipe, copied as written into sglang 0.5.23's
layout (``python/pyproject.toml`` beside ``python/sglang/srt/multimodal``):
no finding about the configuration itself (MM012, MM008), and a scan that is
not vacuous."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sglang_layout import REPO, configuration_block

pytestmark = pytest.mark.ecosystem


def test_the_minimal_recipe_is_clean_on_sglang(sglang_copy: Callable[[str], Path], tmp_path: Path) -> None:
    multimodal = sglang_copy("0.5.23")
    python = multimodal.parents[2]  # <root>/sglang/srt/multimodal → <root>, as sglang's python/
    (python / "pyproject.toml").write_text('[project]\nname = "sglang"\n\n' + configuration_block(), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "--format", "json", "--no-cache", "--exit-zero"],
        cwd=python, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    codes = {d["code"] for d in report["diagnostics"]}
    assert not codes & {"MM012", "MM008"}, [d for d in report["diagnostics"] if d["code"] in ("MM012", "MM008")]
    assert report["files_scanned"] > 50 and report["call_sites"] >= 20
