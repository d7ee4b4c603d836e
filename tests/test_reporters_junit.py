"""The junit reporter: well-formed XML with the counts and test cases CI
dashboards read."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from reporter_support import REAL_PROCESSOR, make_report, sample_report

from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.reporters import junit


def _parse(report) -> ET.Element:
    text = junit.render(report)
    assert text.startswith("<?xml version='1.0' encoding='utf-8'?>")
    return ET.fromstring(text.encode("utf-8"))


def test_counts_and_cases(tmp_path: Path) -> None:
    root = _parse(sample_report(tmp_path))
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "mmlint"
    cases = suite.findall("testcase")
    # three diagnostics fail; the one clean file of three passes
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "3", "0")
    assert (root.get("tests"), root.get("failures")) == ("4", "3")
    assert len(cases) == 4
    failing = [case for case in cases if case.find("failure") is not None]
    assert [(c.get("classname"), c.get("name")) for c in failing] == [
        ("odd dir/a,b:c.py", "MM003 line 3"),
        ("processors/clip.py", "MM001 line 29"),
        ("processors/clip.py", "MM009 line 40"),
    ]
    passing = [case for case in cases if case.find("failure") is None]
    assert [(c.get("classname"), c.get("name")) for c in passing] == [("processors/siglip.py", "no diagnostics")]


def test_failure_carries_code_message_and_location(tmp_path: Path) -> None:
    root = _parse(sample_report(tmp_path))
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.get("type") == "MM003"
    # The message survives XML escaping unchanged (newlines, quotes, <, &, non-ASCII).
    assert failure.get("message") == "`async def load` never suspends: 100% sync\nsecond line\r\nä, 'x' & <y>"
    assert failure.text.startswith("odd dir/a,b:c.py:3:1: MM003 [fake-async] ")


def test_failure_text_ends_with_the_help(tmp_path: Path) -> None:
    failures = _parse(sample_report(tmp_path)).findall("testsuite/testcase/failure")
    by_code = {failure.get("type"): failure for failure in failures}
    assert (
        by_code["MM001"].get("message")
        == "`process_and_combine_mm_data` called in an `async def`: it bypasses the worker pool"
    )
    assert by_code["MM001"].text.endswith(
        "it bypasses the worker pool\nhelp: await `process_and_combine_mm_data_async` instead: 100% the same"
    )
    assert "help:" not in by_code["MM009"].text  # no help, no line


def test_clean_scan_has_only_passing_cases(tmp_path: Path) -> None:
    root = _parse(make_report([], {"a.py": tmp_path / "a.py", "b.py": tmp_path / "b.py"}))
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("2", "0")
    assert root.find(".//failure") is None


def test_control_characters_do_not_break_the_document(tmp_path: Path) -> None:
    diagnostic = Diagnostic("a.py", Span(1, 1, 1, 2), "MM003", "fake-async", "bad \x00\x1b byte")
    failure = _parse(make_report([diagnostic], {"a.py": tmp_path / "a.py"})).find(".//failure")
    assert failure.get("message") == "bad \\x00\\x1b byte"


def test_real_check_output_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mmlint.api import check

    (tmp_path / "proc.py").write_text(REAL_PROCESSOR, encoding="utf-8")
    (tmp_path / "clean.py").write_text("async def ok(x):\n    await x\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    suite = _parse(check([tmp_path])).find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    assert suite.find("testcase[@classname='proc.py']/failure").get("type") == "MM001"
