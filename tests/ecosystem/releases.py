"""Real releases of serving frameworks for the ecosystem checks, fetched once and cached.

``sglang_multimodal(version)`` returns the ``sglang/srt/multimodal`` directory of
that release's wheel; ``vllm_package(version)`` the whole ``vllm`` package of
vLLM's; ``xinference_package(version)`` the whole ``xinference`` package of
Xinference's (a pure-Python wheel). A wheel is downloaded with pip (no dependencies) into a cache directory
and reused between runs; only the part a test needs is extracted, once, into
``<cache>/<project>-<version>[-full]/``. When the package registry cannot be
reached the calling test is skipped; any other failure is an error.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

import pytest

MULTIMODAL_PREFIX = "sglang/srt/multimodal/"
PACKAGE_PREFIX = "sglang/"
VLLM_PACKAGE_PREFIX = "vllm/"
XINFERENCE_PACKAGE_PREFIX = "xinference/"
LITELLM_PROXY_PREFIX = "litellm/proxy/"
# The released wheels are CPython 3.11 manylinux builds (sglang's pure-Python
# ones; vLLM's are abi3 builds for CPython >= 3.8): what pip is asked for when
# the running interpreter is not such a target.
WHEEL_PYTHON = "3.11"
WHEEL_PLATFORM = "manylinux_2_34_x86_64"
_MIN_GLIBC = {"sglang": (2, 34), "vllm": (2, 28), "xinference": (2, 17), "litellm": (2, 28)}
DOWNLOAD_TIMEOUT_SECONDS = 600

# Words in pip's output that mean the registry was not reached (as opposed to
# the release not existing, or pip being broken).
_NETWORK_FAILURE_MARKERS = (
    "NewConnectionError",
    "ConnectTimeoutError",
    "ReadTimeoutError",
    "Max retries exceeded",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "Connection refused",
    "Connection reset",
    "ProxyError",
    "SSLError",
    "Could not fetch URL",
    "timed out",
)


class EcosystemSetupError(RuntimeError):
    """The release could not be prepared for a reason other than the network."""


def cache_dir() -> Path:
    """``$MMLINT_ECOSYSTEM_CACHE``, else ``~/.cache/mmlint-ecosystem``."""
    configured = os.environ.get("MMLINT_ECOSYSTEM_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "mmlint-ecosystem"


def sglang_multimodal(version: str) -> Path:
    """The extracted ``sglang/srt/multimodal`` directory of ``sglang==version``."""
    return _extracted("sglang", version, f"sglang-{version}", MULTIMODAL_PREFIX)


def sglang_package(version: str) -> Path:
    """The whole extracted ``sglang`` package (every ``.py`` file) of ``sglang==version``."""
    return _extracted("sglang", version, f"sglang-{version}-full", PACKAGE_PREFIX, suffix=".py")


def vllm_package(version: str) -> Path:
    """The whole extracted ``vllm`` package (its ``.py`` files only) of ``vllm==version``."""
    return _extracted("vllm", version, f"vllm-{version}-full", VLLM_PACKAGE_PREFIX, suffix=".py")


def xinference_package(version: str) -> Path:
    """The whole extracted ``xinference`` package (its ``.py`` files only; the web
    UI's assets are never extracted) of ``xinference==version``."""
    return _extracted("xinference", version, f"xinference-{version}-full", XINFERENCE_PACKAGE_PREFIX, suffix=".py")


def litellm_proxy_package(version: str) -> Path:
    """litellm's ``proxy`` package (its ``.py`` files only) of ``litellm==version``:
    851 files, about 5,000 async defs, modules of 20,000 lines (benchmarks/scan.py)."""
    return _extracted("litellm", version, f"litellm-{version}-proxy", LITELLM_PROXY_PREFIX, suffix=".py")


def _extracted(project: str, version: str, folder: str, prefix: str, suffix: str = "") -> Path:
    """``prefix`` of the release's wheel, extracted once into ``<cache>/<folder>``."""
    cache = cache_dir()
    release_root = cache / folder
    target = release_root / prefix
    if target.is_dir():
        return target
    wheels = cache / "wheels"
    wheel = _cached_wheel(wheels, project, version) or _download_wheel(wheels, version, project)
    _extract(wheel, release_root, prefix, suffix)
    if not target.is_dir():
        raise EcosystemSetupError(f"{wheel.name} has no {prefix} directory")
    return target


def _cached_wheel(wheels: Path, project: str, version: str) -> Path | None:
    found = sorted(wheels.glob(f"{project}-{version}-*.whl")) if wheels.is_dir() else []
    return found[0] if found else None


def _needs_cross_platform_flags(project: str = "sglang") -> bool:
    """pip picks wheels for the running interpreter; ask for the release's target
    explicitly when this is not a CPython 3.11 on a new enough glibc, x86_64 Linux."""
    if platform.python_implementation() != "CPython" or f"{sys.version_info[0]}.{sys.version_info[1]}" != WHEEL_PYTHON:
        return True
    if sysconfig.get_platform() != "linux-x86_64":
        return True
    libc, libc_version = platform.libc_ver()
    try:
        major, minor = (int(part) for part in libc_version.split(".")[:2])
    except ValueError:
        return True
    return libc != "glibc" or (major, minor) < _MIN_GLIBC[project]


def _download_wheel(wheels: Path, version: str, project: str = "sglang") -> Path:
    """Download the wheel into a temporary directory beside the cache, then move
    it in, so an interrupted download never leaves a partial wheel behind."""
    flags = ["--only-binary=:all:"]
    if _needs_cross_platform_flags(project):
        flags += ["--python-version", WHEEL_PYTHON, "--platform", WHEEL_PLATFORM]
    return _pip_download(wheels, f"{project}=={version}", flags, f"{project}-{version}-*.whl", "wheel")


def _pip_download(into: Path, requirement: str, flags: list[str], pattern: str, kind: str) -> Path:
    """``pip download --no-deps`` of ``requirement`` into a temporary directory
    beside ``into``, then the file matching ``pattern`` moved in. Skips the
    calling test when the registry cannot be reached; any other failure is an
    EcosystemSetupError."""
    into.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--disable-pip-version-check",
        "--no-input",
        *flags,
    ]
    with tempfile.TemporaryDirectory(dir=into, prefix=".download-") as staging:
        command += ["--dest", staging, requirement]
        try:
            result = subprocess.run(
                command, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT_SECONDS, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired:
            pytest.skip(
                f"{requirement}: pip download timed out after {DOWNLOAD_TIMEOUT_SECONDS}s (registry unreachable?)"
            )
        output = f"{result.stdout}\n{result.stderr}"
        if result.returncode != 0:
            last_line = _last_line(result.stderr) or _last_line(result.stdout) or f"exit code {result.returncode}"
            if any(marker in output for marker in _NETWORK_FAILURE_MARKERS):
                pytest.skip(f"{requirement}: package registry unreachable: {last_line}")
            raise EcosystemSetupError(f"pip download {requirement} failed: {last_line}")
        downloaded = sorted(Path(staging).glob(pattern))
        if not downloaded:
            raise EcosystemSetupError(f"pip download {requirement} produced no {kind}: {_last_line(output)}")
        target = into / downloaded[0].name
        os.replace(downloaded[0], target)
    return target


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _extract(wheel: Path, release_root: Path, prefix: str, suffix: str = "") -> None:
    """Extract the members under ``prefix`` (ending in ``suffix``) into a temporary
    directory, then rename it to ``release_root``; a concurrent run that got there first wins."""
    release_root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=release_root.parent, prefix=f".{release_root.name}-"))
    try:
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.infolist():
                name = member.filename
                if not name.startswith(prefix) or not name.endswith(suffix) or member.is_dir():
                    continue
                parts = PurePosixPath(name).parts
                if ".." in parts or PurePosixPath(name).is_absolute():
                    raise EcosystemSetupError(f"{wheel.name}: unsafe member path {name!r}")
                target = staging.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(member) as source, open(target, "wb") as sink:
                    shutil.copyfileobj(source, sink)
        try:
            os.rename(staging, release_root)
        except OSError:
            if not release_root.is_dir():
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging)


