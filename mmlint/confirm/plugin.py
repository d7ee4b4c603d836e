"""The pytest plugin (entry point ``pytest11``): inactive unless
``--mmlint-confirm`` is given. Importing it costs nothing else: mmlint's
analysis loads only when the option is used."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mmlint.confirm.session import ConfirmSession

_SESSION: pytest.StashKey[ConfirmSession] = pytest.StashKey()
_OUTPUT = pytest.StashKey[Path]()
_USE_DEFAULT = "\0default"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mmlint", "mmlint: confirm findings at run time")
    group.addoption(
        "--mmlint-confirm",
        nargs="?",
        const=_USE_DEFAULT,
        default=None,
        metavar="PATH",
        help="Time each mmlint finding's blocking callee and watch the event loops while the tests run; "
        "write the confirmation report to PATH (default: mmlint-confirm.json in the root directory).",
    )
    group.addoption(
        "--mmlint-report",
        metavar="FILE",
        default=None,
        help="Confirm the findings of this `mmlint check --format json` report instead of analysing.",
    )
    group.addoption(
        "--mmlint-threshold-ms",
        metavar="MS",
        type=float,
        default=20.0,
        help="A loop held longer than this blocks it (default: 20).",
    )


def pytest_configure(config: pytest.Config) -> None:
    wanted = config.getoption("mmlint_confirm", None)
    if wanted is None or hasattr(config, "workerinput"):  # an xdist worker runs no session of its own
        return
    threshold = config.getoption("mmlint_threshold_ms")
    if not threshold > 0:
        raise pytest.UsageError(f"--mmlint-threshold-ms must be positive, not {threshold}")
    from mmlint.confirm.session import DEFAULT_REPORT, ConfirmSession
    from mmlint.confirm.sites import ReportError

    root = Path(config.rootpath)
    report_option = config.getoption("mmlint_report")
    try:
        session = ConfirmSession.analysing(
            root, None, threshold, report_file=Path(report_option) if report_option else None
        )
    except ReportError as error:
        raise pytest.UsageError(f"mmlint: {error}") from None
    config.stash[_SESSION] = session
    config.stash[_OUTPUT] = root / (DEFAULT_REPORT if wanted == _USE_DEFAULT else wanted)
    session.start()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, Any]:
    session = item.config.stash.get(_SESSION, None)
    if session is not None:
        session.refresh()  # modules the collection (or the last test) imported
        session.set_test(item.nodeid)
    try:
        return (yield)
    finally:
        if session is not None:
            session.set_test("")


def pytest_sessionfinish(session: pytest.Session) -> None:
    confirm = session.config.stash.get(_SESSION, None)
    if confirm is not None:
        try:
            confirm.write(session.config.stash[_OUTPUT])
        except OSError as error:
            raise pytest.UsageError(f"mmlint: {session.config.stash[_OUTPUT]}: cannot write: {error}") from None


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    confirm = config.stash.get(_SESSION, None)
    if confirm is None or confirm.report is None:
        return
    from mmlint.confirm.report import summary_lines

    terminalreporter.section("mmlint confirm")
    for line in summary_lines(confirm.report):
        terminalreporter.write_line(line)
    terminalreporter.write_line(f"report: {config.stash[_OUTPUT]}")


def pytest_unconfigure(config: pytest.Config) -> None:
    confirm = config.stash.get(_SESSION, None)
    if confirm is not None:
        confirm.stop()  # restores every patch even when the session ended early
