"""The confirmation report (SPEC, Release 4: "Runtime confirmation"): each
finding's status and measurement, the stalls no finding explains, and the
findings whose callee could not be wrapped."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mmlint.confirm.intercept import CallStats
from mmlint.confirm.sites import Site
from mmlint.confirm.watchdog import Frame, Stall
from mmlint.core.confirmation import Status

REPORT_VERSION = 1


@dataclass(frozen=True, slots=True)
class Measured:
    site: Site
    status: Status
    calls: int
    total_ms: float
    max_ms: float
    test: str


def measure(site: Site, stats: CallStats | None, stalls: list[Stall], threshold_s: float) -> Measured:
    """confirmed: ran on the loop and blocked past the threshold at least once;
    refuted: ran on the loop, never past it; not-reached: never ran on the loop.
    A wrapped callee's timings come first; stalls sampled at the site confirm a
    finding whose callee is not wrapped (or ran through another path)."""
    if stats is not None and stats.calls and stats.max_s > threshold_s:
        return Measured(site, "confirmed", stats.calls, stats.total_s * 1000, stats.max_s * 1000, stats.test_at_max)
    if stalls:
        longest = max(stalls, key=lambda stall: stall.blocked_s)
        total = sum(stall.blocked_s for stall in stalls)
        return Measured(site, "confirmed", len(stalls), total * 1000, longest.blocked_s * 1000, longest.test)
    if stats is not None and stats.calls:
        return Measured(site, "refuted", stats.calls, stats.total_s * 1000, stats.max_s * 1000, stats.test_at_max)
    return Measured(site, "not-reached", 0, 0.0, 0.0, "")


def sites_hit(stall: Stall, by_file: dict[str, list[Site]], real: Callable[[str], str]) -> set[Site]:
    hit: set[Site] = set()
    for sample in stall.samples:
        for frame in sample:
            for site in by_file.get(real(frame.file), ()):
                if site.covers(frame.line):
                    hit.add(site)
    return hit


def unexplained_entries(
    stalls: Iterable[Stall],
    scanned: Callable[[str], bool],
    shown: Callable[[str], str],
    in_project: Callable[[str], bool],
) -> list[dict[str, Any]]:
    """Stalls no finding explains, grouped by the innermost frame of the
    scanned code in their samples; ``blocked_ms`` adds up the group's stalls."""
    groups: dict[tuple[str, int, str], dict[str, Any]] = {}
    for stall in stalls:
        located = _innermost_scanned(stall, scanned)
        if located is None:
            continue  # the loop was held outside the scanned code (a test's own body, a library's)
        frame, sample = located
        key = (shown(frame.file), frame.line, frame.function)
        entry = groups.setdefault(
            key,
            {
                "path": key[0],
                "line": frame.line,
                "function": frame.function,
                "blocked_ms": 0.0,
                "stack": [
                    f"{shown(f.file)}:{f.line} {f.function.rsplit('.', 1)[-1]}"
                    for f in _project_part(sample, in_project)
                ],
            },
        )
        entry["blocked_ms"] = round(entry["blocked_ms"] + stall.blocked_s * 1000, 1)
    return sorted(groups.values(), key=lambda entry: -entry["blocked_ms"])


def _project_part(sample: tuple[Frame, ...], in_project: Callable[[str], bool]) -> tuple[Frame, ...]:
    """Innermost first, up to the outermost frame in the project (a test):
    the frames of pytest and the loop below it say nothing about the stall."""
    outermost = max((index for index, frame in enumerate(sample) if in_project(frame.file)), default=len(sample) - 1)
    return sample[: outermost + 1]


def _innermost_scanned(stall: Stall, scanned: Callable[[str], bool]) -> tuple[Frame, tuple[Frame, ...]] | None:
    for sample in stall.samples:
        for frame in sample:
            if scanned(frame.file):
                return frame, sample
    return None


def finding_entry(measured: Measured) -> dict[str, Any]:
    site = measured.site
    return {
        "code": site.code,
        "path": site.path,
        "line": site.line,
        "key": site.key,
        "status": measured.status,
        "calls": measured.calls,
        "blocked_ms_total": round(measured.total_ms, 1),
        "blocked_ms_max": round(measured.max_ms, 1),
        "test": measured.test,
    }


def report_dict(
    threshold_ms: float, measured: list[Measured], unexplained: list[dict[str, Any]], not_wrapped: list[str]
) -> dict[str, Any]:
    return {
        "version": REPORT_VERSION,
        "threshold_ms": threshold_ms,
        "findings": [finding_entry(one) for one in measured],
        "unexplained": unexplained,
        "not_wrapped": not_wrapped,
    }


def summary_lines(report: dict[str, Any]) -> list[str]:
    """What the terminal shows at the end of the session."""
    counts = {status: 0 for status in ("confirmed", "refuted", "not-reached")}
    for finding in report["findings"]:
        counts[finding["status"]] += 1
    lines = [
        f"mmlint confirm: {counts['confirmed']} confirmed, {counts['refuted']} refuted, "
        f"{counts['not-reached']} not reached, {len(report['unexplained'])} unexplained stall site(s) "
        f"(threshold {report['threshold_ms']:g} ms)"
    ]
    for finding in report["findings"]:
        if finding["status"] == "confirmed":
            lines.append(
                f"  confirmed {finding['path']}:{finding['line']} {finding['code']}: "
                f"{finding['blocked_ms_max']:.1f} ms max over {finding['calls']} call(s)"
            )
    for entry in report["unexplained"]:
        lines.append(f"  unexplained {entry['path']}:{entry['line']} {entry['function']}: {entry['blocked_ms']:.1f} ms")
    return lines


def under(root: str) -> Callable[[str], bool]:
    """Whether a frame's file is in the project (mmlint's own frames are not)."""
    own = os.path.dirname(os.path.dirname(os.path.realpath(__file__))) + os.sep

    def inside(path: str) -> bool:
        if not os.path.isabs(path):  # "<frozen runpy>", "<string>": no file
            return False
        real = os.path.realpath(path)
        return real.startswith(root + os.sep) and not real.startswith(own) and "site-packages" not in real

    return inside


def display_path(root: str) -> Callable[[str], str]:
    def shown(path: str) -> str:
        real = os.path.realpath(path)
        return os.path.relpath(real, root).replace(os.sep, "/") if real.startswith(root + os.sep) else path

    return shown
