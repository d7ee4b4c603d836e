"""Reports built from hand-made diagnostics, for the reporter and baseline tests:
they pin down formatting independently of what the rules say today."""

from __future__ import annotations

from pathlib import Path

from mmlint.config.settings import Settings
from mmlint.core.diagnostics import Diagnostic, Edit, Span
from mmlint.core.report import Report

# A processor whose only finding is one MM001 (it does suspend, so no MM003):
# the call starts at line 4, column 16, and ends at column 54.
REAL_PROCESSOR = (
    "class P:\n"
    "    async def run(self, data):\n"
    "        await self.ready()\n"
    "        return self.process_and_combine_mm_data(data)\n"
)


def make_report(diagnostics: list[Diagnostic], file_paths: dict[str, Path], *, full_scan: bool = False) -> Report:
    """A Report as the engine would return it, holding exactly ``diagnostics``."""
    ordered = tuple(sorted(diagnostics, key=lambda d: d.sort_key))
    return Report(
        files_scanned=len(file_paths),
        call_sites=sum(1 for d in ordered if d.code == "MM001"),
        diagnostics=ordered,
        file_paths=dict(file_paths),
        settings=Settings(),
        full_scan=full_scan,
    )


def sync_twin_call(path: str, line: int, column: int = 25) -> Diagnostic:
    """An MM001 diagnostic on a call spanning three lines, with its fix edits."""
    name_start = column + len("self.")
    name_end = name_start + len("process_and_combine_mm_data")
    return Diagnostic(
        path=path,
        span=Span(line, column, line + 2, 10),
        code="MM001",
        name="sync-twin-call",
        message="`process_and_combine_mm_data` called in an `async def`: it bypasses the worker pool",
        help="await `process_and_combine_mm_data_async` instead: 100% the same",
        fixable=True,
        edits=(
            Edit(Span(line, column, line, column), "await "),
            Edit(Span(line, name_end, line, name_end), "_async"),
        ),
    )


def sample_diagnostics() -> list[Diagnostic]:
    """Diagnostics whose text needs every escape the reporters know about."""
    return [
        sync_twin_call("processors/clip.py", 29, 34),
        Diagnostic(
            path="odd dir/a,b:c.py",
            span=Span(3, 1, 3, 6),
            code="MM003",
            name="fake-async",
            message="`async def load` never suspends: 100% sync\nsecond line\r\nä, 'x' & <y>",
        ),
        Diagnostic(
            path="processors/clip.py",
            span=Span(40, 12, 40, 39),
            code="MM009",
            name="unused-suppression",
            message="unused suppression: `# mmlint: ignore[MM003]` suppressed nothing",
            fixable=True,
            edits=(Edit(Span(40, 10, 40, 39), ""),),
        ),
    ]


def sample_report(root: Path) -> Report:
    """:func:`sample_diagnostics` in a scan of three files under ``root`` (one clean)."""
    paths = ("processors/clip.py", "odd dir/a,b:c.py", "processors/siglip.py")
    return make_report(sample_diagnostics(), {path: root / path for path in paths})
