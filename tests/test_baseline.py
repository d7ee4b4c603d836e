"""Baselines: recorded diagnostics stay quiet when their lines move, new ones
are reported, removed ones are counted as stale, and a broken baseline file is
a one-line error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from reporter_support import make_report

from mmlint.baseline import (
    BaselineError,
    apply_baseline,
    baseline_data,
    load_baseline,
    render_baseline,
)
from mmlint.core.diagnostics import Diagnostic, Span

PROCESSOR = """\
class ClipProcessor:
    async def process_mm_data_async(self, image_data, input_text):
        items, ids, _ = self.process_and_combine_mm_data(image_data, self.mm_tokens)
        return items

    async def process_video(self, video):
        frames, ids, _ = self.process_and_combine_mm_data(video, self.mm_tokens)
        return frames
"""


def _mm001(path: str, text: str, needle: str = "self.process_and_combine_mm_data(") -> list[Diagnostic]:
    """An MM001 diagnostic at every line of ``text`` that holds ``needle``, as the rule would place it."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            column = line.index(needle) + 1
            found.append(Diagnostic(path, Span(number, column, number, len(line) + 1), "MM001", "sync-twin-call", "m"))
    return found


def _scan(root: Path, texts: dict[str, str], *, full_scan: bool = False):
    """Write the files, and build the report an MM001 scan of them gives."""
    diagnostics = []
    for relative, text in texts.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
        diagnostics += _mm001(relative, text)
    return make_report(diagnostics, {relative: root / relative for relative in texts}, full_scan=full_scan)


def _record(report, baseline: Path, cwd: Path) -> None:
    baseline.write_text(render_baseline(report, baseline, cwd=cwd), encoding="utf-8")


def test_records_path_code_text_and_count(tmp_path: Path) -> None:
    report = _scan(tmp_path, {"procs/clip.py": PROCESSOR + PROCESSOR.split("\n", 1)[1]})
    data = baseline_data(report, tmp_path / "baseline.json", cwd=tmp_path)
    assert data["version"] == 1
    assert data["entries"] == [
        {
            "path": "procs/clip.py",
            "code": "MM001",
            "text": "frames, ids, _ = self.process_and_combine_mm_data(video, self.mm_tokens)",
            "count": 2,
        },
        {
            "path": "procs/clip.py",
            "code": "MM001",
            "text": "items, ids, _ = self.process_and_combine_mm_data(image_data, self.mm_tokens)",
            "count": 2,
        },
    ]


def test_unchanged_code_is_fully_baselined(tmp_path: Path) -> None:
    report = _scan(tmp_path, {"clip.py": PROCESSOR})
    _record(report, tmp_path / "baseline.json", tmp_path)
    outcome = apply_baseline(report, tmp_path / "baseline.json", cwd=tmp_path)
    assert outcome.report.diagnostics == ()
    assert (outcome.baselined, outcome.stale_entries) == (2, 0)


def test_lines_moving_down_stay_baselined(tmp_path: Path) -> None:
    _record(_scan(tmp_path, {"clip.py": PROCESSOR}), tmp_path / "baseline.json", tmp_path)
    shifted = "import asyncio\nimport os\n\n\n# a comment\n" + PROCESSOR
    report = _scan(tmp_path, {"clip.py": shifted})
    assert [d.span.line for d in report.diagnostics] == [8, 12]
    outcome = apply_baseline(report, tmp_path / "baseline.json", cwd=tmp_path)
    assert outcome.report.diagnostics == ()
    assert (outcome.baselined, outcome.stale_entries) == (2, 0)


def test_lines_moving_up_and_reindented_stay_baselined(tmp_path: Path) -> None:
    _record(_scan(tmp_path, {"clip.py": "\n\n\n" + PROCESSOR}), tmp_path / "baseline.json", tmp_path)
    # The flagged text is stripped, so a changed indentation keeps the match too.
    moved = PROCESSOR.replace("        items", "            items")
    outcome = apply_baseline(_scan(tmp_path, {"clip.py": moved}), tmp_path / "baseline.json", cwd=tmp_path)
    assert (len(outcome.report.diagnostics), outcome.baselined, outcome.stale_entries) == (0, 2, 0)


