"""The light facts tier agrees with the libcst collector on every sync-only
file of sglang 0.5.23's whole package (tests/test_light_facts.py for the why)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_light_facts import compare

from mmlint.check.prefilter import _defines_coroutine

pytestmark = [pytest.mark.ecosystem, pytest.mark.slow]


def test_every_sync_only_file_of_sglang_0_5_23_agrees(sglang_0_5_23_package: Path) -> None:
    problems: list[str] = []
    compared = 0
    for path in sorted(sglang_0_5_23_package.rglob("*.py")):
        data = path.read_bytes()
        if _defines_coroutine(data):
            continue
        compared += 1
        problems += compare(data, path, path.as_posix())
    assert compared > 1000 and problems == []
