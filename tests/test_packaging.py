"""What a release is built from: the license, the project's URLs, one version
(mmlint/__init__.py's, which `mmlint --version` prints), metadata that
`twine check` accepts, and a changelog that names the version."""

from __future__ import annotations

import email
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from mmlint import __version__

REPO = Path(__file__).resolve().parent.parent

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib


def _project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_has_one_source() -> None:
    document = _project()
    assert "version" not in document["project"] and "version" in document["project"]["dynamic"]
    assert document["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mmlint.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_the_license_is_the_apache_text_pyproject_names() -> None:
    project = _project()["project"]
    assert (project["license"], project["license-files"]) == ("Apache-2.0", ["LICENSE"])
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text
    requires = _project()["build-system"]["requires"]
    assert requires == ["setuptools>=77"]  # the first setuptools reading an SPDX license and license-files


def test_the_project_urls_point_at_the_repository() -> None:
    urls = _project()["project"]["urls"]
    assert urls["Homepage"] == urls["Repository"] == "https://github.com/mmlint/mmlint"
    assert urls["Changelog"].endswith("/CHANGELOG.md")


def test_the_changelog_holds_unreleased_and_this_version() -> None:
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert changelog.startswith("# Changelog\n") and "https://keepachangelog.com/" in changelog
    headings = re.findall(r"^## \[([^\]]+)\]", changelog, re.M)
    assert headings[:2] == ["Unreleased", __version__]
    assert re.search(rf"^\[{re.escape(__version__)}\]: https://github\.com/mmlint/mmlint/", changelog, re.M)


def test_the_docs_pin_this_release() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    tag = f"v{__version__}"
    assert f"rev: {tag}" in readme and f"uses: mmlint/mmlint@{tag}" in readme
    assert f"rev: {tag}" in (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert f"uses: mmlint/mmlint@{tag}" in (REPO / "action.yml").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_wheel_and_sdist_pass_twine_check(tmp_path: Path) -> None:
    """Built from a copy (a build writes build/ and *.egg-info beside the sources)."""
    pytest.importorskip("build", reason="build is not installed (the `dev` extra has it)")
    pytest.importorskip("twine", reason="twine is not installed (the `dev` extra has it)")
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, source / name)
    shutil.copytree(REPO / "mmlint", source / "mmlint", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(source)], capture_output=True, text=True, timeout=600
    )
    if built.returncode != 0 and re.search(
        r"Could not find a version|Failed to establish|No matching distribution", built.stdout + built.stderr
    ):
        pytest.skip("the package registry is unreachable: build cannot install setuptools")
    assert built.returncode == 0, built.stdout + built.stderr
    artefacts = sorted(dist.iterdir())
    assert [path.name for path in artefacts] == [
        f"mmlint-{__version__}-py3-none-any.whl",
        f"mmlint-{__version__}.tar.gz",
    ]
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, artefacts)],
                             capture_output=True, text=True, timeout=300)  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with zipfile.ZipFile(artefacts[0]) as wheel:
        metadata = email.message_from_bytes(wheel.read(f"mmlint-{__version__}.dist-info/METADATA"))
        assert f"mmlint-{__version__}.dist-info/licenses/LICENSE" in wheel.namelist()
    assert (metadata["Version"], metadata["License-Expression"]) == (__version__, "Apache-2.0")
    assert "Repository, https://github.com/mmlint/mmlint" in metadata.get_all("Project-URL")