def test_a_new_copy_of_a_baselined_line_is_reported(tmp_path: Path) -> None:
    _record(_scan(tmp_path, {"clip.py": PROCESSOR}), tmp_path / "baseline.json", tmp_path)
    doubled = PROCESSOR + PROCESSOR.split("\n", 1)[1].replace("process_video", "process_audio")
    report = _scan(tmp_path, {"clip.py": doubled})
    outcome = apply_baseline(report, tmp_path / "baseline.json", cwd=tmp_path)
    assert outcome.baselined == 2
    # The count absorbed the first occurrence of each text; the later copies are new.
    assert [d.span.line for d in outcome.report.diagnostics] == [10, 14]


def test_changed_text_is_new(tmp_path: Path) -> None:
    _record(_scan(tmp_path, {"clip.py": PROCESSOR}), tmp_path / "baseline.json", tmp_path)
    edited = PROCESSOR.replace("(video, self.mm_tokens)", "(video, self.mm_tokens, fps=2)")
    outcome = apply_baseline(_scan(tmp_path, {"clip.py": edited}), tmp_path / "baseline.json", cwd=tmp_path)
    assert [d.span.line for d in outcome.report.diagnostics] == [7]
    # The old text of line 7 is no longer there: its entry is stale.
    assert (outcome.baselined, outcome.stale_entries) == (1, 1)


def test_removed_diagnostics_are_counted_as_stale(tmp_path: Path) -> None:
    _record(_scan(tmp_path, {"clip.py": PROCESSOR, "llava.py": PROCESSOR}), tmp_path / "baseline.json", tmp_path)
    fixed = PROCESSOR.replace("= self.process_and_combine_mm_data(", "= await self.process_and_combine_mm_data_async(")
    report = _scan(tmp_path, {"clip.py": fixed, "llava.py": PROCESSOR})
    outcome = apply_baseline(report, tmp_path / "baseline.json", cwd=tmp_path)
    assert outcome.report.diagnostics == ()
    assert (outcome.baselined, outcome.stale_entries) == (2, 2)
    assert outcome.summary() == "2 diagnostics baselined; 2 baseline entries no longer match"


def test_entries_of_files_outside_a_partial_scan_are_not_stale(tmp_path: Path) -> None:
    _record(_scan(tmp_path, {"clip.py": PROCESSOR, "llava.py": PROCESSOR}), tmp_path / "baseline.json", tmp_path)
    # pre-commit passes only the changed file: llava.py's entries are not stale.
    partial = apply_baseline(_scan(tmp_path, {"clip.py": PROCESSOR}), tmp_path / "baseline.json", cwd=tmp_path)
    assert (partial.baselined, partial.stale_entries) == (2, 0)
    # A full scan that no longer finds llava.py (deleted) does count them.
    (tmp_path / "llava.py").unlink()
    full = apply_baseline(
        _scan(tmp_path, {"clip.py": PROCESSOR}, full_scan=True), tmp_path / "baseline.json", cwd=tmp_path
    )
    assert (full.baselined, full.stale_entries) == (2, 2)
    assert full.summary() == "2 diagnostics baselined; 2 baseline entries no longer match"


def test_paths_are_relative_to_the_baseline_file(tmp_path: Path) -> None:
    """Recorded from the repository root, applied from a subdirectory."""
    (tmp_path / "ci").mkdir()
    report = _scan(tmp_path, {"procs/clip.py": PROCESSOR})
    _record(report, tmp_path / "ci" / "baseline.json", tmp_path)
    entries = json.loads((tmp_path / "ci" / "baseline.json").read_text(encoding="utf-8"))["entries"]
    assert {entry["path"] for entry in entries} == {"../procs/clip.py"}
    inside = tmp_path / "procs"
    moved = make_report(
        [Diagnostic("clip.py", d.span, d.code, d.name, d.message) for d in report.diagnostics],
        {"clip.py": inside / "clip.py"},
    )
    outcome = apply_baseline(moved, tmp_path / "ci" / "baseline.json", cwd=inside)
    assert (len(outcome.report.diagnostics), outcome.baselined) == (0, 2)