PYCG_VERSION = "0.0.8"


def pycg_snippets(version: str = PYCG_VERSION) -> Path:
    """``micro-benchmark/snippets`` of PyCG's sdist (``pycg==version``): its
    call-graph micro-benchmark, one directory per program, grouped in
    categories, each with ``main.py`` and the expected ``callgraph.json``.
    The sdist is downloaded once into ``<cache>/sdists``, extracted once."""
    cache = cache_dir()
    release_root = cache / f"pycg-{version}-benchmark"
    target = release_root / "snippets"
    if target.is_dir():
        return target
    sdists = cache / "sdists"
    found = sorted(sdists.glob(f"pycg-{version}.tar.gz")) if sdists.is_dir() else []
    archive = found[0] if found else _download_sdist(sdists, "pycg", version)
    prefix = f"pycg-{version}/micro-benchmark/snippets/"
    release_root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=release_root.parent, prefix=f".{release_root.name}-"))
    try:
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                name = member.name
                if not name.startswith(prefix) or not member.isfile():
                    continue
                parts = PurePosixPath(name[len(prefix) :]).parts
                if ".." in parts or PurePosixPath(name).is_absolute():
                    raise EcosystemSetupError(f"{archive.name}: unsafe member path {name!r}")
                destination = staging.joinpath("snippets", *parts)
                destination.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                assert source is not None
                with source, open(destination, "wb") as sink:
                    shutil.copyfileobj(source, sink)
        try:
            os.rename(staging, release_root)
        except OSError:
            if not release_root.is_dir():
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    if not target.is_dir():
        raise EcosystemSetupError(f"{archive.name} has no {prefix} directory")
    return target


def _download_sdist(sdists: Path, project: str, version: str) -> Path:
    """``pip download --no-deps --no-binary :all:`` into the sdists cache (as _download_wheel)."""
    return _pip_download(
        sdists, f"{project}=={version}", ["--no-binary", ":all:"], f"{project}-{version}.tar.gz", "sdist"
    )
