"""The Python API: run a check from code and get the diagnostics and counts.

    from mmlint.api import check

    def test_processors_use_the_worker_pool():
        report = check(["python/sglang/srt/multimodal"], select=["MM001", "MM002"])
        assert not report.diagnostics, "\\n".join(d.message for d in report.diagnostics)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from mmlint.check.discovery import DiscoveryError
from mmlint.check.engine import Report, run_check
from mmlint.config.load import ConfigError
from mmlint.config.resolve import ConfigResolver
from mmlint.core.diagnostics import Diagnostic, Span

__all__ = ["check", "Report", "Diagnostic", "Span", "ConfigError", "DiscoveryError"]


def check(
    paths: Sequence[str | os.PathLike[str]] | None = None,
    *,
    config: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
) -> Report:
    """Check ``paths`` (files or directories; None: the configured `paths`, else
    ``cwd``) and return the Report: ``diagnostics``, ``files_scanned`` and
    ``call_sites``. ``config`` names a configuration file for every file, else
    each file is governed by the closest one at or above it (as in ruff). Raises ConfigError or DiscoveryError for bad input."""
    where = Path(cwd) if cwd is not None else Path.cwd()
    resolver = ConfigResolver(
        where,
        Path(config) if config is not None else None,
        select=list(select) if select is not None else None,
        ignore=list(ignore) if ignore is not None else None,
    )
    return run_check([Path(p) for p in paths] if paths else None, resolver, where)
