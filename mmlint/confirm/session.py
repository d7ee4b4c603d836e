"""One confirmation run: the findings' interceptors, the loop hooks and the
watchdog installed together, and the report built when it stops. The pytest
plugin and ``mmlint.confirm.watch`` both drive one."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mmlint.confirm.intercept import Interceptors, Recorder
from mmlint.confirm.report import display_path, measure, report_dict, sites_hit, under, unexplained_entries
from mmlint.confirm.sites import ReportError, Site, read_report, sites_from_findings
from mmlint.confirm.watchdog import LoopHooks, Stall, Watchdog

DEFAULT_THRESHOLD_MS = 20.0
DEFAULT_REPORT = "mmlint-confirm.json"
_TEST_FILE_PARTS = ("tests", "test")


def analysed_findings(root: Path, paths: Sequence[str] | None = None) -> tuple[list[dict[str, Any]], set[str]]:
    """The findings of `mmlint check` on ``paths`` (None: the configured paths)
    from ``root``, and the real paths of the files it scanned."""
    from mmlint.api import ConfigError, DiscoveryError, check
    from mmlint.reporters.json_report import diagnostic_dict

    try:
        report = check(list(paths) if paths else None, cwd=root)
    except (ConfigError, DiscoveryError) as error:
        raise ReportError(str(error)) from None
    scanned = {os.path.realpath(path) for path in report.file_paths.values()}
    return [diagnostic_dict(d) for d in report.diagnostics], scanned


def project_code(root: Path) -> Callable[[str], bool]:
    """Without a scan's file list (a report given): the project's own files
    under ``root``, not its tests, virtual environments or installed packages."""
    prefix = os.path.realpath(root) + os.sep
    memo: dict[str, bool] = {}

    def scanned(filename: str) -> bool:
        known = memo.get(filename)
        if known is None:
            real = os.path.realpath(filename) if os.path.isabs(filename) else ""
            parts = real[len(prefix) :].split(os.sep) if real.startswith(prefix) else []
            name = parts[-1] if parts else ""
            known = memo[filename] = (
                bool(parts)
                and name.endswith(".py")
                and not (
                    any(
                        part.startswith(".") or part in ("site-packages", "dist-packages", *_TEST_FILE_PARTS)
                        for part in parts[:-1]
                    )
                    or name.startswith("test_")
                    or name.endswith("_test.py")
                    or name == "conftest.py"
                )
            )
        return known

    return scanned


class ConfirmSession:
    def __init__(
        self,
        sites: Sequence[Site],
        root: Path,
        scanned: Callable[[str], bool],
        threshold_ms: float = DEFAULT_THRESHOLD_MS,
    ) -> None:
        self.sites = tuple(sites)
        self.root = Path(os.path.realpath(root))
        self.scanned = scanned
        self.threshold_ms = threshold_ms
        threshold_s = threshold_ms / 1000
        self.recorder = Recorder(threshold_s)
        self.interceptors = Interceptors(self.sites, self.recorder, scanned, self.root)
        self.stalls: list[Stall] = []
        self._stalls_lock = threading.Lock()
        self.watchdog = Watchdog(threshold_s, self._on_stall, lambda: self.recorder.current_test)
        self.hooks = LoopHooks(self.watchdog)
        self.report: dict[str, Any] | None = None

    @classmethod
    def analysing(
        cls,
        root: Path,
        paths: Sequence[str] | None = None,
        threshold_ms: float = DEFAULT_THRESHOLD_MS,
        report_file: Path | None = None,
    ) -> ConfirmSession:
        """Findings from ``report_file`` (a `check --format json` report) when
        given, else from analysing ``paths`` under ``root``."""
        if report_file is not None:
            sites = sites_from_findings(read_report(report_file), root)
            return cls(sites, root, project_code(root), threshold_ms)
        findings, files = analysed_findings(root, paths)
        memo: dict[str, bool] = {}

        def scanned(filename: str) -> bool:
            known = memo.get(filename)
            if known is None:
                known = memo[filename] = os.path.isabs(filename) and os.path.realpath(filename) in files
            return known

        return cls(sites_from_findings(findings, root), root, scanned, threshold_ms)

    def start(self) -> None:
        self.refresh()
        self.watchdog.start()

    def refresh(self) -> None:
        """Wrap what modules imported since the last call made resolvable."""
        self.interceptors.refresh()
        self.hooks.refresh()

    def set_test(self, name: str) -> None:
        self.recorder.current_test = name

    def stop(self) -> dict[str, Any]:
        if self.report is not None:
            return self.report
        self.hooks.uninstall()
        self.watchdog.stop()
        self.interceptors.uninstall()
        self.report = self._build()
        return self.report

    def write(self, path: Path) -> None:
        from mmlint.core.write import write_atomically

        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, (json.dumps(self.stop(), indent=2) + "\n").encode("utf-8"))

    def _on_stall(self, stall: Stall) -> None:
        with self._stalls_lock:
            self.stalls.append(stall)

    def _build(self) -> dict[str, Any]:
        by_file: dict[str, list[Site]] = {}
        for site in self.sites:
            by_file.setdefault(site.file, []).append(site)
        per_site: dict[Site, list[Stall]] = {site: [] for site in self.sites}
        unexplained: list[Stall] = []
        with self._stalls_lock:
            stalls = list(self.stalls)
        for stall in stalls:
            hit = sites_hit(stall, by_file, self.recorder.real)
            for site in hit:
                per_site[site].append(stall)
            overlapping = [
                site
                for thread, start, end, site in self.recorder.long_calls
                if thread == stall.thread and start < stall.end and end > stall.start
            ]
            if not hit and not overlapping:
                unexplained.append(stall)
        threshold_s = self.threshold_ms / 1000
        measured = [measure(site, self.recorder.stats.get(site), per_site[site], threshold_s) for site in self.sites]
        entries = unexplained_entries(unexplained, self.scanned, display_path(str(self.root)), under(str(self.root)))
        return report_dict(self.threshold_ms, measured, entries, self.interceptors.not_wrapped())
