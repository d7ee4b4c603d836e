"""MM010 (twin discovery) on real sglang releases.

The expected findings on the whole 0.5.23 package were checked by reading the
code at each site (verdicts in the comments): each is a sync call, made on the
event loop inside an `async def`, of a function whose async twin the package
defines beside it. None is fixable, each for a reason the code shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mmlint.api import check

pytestmark = pytest.mark.ecosystem

NOT_IMPORTED = "`async_sock_send` is not defined or imported where the call is written"
ANNOTATED = "the twins' arguments differ: `socket` is annotated differently"

# (path under sglang/, line) -> the reason it is not fixable.
EXPECTED_0_5_23 = {
    # Health probe and profile broadcasts send on the sync zmq PUSH sockets of
    # the TP ranks from async handlers; `async_sock_send` (io_struct.py) is the
    # twin, not imported here.
    ("srt/disaggregation/encoder/http_server.py", 605): NOT_IMPORTED,
    ("srt/disaggregation/encoder/http_server.py", 665): NOT_IMPORTED,
    ("srt/disaggregation/encoder/http_server.py", 696): NOT_IMPORTED,
    # The batch and direct dispatch loops send on `send_sockets: List[zmq.Socket]`
    # (a sync zmq.Context) while holding the dispatch lock; the twin takes a
    # `zmq.asyncio.Socket`, so awaiting it on these sockets would be wrong.
    ("srt/disaggregation/encoder/runtime.py", 298): ANNOTATED,
    ("srt/disaggregation/encoder/runtime.py", 379): ANNOTATED,
    ("srt/disaggregation/encoder/runtime.py", 1282): ANNOTATED,
    # Images resized one by one with the sync helper inside
    # `process_mm_data_async`; `resize_image_async` only calls it, never suspending.
    (
        "srt/multimodal/processors/ernie45_vl.py",
        405,
    ): "`resize_image_async` never suspends, so awaiting it gains nothing",
}


def _config(directory: Path) -> Path:
    """A configuration with the defaults (the release is named as PATH: configured
    paths must lie inside the configuration's directory)."""
    config = directory / "mmlint.toml"
    config.write_text("", encoding="utf-8")
    return config


def test_mm010_on_the_whole_0_5_23_package(sglang_0_5_23_package: Path, tmp_path: Path) -> None:
    report = check([sglang_0_5_23_package], cwd=tmp_path, config=_config(tmp_path), select=["MM010"])
    found = {}
    for diagnostic in report.diagnostics:
        relative = Path(diagnostic.path).relative_to(sglang_0_5_23_package).as_posix()
        assert not diagnostic.fixable and "(not auto-fixable: " in diagnostic.help
        found[(relative, diagnostic.span.line)] = diagnostic.help.split("(not auto-fixable: ", 1)[1][:-1]
    assert found == EXPECTED_0_5_23


def _by_code(report) -> dict[str, set[tuple[str, int, int]]]:
    by_code: dict[str, set[tuple[str, int, int]]] = {"MM001": set(), "MM010": set()}
    for diagnostic in report.diagnostics:
        by_code[diagnostic.code].add((diagnostic.path, diagnostic.span.line, diagnostic.span.column))
    return by_code


def test_0_5_14_has_no_mm001_and_one_mm010(sglang_0_5_14: Path) -> None:
    """0.5.14's base class has no async twin: no MM001 (nothing to rewrite to)."""
    root = sglang_0_5_14.parents[2]
    by_code = _by_code(check([sglang_0_5_14], cwd=root, select=["MM001", "MM010"]))
    assert by_code["MM001"] == set()
    assert by_code["MM010"] == {("sglang/srt/multimodal/processors/ernie45_vl.py", 403, 33)}


def test_mm001_and_mm010_never_report_one_call(sglang_copy) -> None:
    """0.5.23 with its migration undone: 40 MM001, and none of them is also MM010."""
    multimodal = sglang_copy("0.5.23")
    for path in multimodal.rglob("*.py"):
        if path.name != "base_processor.py":
            text = path.read_text(encoding="utf-8")
            path.write_text(
                text.replace("await self.process_and_combine_mm_data_async(", "self.process_and_combine_mm_data("),
                encoding="utf-8",
            )
    root = multimodal.parents[2]
    by_code = _by_code(check([multimodal], cwd=root, select=["MM001", "MM010"]))
    assert len(by_code["MM001"]) == 40
    assert not by_code["MM001"] & by_code["MM010"]
    assert not {(p, line) for p, line, _ in by_code["MM001"]} & {(p, line) for p, line, _ in by_code["MM010"]}
