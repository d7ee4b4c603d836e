"""The scan progress bar appears only for a person watching a long scan."""

from __future__ import annotations

import io

import pytest

from mmlint.check.progress import (
    MIN_FILES_FOR_PROGRESS,
    running_in_ci,
    scan_progress,
    should_show_progress,
)

LARGE = MIN_FILES_FOR_PROGRESS + 1


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_shown_for_a_large_scan_on_a_terminal_outside_ci() -> None:
    assert should_show_progress(LARGE, enabled=True, stream=FakeTerminal(), environ={})


@pytest.mark.parametrize(
    ("total", "enabled", "stream", "environ"),
    [
        (LARGE, True, io.StringIO(), {}),  # not a terminal (piped, redirected)
        (LARGE, True, FakeTerminal(), {"CI": "true"}),  # CI log
        (LARGE, True, FakeTerminal(), {"CI": "1"}),
        (LARGE, False, FakeTerminal(), {}),  # --quiet
        (MIN_FILES_FOR_PROGRESS, True, FakeTerminal(), {}),  # too short to be worth a bar
    ],
    ids=["not-a-tty", "ci-true", "ci-1", "quiet", "small-scan"],
)
def test_hidden(total: int, enabled: bool, stream, environ: dict[str, str]) -> None:
    assert not should_show_progress(total, enabled=enabled, stream=stream, environ=environ)


@pytest.mark.parametrize("value", ["", "0", "false", "False"])
def test_ci_switched_off_explicitly(value: str) -> None:
    assert not running_in_ci({"CI": value})


def test_disabled_bar_writes_nothing() -> None:
    stream = io.StringIO()
    with scan_progress(LARGE, enabled=False, stream=stream, environ={}) as bar:
        for _ in range(LARGE):
            bar.advance()
    assert stream.getvalue() == ""


def test_enabled_bar_draws_and_counts() -> None:
    terminal = FakeTerminal()
    with scan_progress(LARGE, enabled=True, stream=terminal, environ={}) as bar:
        for _ in range(LARGE):
            bar.advance()
        progress = bar._progress  # the rich Progress behind the bar
        (task,) = progress.tasks
        assert (task.completed, task.total) == (LARGE, LARGE)
    assert terminal.getvalue() != ""


def test_bar_draws_without_a_thread_of_its_own() -> None:
    """The worker pool forks only a single-threaded process (mmlint.check.workers)."""
    import threading

    terminal = FakeTerminal()
    before = threading.active_count()
    with scan_progress(LARGE, enabled=True, stream=terminal, environ={}) as bar:
        assert threading.active_count() == before
        drawn = len(terminal.getvalue())
        bar.advance()
        assert len(terminal.getvalue()) > drawn  # the first advance redraws at once
