"""The ecosystem harness itself, offline: cache reuse, extraction, skip vs error.

pip is replaced by a fake ``subprocess.run`` here, so these tests never touch
the network and are not marked ``ecosystem``.
"""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from . import releases as sglang


def _make_wheel(path: Path, version: str) -> Path:
    wheel = path / f"sglang-{version}-cp311-cp311-manylinux_2_34_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("sglang/__init__.py", "")
        archive.writestr("sglang/srt/server.py", "SERVER = 1\n")
        archive.writestr("sglang/srt/multimodal/processors/clip.py", "CLIP = 1\n")
        archive.writestr("sglang/srt/multimodal/mm_utils.py", "UTILS = 1\n")
    return wheel


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MMLINT_ECOSYSTEM_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _pip_must_not_run(*args, **kwargs):
    raise AssertionError(f"pip was run although the wheel is cached: {args}")


def test_cached_wheel_is_extracted_once_without_pip(cache: Path, monkeypatch: pytest.MonkeyPatch):
    (cache / "wheels").mkdir(parents=True)
    _make_wheel(cache / "wheels", "9.9.9")
    monkeypatch.setattr(sglang.subprocess, "run", _pip_must_not_run)

    multimodal = sglang.sglang_multimodal("9.9.9")

    assert multimodal == cache / "sglang-9.9.9" / "sglang" / "srt" / "multimodal"
    assert sorted(p.relative_to(cache / "sglang-9.9.9").as_posix() for p in (cache / "sglang-9.9.9").rglob("*.py")) == [
        "sglang/srt/multimodal/mm_utils.py",
        "sglang/srt/multimodal/processors/clip.py",
    ]
    # No staging directory is left behind, and a second call reuses the tree.
    assert sorted(p.name for p in cache.iterdir()) == ["sglang-9.9.9", "wheels"]
    (multimodal / "mm_utils.py").write_text("EDITED = 1\n")
    assert sglang.sglang_multimodal("9.9.9") == multimodal
    assert (multimodal / "mm_utils.py").read_text() == "EDITED = 1\n"


def test_download_moves_the_wheel_into_the_cache(cache: Path, monkeypatch: pytest.MonkeyPatch):
    calls: list[list[str]] = []

    def fake_pip(command, **kwargs):
        calls.append(command)
        destination = Path(command[command.index("--dest") + 1])
        _make_wheel(destination, "9.9.8")
        return subprocess.CompletedProcess(command, 0, "Successfully downloaded sglang\n", "")

    monkeypatch.setattr(sglang.subprocess, "run", fake_pip)
    multimodal = sglang.sglang_multimodal("9.9.8")

    assert len(calls) == 1
    command = calls[0]
    assert command[1:4] == ["-m", "pip", "download"]
    assert "--no-deps" in command and "--only-binary=:all:" in command
    assert command[-1] == "sglang==9.9.8"
    assert [p.name for p in (cache / "wheels").iterdir()] == ["sglang-9.9.8-cp311-cp311-manylinux_2_34_x86_64.whl"]
    assert (multimodal / "processors" / "clip.py").read_text() == "CLIP = 1\n"


def test_unreachable_registry_skips_with_the_version_and_pip_error(cache: Path, monkeypatch: pytest.MonkeyPatch):
    stderr = (
        "WARNING: Retrying (Retry(total=4)) after connection broken by "
        "'NewConnectionError(...: Failed to establish a new connection: [Errno 101] Network is unreachable')\n"
        "ERROR: No matching distribution found for sglang==9.9.7\n"
    )
    monkeypatch.setattr(
        sglang.subprocess, "run", lambda command, **kwargs: subprocess.CompletedProcess(command, 1, "", stderr)
    )
    with pytest.raises(pytest.skip.Exception, match=r"sglang==9\.9\.7.*No matching distribution found"):
        sglang.sglang_multimodal("9.9.7")


def test_pip_timeout_skips(cache: Path, monkeypatch: pytest.MonkeyPatch):
    def hanging_pip(command, **kwargs):
        raise subprocess.TimeoutExpired(command, kwargs.get("timeout", 0))

    monkeypatch.setattr(sglang.subprocess, "run", hanging_pip)
    with pytest.raises(pytest.skip.Exception, match=r"sglang==9\.9\.6.*timed out"):
        sglang.sglang_multimodal("9.9.6")


def test_other_pip_failures_are_errors(cache: Path, monkeypatch: pytest.MonkeyPatch):
    stderr = "ERROR: Invalid requirement: 'sglang==not a version'\n"
    monkeypatch.setattr(
        sglang.subprocess, "run", lambda command, **kwargs: subprocess.CompletedProcess(command, 1, "", stderr)
    )
    with pytest.raises(sglang.EcosystemSetupError, match="Invalid requirement"):
        sglang.sglang_multimodal("not a version")
