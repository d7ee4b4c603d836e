"""The suspension fixture package (fixtures/suspension), checked end to end:
the diagnostics of MM003-MM007 must be exactly the `# expect:` markers, for a
full scan and for a scan naming a single file (the rest read as context)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from expectations import ALONE_MARKER, assert_diagnostics_match, expected_findings, restrict

from mmlint.api import check

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "suspension"
CODES = ("MM003", "MM004", "MM005", "MM006", "MM007")


def test_full_scan_reports_exactly_the_markers() -> None:
    report = check(cwd=PACKAGE)
    assert_diagnostics_match(expected_findings(PACKAGE, PACKAGE), report.diagnostics, CODES)


@pytest.mark.parametrize(
    "target",
    ["mmproc/processors/qwen.py", "mmproc/processors/llava.py", "mmproc/processors/streaming.py", "mmproc/media.py"],
)
def test_a_single_target_still_resolves_through_the_context(target: str) -> None:
    """As pre-commit runs it: one file named, the configured paths read as context."""
    report = check([target], cwd=PACKAGE)
    expected = expected_findings(PACKAGE, PACKAGE)
    only_target = restrict(expected, CODES)
    only_target = type(only_target)({f: n for f, n in only_target.items() if f.path == target})
    # Awaits folded into their root's MM003 in a full scan are MM004 when the root is not a target.
    alone = restrict(expected_findings(PACKAGE, PACKAGE, ALONE_MARKER), CODES)
    only_target.update({f: n for f, n in alone.items() if f.path == target})
    assert only_target, "the fixture should hold markers in this file"
    assert_diagnostics_match(only_target, report.diagnostics, CODES)


def test_messages_name_the_whole_chain() -> None:
    report = check(["mmproc/processors/qwen.py"], cwd=PACKAGE, select=["MM004"])
    (hollow,) = report.diagnostics
    # A short message; the chain by name opens the help, where each link is, in
    # the chain (the text's notes).
    assert hollow.message == "`await` of a coroutine that never suspends"
    assert hollow.help.startswith(
        "`await load_video(...)`: `load_video` → `sample_frames` → `decode_frames` has no suspension point; "
    )
    assert hollow.chain[:3] == (
        "`load_video` at mmproc/media.py:9",
        "`sample_frames` at mmproc/video/sampling.py:6",
        "`decode_frames` at mmproc/video/frames.py:8",
    )
    assert "(mmproc/video/frames.py:8)" in hollow.help
    # The span runs from the `await` keyword to the end of the awaited call.
    assert (hollow.span.line, hollow.span.column, hollow.span.end_line, hollow.span.end_column) == (9, 18, 9, 53)


def test_a_cycle_is_named_as_one() -> None:
    report = check(["mmproc/processors/cycle.py"], cwd=PACKAGE, select=["MM004"])
    assert [d.span.line for d in report.diagnostics] == [8, 13]
    assert all("a cycle with no suspension point; " in d.help for d in report.diagnostics)


def test_without_the_blocking_calls_extension_only_the_defaults_remain(tmp_path: Path) -> None:
    # Configured paths lie inside the configuration's directory: a copy of the package beside it.
    shutil.copytree(PACKAGE / "mmproc", tmp_path / "mmproc")
    config = tmp_path / "mmlint.toml"
    config.write_text('paths = ["mmproc"]\n', encoding="utf-8")
    report = check(cwd=tmp_path, config=config, select=["MM005"])
    # decord.VideoReader and get_frames_as_tensor are in the default knowledge (image-decoding).
    assert sorted(d.help.split(" ")[0] for d in report.diagnostics) == [
        "`decord.VideoReader(...)`",
        "`future.result(...)`",
        "`reader.get_frames_as_tensor(...)`",
        "`time.sleep(...)`",
    ]