def test_syntax_errors_are_never_baselined(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n", encoding="utf-8")
    syntax_error = Diagnostic("broken.py", Span(1, 7, 1, 8), "MM999", "syntax-error", "could not parse")
    report = make_report([syntax_error], {"broken.py": tmp_path / "broken.py"})
    _record(report, tmp_path / "baseline.json", tmp_path)
    assert load_baseline(tmp_path / "baseline.json") == {}
    outcome = apply_baseline(report, tmp_path / "baseline.json", cwd=tmp_path)
    assert outcome.report.diagnostics == (syntax_error,)


def test_source_text_is_decoded_with_the_declared_encoding(tmp_path: Path) -> None:
    text = "# -*- coding: latin-1 -*-\nasync def f(self):\n    return self.process_and_combine_mm_data('é')\n"
    (tmp_path / "latin.py").write_bytes(text.encode("latin-1"))
    report = make_report(_mm001("latin.py", text), {"latin.py": tmp_path / "latin.py"})
    (entry,) = baseline_data(report, tmp_path / "baseline.json", cwd=tmp_path)["entries"]
    assert entry["text"] == "return self.process_and_combine_mm_data('é')"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
        (b"[]", "expected a JSON object with 'version' and 'entries'"),
        (b'{"version": 7, "entries": []}', "unsupported version 7 (expected 1)"),
        (b'{"version": 1}', "'entries' must be a list"),
        (b'{"version": 1, "entries": [3]}', "entry 1 is not an object"),
        (
            b'{"version": 1, "entries": [{"path": "a.py", "code": "MM001", "count": 1}]}',
            "entry 1: 'text' must be a string",
        ),
        (
            b'{"version": 1, "entries": [{"path": "a.py", "code": "MM001", "text": "", "count": 0}]}',
            "entry 1: 'count' must be a positive integer",
        ),
        (b"\xff\xfe", "not UTF-8 text"),
    ],
)
def test_malformed_baseline_is_a_one_line_error(tmp_path: Path, content: bytes, message: str) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_bytes(content)
    with pytest.raises(BaselineError) as raised:
        apply_baseline(make_report([], {}), baseline, cwd=tmp_path)
    assert str(raised.value) == f"baseline {baseline}: {message}"


def test_missing_baseline_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(BaselineError) as raised:
        load_baseline(tmp_path / "nope.json")
    assert str(raised.value) == f"baseline {tmp_path / 'nope.json'}: cannot read: No such file or directory"


# --- end to end through the CLI, on the real engine ---------------------------------

CLI_PROCESSOR = """\
class ClipProcessor:
    async def process_mm_data_async(self, image_data, input_text):
        await self.ready()
        items, ids, _ = self.process_and_combine_mm_data(image_data, self.mm_tokens)
        return items
"""


def _invoke(args: list[str]):
    from cli_support import CliRunner

    from mmlint.cli import cli

    return CliRunner().invoke(cli, args)


def test_cli_baseline_then_check_reports_only_new(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "procs").mkdir()
    (tmp_path / "procs" / "clip.py").write_text(CLI_PROCESSOR, encoding="utf-8")
    (tmp_path / "procs" / "llava.py").write_text(CLI_PROCESSOR, encoding="utf-8")

    recorded = _invoke(["baseline", "procs", "-o", "baseline.json"])
    assert recorded.exit_code == 0, recorded.output
    assert "recorded 2 diagnostics in baseline.json" in recorded.stderr
    assert len(json.loads((tmp_path / "baseline.json").read_text(encoding="utf-8"))["entries"]) == 2

    # Lines move down in clip.py; llava.py is fixed; a new copy of the call appears in siglip.py.
    (tmp_path / "procs" / "clip.py").write_text("import os\n\n\n" + CLI_PROCESSOR, encoding="utf-8")
    (tmp_path / "procs" / "llava.py").write_text(
        CLI_PROCESSOR.replace("self.process_and_combine_mm_data(", "await self.process_and_combine_mm_data_async("),
        encoding="utf-8",
    )
    (tmp_path / "procs" / "siglip.py").write_text(CLI_PROCESSOR, encoding="utf-8")

    checked = _invoke(["check", "procs", "--baseline", "baseline.json", "--format", "json"])
    assert checked.exit_code == 1, checked.output
    report = json.loads(checked.stdout)
    assert [(d["path"], d["line"], d["code"]) for d in report["diagnostics"]] == [("procs/siglip.py", 4, "MM001")]
    # clip.py's entry absorbed the moved call; llava.py's entry no longer matches.
    assert re.search(r"\b1 diagnostic\S* baselined; 1 baseline entry no longer match", checked.stderr), checked.stderr


def test_cli_check_with_a_malformed_baseline_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "clip.py").write_text(CLI_PROCESSOR, encoding="utf-8")
    (tmp_path / "baseline.json").write_text("{", encoding="utf-8")
    result = _invoke(["check", "clip.py", "--baseline", "baseline.json"])
    assert result.exit_code == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("mmlint: error: baseline baseline.json: not valid JSON")


def test_cli_baseline_requires_an_output_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = _invoke(["baseline"])
    assert result.exit_code == 2
    assert "Missing option '--output'" in result.stderr
