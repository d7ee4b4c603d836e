"""Test code and vendored trees (SPEC, Release 4; issue 40 point 5): read as
context and not reported by default; `report-tests-and-vendored = true`
reports them. Paths are judged relative to the configuration's root."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from expectations import Finding, assert_diagnostics_match, expected_findings

from mmlint.api import check
from mmlint.check.filters import is_test_or_vendored
from mmlint.config.load import ConfigError

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "context_only"
CODES = ("MM003", "MM004", "MM005")
REPORTED_MARKER = re.compile(r"#\s*expect-reported:\s*(?P<codes>MM\d{3}(?:\s*,\s*MM\d{3})*)\s*$")
# The await of the vendored `pause`: MM004 while `pause` is not reported, folded into its finding when it is.
FOLDED_AWAIT = Finding("cpkg/app.py", 15, "MM004")


def test_by_default_only_application_code_is_reported() -> None:
    report = check(cwd=PACKAGE)
    assert_diagnostics_match(expected_findings(PACKAGE, PACKAGE), report.diagnostics, CODES)


def test_the_setting_reports_tests_and_vendored_trees(tmp_path: Path) -> None:
    root = tmp_path / "ctx"
    shutil.copytree(PACKAGE, root)
    config = root / "pyproject.toml"
    config.write_text(config.read_text(encoding="utf-8") + "report-tests-and-vendored = true\n", encoding="utf-8")
    expected = expected_findings(root, root) + expected_findings(root, root, REPORTED_MARKER)
    expected[FOLDED_AWAIT] -= 1
    report = check(cwd=root)
    assert_diagnostics_match(+expected, report.diagnostics, CODES)
    assert {d.path.split("/")[1] for d in report.diagnostics} == {
        "app.py",
        "vendor",
        "third_party",
        "tests",
        "test_poll.py",
        "poll_test.py",
        "conftest.py",
    }


def test_a_checkout_under_a_tests_folder_is_not_test_code(tmp_path: Path) -> None:
    root = tmp_path / "tests" / "vendor" / "ctx"
    shutil.copytree(PACKAGE, root)
    assert_diagnostics_match(expected_findings(root, root), check(cwd=root).diagnostics, CODES)


def test_a_file_named_on_the_command_line_is_still_context_only() -> None:
    report = check(["cpkg/conftest.py", "cpkg/vendor/retry.py"], cwd=PACKAGE)
    assert report.diagnostics == ()


def test_the_setting_must_be_a_boolean(tmp_path: Path) -> None:
    config = tmp_path / "mmlint.toml"
    config.write_text('report-tests-and-vendored = "yes"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="report-tests-and-vendored"):
        check(cwd=PACKAGE, config=config)


@pytest.mark.parametrize(
    ("relpath", "expected"),
    [
        ("tests/x.py", True),
        ("pkg/tests/sub/x.py", True),
        ("test_x.py", True),
        ("pkg/x_test.py", True),
        ("pkg/conftest.py", True),
        ("pkg/test_x.pyi", True),
        ("pkg/thirdparty/a.py", True),
        ("pkg/third_party/a.py", True),
        ("vendor/a.py", True),
        ("pkg/_vendor/a.py", True),
        ("pkg/testing.py", False),
        ("pkg/test/x.py", False),
        ("pkg/latest.py", False),
        ("pkg/vendors/a.py", False),
        ("pkg/contest.py", False),
        ("/abs/tests/x.py", False),
        ("/abs/tests/test_x.py", True),
    ],
)
def test_which_paths_are_test_or_vendored(relpath: str, expected: bool) -> None:
    assert is_test_or_vendored(relpath) is expected
