"""`mmlint fix`: plan, transform, verify, write atomically.

- ``fix_report(report, write=...)`` fixes every target file of a check report;
- ``fix_in_rounds(report, rescan, write=...)`` goes on over fresh scans until
  nothing changes (what `mmlint fix` runs);
- ``fix_file(FileToFix, write=...)`` is the pipeline for one file;
- ``unified_diff(result)`` renders one file's change.
"""

from mmlint.fix.model import CallFix, FileFixResult, FixedSite, UnfixedSite
from mmlint.fix.pipeline import STAGES, FileToFix, Fixer, fix_file
from mmlint.fix.run import FixRun, fix_in_rounds, fix_report, unified_diff

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
    "fix_in_rounds",
    "fix_report",
    "unified_diff",
]
