"""Helpers shared by the fix tests: run the real engine and fixer on files in a
temporary directory (no configuration file, so the default twins apply)."""

from __future__ import annotations

from pathlib import Path

from mmlint.check.engine import Report, run_check
from mmlint.config.load import load_settings
from mmlint.core.diagnostics import Diagnostic
from mmlint.fix import FixRun, fix_report
from mmlint.fix.run import named_links
from mmlint.fix.text_edits import apply_edits_to_bytes

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fix"


def check_file(path: Path) -> Report:
    """The check report for one file, with the directory as cwd and config root."""
    settings = load_settings(path.parent)
    return run_check([path], settings, path.parent)


def fix_path(path: Path, *, write: bool = True) -> FixRun:
    """Run the fixer on one file exactly as `mmlint fix` does (one round)."""
    links = named_links([path], path.parent)
    return fix_report(check_file(path), write=write, links=links)


def mm001(report: Report) -> list[Diagnostic]:
    return [d for d in report.diagnostics if d.code == "MM001"]


def apply_reported_edits(source: bytes, report: Report) -> bytes:
    """The collector's own text edits for the fixable MM001 sites, applied
    textually: an independent description of what the libcst fixer must write."""
    edits = [edit for d in mm001(report) if d.fixable for edit in d.edits]
    return apply_edits_to_bytes(source, edits)
