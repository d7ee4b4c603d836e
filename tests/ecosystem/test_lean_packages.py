"""The lean view gives every analysed file of two real packages the outcome
of its whole parse (tests/test_lean.py for the why): sglang 0.5.23's and
vLLM 0.33.0's whole packages, every file the prefilter passes."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_lean import compare_lean

from mmlint.check.prefilter import Prefilter
from mmlint.config.settings import DEFAULT_TWINS

pytestmark = [pytest.mark.ecosystem, pytest.mark.slow]


def _analysed(package: Path) -> list[Path]:
    passes = Prefilter(DEFAULT_TWINS).could_hold_finding
    return [path for path in sorted(package.rglob("*.py")) if passes(path.read_bytes())]


@pytest.mark.parametrize("name", ["sglang_0_5_23_package", "vllm_0_33_0_package"])
def test_every_analysed_file_has_the_outcome_of_its_whole_parse(
    name: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _analysed(request.getfixturevalue(name))
    used, problems = compare_lean(monkeypatch, paths)
    assert problems == []
    assert len(paths) > 100 and used > len(paths) // 2  # most take the lean view
