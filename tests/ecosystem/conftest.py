"""Fixtures giving the ecosystem tests real releases of serving frameworks (see releases.py)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from .releases import MULTIMODAL_PREFIX, sglang_multimodal, sglang_package, vllm_package, xinference_package


@pytest.fixture(scope="session")
def sglang_0_5_14() -> Path:
    """``sglang/srt/multimodal`` of sglang 0.5.14: processors still call the sync twin."""
    return sglang_multimodal("0.5.14")


@pytest.fixture(scope="session")
def sglang_0_5_23() -> Path:
    """``sglang/srt/multimodal`` of sglang 0.5.23: processors await the async twin."""
    return sglang_multimodal("0.5.23")


@pytest.fixture
def sglang_copy(tmp_path: Path) -> Callable[[str], Path]:
    """A factory: ``sglang_copy(version)`` copies that release's multimodal tree
    to ``tmp_path/sglang-<version>/sglang/srt/multimodal`` (tests that rewrite
    files must not touch the shared cache) and returns the copied directory."""

    def copy(version: str) -> Path:
        destination = tmp_path / f"sglang-{version}" / MULTIMODAL_PREFIX
        shutil.copytree(sglang_multimodal(version), destination, ignore=shutil.ignore_patterns("__pycache__"))
        return destination

    return copy


@pytest.fixture(scope="session")
def sglang_0_5_23_package() -> Path:
    """The whole ``sglang`` package of 0.5.23 (every module, not only multimodal)."""
    return sglang_package("0.5.23")


@pytest.fixture(scope="session")
def vllm_0_33_0_package() -> Path:
    """The whole ``vllm`` package of 0.33.0 (its ``.py`` files; the wheel's native
    libraries are never extracted)."""
    return vllm_package("0.33.0")


@pytest.fixture(scope="session")
def xinference_4_1_0_package() -> Path:
    """The whole ``xinference`` package of Xinference 4.1.0, its latest release when
    issue 40 added it (its ``.py`` files only)."""
    return xinference_package("4.1.0")
