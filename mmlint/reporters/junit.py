"""JUnit XML for CI dashboards (GitLab, Jenkins, Azure, CircleCI): one test
suite "mmlint", one failing test case per diagnostic and one passing test case
per scanned file that has none, so the dashboard shows what was checked."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from mmlint.core.diagnostics import Diagnostic
from mmlint.reporters.escaping import visible, visible_path
from mmlint.reporters.options import PLAIN, RenderFields, RenderOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from mmlint.core.report import Report

SUITE_NAME = "mmlint"
CLEAN_FILE_CASE = "no diagnostics"


# XML 1.0 cannot carry most control characters even escaped, and a dashboard
# shows these strings to people: write them visibly, as the text format does.
# Tab, newline and CR are XML characters (ElementTree escapes them in
# attributes), so a multi-line message stays multi-line. U+FFFE / U+FFFF are not
# XML characters either.
def _xml_text(text: str) -> str:
    return visible(text, keep="\t\n\r").replace("\ufffe", "\\ufffe").replace("\uffff", "\\uffff")


def render(report: "Report", options: RenderOptions = PLAIN, /, **overrides: Unpack[RenderFields]) -> str:
    """The JUnit XML document for ``report``. ``color`` is ignored."""
    diagnostics = report.diagnostics
    flagged = {diagnostic.path for diagnostic in diagnostics}
    clean_files = sorted(path for path in report.file_paths if path not in flagged)
    tests = str(len(diagnostics) + len(clean_files))
    failures = str(len(diagnostics))

    root = ET.Element("testsuites", name=SUITE_NAME, tests=tests, failures=failures, errors="0")
    suite = ET.SubElement(root, "testsuite", name=SUITE_NAME, tests=tests, failures=failures, errors="0", skipped="0")
    for diagnostic in diagnostics:
        _failing_case(suite, diagnostic)
    for path in clean_files:
        ET.SubElement(suite, "testcase", classname=_xml_text(path), name=CLEAN_FILE_CASE)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _failing_case(suite: ET.Element, diagnostic: Diagnostic) -> None:
    span = diagnostic.span
    case = ET.SubElement(
        suite,
        "testcase",
        classname=_xml_text(diagnostic.path),
        name=f"{diagnostic.code} line {span.line}",
    )
    failure = ET.SubElement(case, "failure", message=_xml_text(diagnostic.message), type=diagnostic.code)
    # The body is lines a log shows as they are: each part visible, so a name
    # with a line break cannot start a line (a forged `::error` in a CI log).
    help_line = f"\nhelp: {visible(diagnostic.help)}" if diagnostic.help else ""
    if diagnostic.confirmation is not None:
        help_line += f"\n{visible(diagnostic.confirmation.describe())}"
    failure.text = _xml_text(
        f"{visible_path(diagnostic.path)}:{span.line}:{span.column}: {diagnostic.code} [{diagnostic.name}] "
        f"{visible(diagnostic.message)}" + help_line
    )
