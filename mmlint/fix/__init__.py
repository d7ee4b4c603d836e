"""`mmlint fix`: plan, transform, verify, write atomically.

- ``fix_report(report, write=...)`` fixes every target file of a check report;
- ``fix_file(FileToFix, write=...)`` is the pipeline for one file;
- ``unified_diff(result)`` renders one file's change.
"""

from mmlint.fix.model import CallFix, FileFixResult, FixedSite, UnfixedSite
from mmlint.fix.pipeline import STAGES, FileToFix, Fixer, fix_file
from mmlint.fix.run import FixRun, fix_report, unified_diff

__all__ = [
    "CallFix",
    "FileFixResult",
    "FileToFix",
    "FixRun",
    "FixedSite",
    "Fixer",
    "STAGES",
    "UnfixedSite",
    "fix_file",
    "fix_report",
    "unified_diff",
]
