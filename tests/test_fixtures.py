"""The sample processor package under fixtures/processors, checked end to end.

The package's pyproject.toml configures mmlint; every expected diagnostic is a
`# expect:` marker on its line. A full scan (no PATH) must report exactly the
markers, and the scan's counts must equal what an independent stdlib-`ast`
walk of the same files finds.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest
from expectations import (
    assert_diagnostics_match,
    expected_findings,
    is_delegation,
    markers_to_suppressions,
    scan_twin_calls,
)

from mmlint.api import check

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "processors"
CODES = ("MM001", "MM002", "MM003", "MM999")
MIN_CALL_SITES_LINE = re.compile(r"^min-call-sites = \d+$", re.MULTILINE)


def _config(package: Path) -> dict:
    return tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mmlint"]


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """gitignore-style glob (`**` spans directories, `*` does not) as a regex over posix paths."""
    out = ""
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out += "(?:.*/)?"
            index += 3
        elif pattern.startswith("/**", index) and index + 3 == len(pattern):
            out += "/.*"
            index += 3
        elif pattern[index] == "*":
            out += "[^/]*"
            index += 1
        elif pattern[index] == "?":
            out += "[^/]"
            index += 1
        else:
            out += re.escape(pattern[index])
            index += 1
    return re.compile(out + r"\Z")


def _target_files(package: Path) -> list[Path]:
    """The files a full scan covers: `*.py`/`*.pyi` under `paths`, minus hidden,
    `__pycache__` and `exclude`d ones."""
    config = _config(package)
    excluded = [_glob_regex(pattern) for pattern in config.get("exclude", [])]
    files = []
    for top in config["paths"]:
        for file in sorted((package / top).rglob("*")):
            relative = file.relative_to(package).as_posix()
            parts = file.relative_to(package).parts
            if file.suffix not in (".py", ".pyi") or not file.is_file():
                continue
            if any(part.startswith(".") or part == "__pycache__" for part in parts):
                continue
            if any(regex.match(relative) for regex in excluded):
                continue
            files.append(file)
    return files


def _twin_pairs(package: Path) -> list[tuple[str, str]]:
    return [(pair["sync"], pair["async"]) for pair in _config(package)["twins"]]


def _independent_call_count(package: Path) -> int:
    """Twin calls in every target file that parses (suppressions and exemptions do not matter)."""
    twins = _twin_pairs(package)
    return sum(len(scan_twin_calls(file.read_bytes(), twins) or ()) for file in _target_files(package))


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    """A private copy of the fixture package that a test may edit."""
    copy = tmp_path / "processors"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _set_min_call_sites(package: Path, value: int) -> None:
    pyproject = package / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    assert MIN_CALL_SITES_LINE.search(text), "the fixture pyproject.toml sets min-call-sites on one line"
    pyproject.write_text(MIN_CALL_SITES_LINE.sub(f"min-call-sites = {value}", text), encoding="utf-8")


def test_full_scan_reports_exactly_the_markers():
    report = check(cwd=PACKAGE)
    expected = expected_findings(PACKAGE / "mmproc", PACKAGE)
    assert expected, "the fixture package must carry expect markers"
    assert_diagnostics_match(expected, report.diagnostics, CODES)


def test_full_scan_counts_match_an_independent_scan():
    report = check(cwd=PACKAGE)
    assert report.files_scanned == len(_target_files(PACKAGE))
    assert report.call_sites == _independent_call_count(PACKAGE)
    # The configured floor is met, so the guard stays quiet.
    assert report.call_sites >= _config(PACKAGE)["min-call-sites"]
    assert not [d for d in report.diagnostics if d.code == "MM008"]


def test_unrelated_broken_file_is_never_parsed_or_reported():
    report = check(cwd=PACKAGE)
    reported_paths = {d.path for d in report.diagnostics}
    assert "mmproc/processors/unrelated_broken.py" not in reported_paths
    assert "mmproc/processors/broken.py" in reported_paths


def test_too_few_call_sites_is_reported_against_the_config(package_copy: Path):
    # Above both the independent count and the engine's (their equality is
    # checked above); the message must name the floor and what the scan found.
    floor = max(_independent_call_count(package_copy), check(cwd=package_copy).call_sites) + 1
    _set_min_call_sites(package_copy, floor)
    report = check(cwd=package_copy)
    guard = [d for d in report.diagnostics if d.code == "MM008"]
    assert len(guard) == 1, guard
    assert guard[0].path == "pyproject.toml"
    numbers = {int(n) for n in re.findall(r"\d+", guard[0].message)}
    assert {report.call_sites, floor} <= numbers, guard[0].message


def test_too_few_call_sites_is_not_reported_for_a_named_file(package_copy: Path):
    _set_min_call_sites(package_copy, _independent_call_count(package_copy) + 1)
    named = package_copy / "mmproc" / "processors" / "clip.py"
    report = check(paths=[named], cwd=package_copy)
    assert report.files_scanned == 1
    assert not [d for d in report.diagnostics if d.code == "MM008"]
    # The named file's own finding is still there.
    assert [d.code for d in report.diagnostics] == ["MM001"]


def test_markers_turned_into_suppressions_silence_everything(package_copy: Path):
    suppressible = ("MM001", "MM002", "MM003")
    for file in (package_copy / "mmproc").rglob("*.py"):
        data = file.read_bytes()
        text = data.decode("utf-8")
        file.write_bytes(markers_to_suppressions(text, suppressible).encode("utf-8"))
    report = check(cwd=package_copy)
    left = [d for d in report.diagnostics if d.code in (*suppressible, "MM009")]
    assert left == [], "\n".join(f"{d.path}:{d.span.line}: {d.code} {d.message}" for d in left)
    # A syntax error cannot be suppressed by a comment.
    assert [d.path for d in report.diagnostics if d.code == "MM999"] == ["mmproc/processors/broken.py"]


def test_base_delegation_is_not_flagged_without_the_exemption(package_copy: Path):
    pyproject = package_copy / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    exemption = 'paths = ["**/base_processor.py"]\n'
    assert exemption in text
    pyproject.write_text(text.replace(exemption, ""), encoding="utf-8")

    report = check(cwd=package_copy)
    base = package_copy / "mmproc" / "base_processor.py"
    twins = _twin_pairs(package_copy)
    sites = scan_twin_calls(base.read_bytes(), twins)
    delegations = [s for s in sites if is_delegation(s, twins)]
    others = [s for s in sites if not is_delegation(s, twins) and not s.is_async_twin]
    assert delegations and others, "the base class has both a delegation and a plain sync call"

    expected = sorted(
        [(s.line, "MM001") for s in others] + [(s.line, "MM002") for s in others if s.scope != "async def"]
    )
    found = sorted(
        (d.span.line, d.code) for d in report.diagnostics if d.path == "mmproc/base_processor.py" and d.code in CODES
    )
    assert found == expected
