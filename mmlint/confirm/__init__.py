"""Measured, not guessed: run the code and see which findings block the loop.

``pytest --mmlint-confirm`` (the plugin in mmlint.confirm.plugin) confirms the
findings with a project's tests; ``watch()`` does the same around a running
service (README, "Confirm findings with your tests")."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mmlint.confirm.session import ConfirmSession

__all__ = ["watch"]


@contextmanager
def watch(
    paths: Sequence[str] | None = None,
    *,
    root: str | os.PathLike[str] | None = None,
    report: str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = "mmlint-confirm.json",
    threshold_ms: float = 20.0,
    label: str = "watch",
) -> Iterator[ConfirmSession]:
    """Confirm findings while the body runs (a staging server under load).

    The findings come from ``report`` (a `mmlint check --format json` file)
    or from analysing ``paths`` (None: the configured ones) under ``root``
    (default: the working directory). Interceptors and the loop watchdog are
    installed on entry, so start the server's loop inside the block; on exit
    they are removed and the report (``session.report``) is written to
    ``output`` (relative to ``root``; None: not written). Every call timed is
    attributed to ``label`` (the report's ``test``)."""
    from mmlint.confirm.session import ConfirmSession

    where = Path(root) if root is not None else Path.cwd()
    session = ConfirmSession.analysing(
        where, paths, threshold_ms, report_file=Path(report) if report is not None else None
    )
    session.set_test(label)
    session.start()
    try:
        yield session
    finally:
        session.stop()
        if output is not None:
            session.write(where / output)
