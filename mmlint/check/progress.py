"""A progress bar for long scans, shown only where a person is watching: on a
terminal, outside CI logs, without --quiet, and only when there are enough
files for the wait to be noticeable."""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol, TextIO

if TYPE_CHECKING:  # rich is imported only when a bar is shown
    from rich.progress import Progress, TaskID

# Below this many files to parse (cache misses past the prefilter, at roughly a
# tenth of a second each) a scan finishes before a bar would be worth drawing.
MIN_FILES_FOR_PROGRESS = 20

REDRAWS_PER_SECOND = 10

# Values of the CI variable that mean "not in CI" (someone exported CI=false).
_CI_OFF = frozenset({"", "0", "false", "no"})


class ScanProgress(Protocol):
    def advance(self, files: int = 1) -> None:
        """Record that ``files`` more files were scanned."""


class _NoProgress:
    """Stands in when no bar is shown, so the engine loop needs no branches."""

    def advance(self, files: int = 1) -> None:
        return None


class _RichProgress:
    """Redrawn by ``advance`` itself, at most ``REDRAWS_PER_SECOND`` times a
    second: rich's own redrawing runs on a thread, and the worker pool forks
    only a process that has no other thread (mmlint.check.workers)."""

    def __init__(self, progress: Progress, task_id: TaskID, clock: Callable[[], float] = time.monotonic) -> None:
        self._progress = progress
        self._task_id = task_id
        self._clock = clock
        self._drawn_at = -math.inf

    def advance(self, files: int = 1) -> None:
        self._progress.advance(self._task_id, files)
        now = self._clock()
        if now - self._drawn_at >= 1 / REDRAWS_PER_SECOND or self._progress.finished:
            self._drawn_at = now
            self._progress.refresh()


def running_in_ci(environ: Mapping[str, str] | None = None) -> bool:
    """True when the ``CI`` variable is set, as every major CI service does."""
    value = (os.environ if environ is None else environ).get("CI")
    return value is not None and value.strip().lower() not in _CI_OFF


def should_show_progress(
    total: int,
    *,
    enabled: bool,
    stream: TextIO | None = None,
    environ: Mapping[str, str] | None = None,
) -> bool:
    """Whether a bar for ``total`` files belongs on ``stream`` (default stderr).

    ``enabled`` is the caller's permission (False under ``--quiet``)."""
    stream = sys.stderr if stream is None else stream
    if not enabled or total <= MIN_FILES_FOR_PROGRESS or running_in_ci(environ):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


@contextmanager
def scan_progress(
    total: int,
    *,
    enabled: bool,
    stream: TextIO | None = None,
    environ: Mapping[str, str] | None = None,
) -> Iterator[ScanProgress]:
    """A context manager yielding an object with ``.advance()``; it draws a
    transient rich bar on stderr when :func:`should_show_progress` allows it, and
    does nothing otherwise. The bar is removed when the scan ends, so the
    report that follows is not interleaved with it."""
    if not should_show_progress(total, enabled=enabled, stream=stream, environ=environ):
        yield _NoProgress()
        return

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    console = Console(file=sys.stderr if stream is None else stream)
    with Progress(
        TextColumn("scanning"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        auto_refresh=False,
    ) as progress:
        yield _RichProgress(progress, progress.add_task("scan", total=total))
