"""Cross-file analyses over a scan's facts: suspension (mmlint.analysis.suspension),
weights and blocking chains, twins, dropped coroutines, and the names and
classes they resolve through (mmlint.analysis.resolve). The suspension
analysis's names are the package's own, as its first room."""

from mmlint.analysis.suspension import (
    ALWAYS,
    NEVER,
    NOT_JUDGED,
    SOME,
    ChainLink,
    HollowAwait,
    IneffectiveTimeout,
    Judgement,
    SuspensionAnalysis,
    Verdict,
    analyse_files,
)

__all__ = [
    "ALWAYS",
    "NEVER",
    "NOT_JUDGED",
    "SOME",
    "ChainLink",
    "HollowAwait",
    "IneffectiveTimeout",
    "Judgement",
    "SuspensionAnalysis",
    "Verdict",
    "analyse_files",
]
