"""Adopting mmlint on a legacy tree: record today's diagnostics in a baseline
file, then report only diagnostics that are not in it.

An entry is keyed by path, rule code and the flagged source text (the stripped
first line of the diagnostic's span), with a count, so that code moving up or
down a file does not break the match while a second copy of the same bad line
is still reported. Paths are stored relative to the baseline file's directory,
so the file works from wherever `mmlint` runs."""

from __future__ import annotations

import dataclasses
import json
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from mmlint.core.diagnostics import Diagnostic
from mmlint.core.report import Report
from mmlint.core.safe_read import BASELINE_MAX_BYTES, JSON_MAX_DEPTH, json_depth, read_placed_bytes
from mmlint.core.source import DecodeError, decode_source, split_lines
from mmlint.rules import rule_by_code


# The kind of report a baseline is applied to comes back (one with its project, for fix).
AnyReport = TypeVar("AnyReport", bound=Report)

BASELINE_VERSION = 1


def is_baselinable(code: str) -> bool:
    """As the rule declares. MM999 is not: a file that does not parse was not
    checked at all, so recording it would hide every finding the file gets
    once it parses again."""
    rule = rule_by_code(code)
    return rule is None or rule.baselinable


BaselineKey = tuple[str, str, str]  # (path, code, flagged source text)


class BaselineError(Exception):
    """The baseline file cannot be read or is not a baseline; the message is one line."""


@dataclass(frozen=True)
class BaselineOutcome(Generic[AnyReport]):
    report: AnyReport  # the report holding only the diagnostics not in the baseline
    baselined: int  # diagnostics matched by a baseline entry and dropped
    stale_entries: int  # recorded diagnostics (in the scanned files) that no longer occur

    def summary(self) -> str:
        """One line for the end of a check, e.g. "3 diagnostics baselined; 1 baseline entry no longer matches"."""
        baselined = f"{self.baselined} diagnostic{'s' if self.baselined != 1 else ''} baselined"
        if self.stale_entries == 1:
            return f"{baselined}; 1 baseline entry no longer matches"
        return f"{baselined}; {self.stale_entries} baseline entries no longer match"


class _SourceText:
    """Reads each file once and answers "what is the stripped text of line N"."""

    def __init__(self, file_paths: dict[str, Path], cwd: Path) -> None:
        self._file_paths = file_paths
        self._cwd = cwd
        self._lines: dict[str, list[str]] = {}

    def absolute(self, display_path: str) -> Path:
        known = self._file_paths.get(display_path)
        return Path(os.path.abspath(known if known is not None else self._cwd / display_path))

    def line(self, display_path: str, line: int) -> str:
        if display_path not in self._lines:
            self._lines[display_path] = self._read(self.absolute(display_path))
        lines = self._lines[display_path]
        return lines[line - 1].strip() if 1 <= line <= len(lines) else ""

    @staticmethod
    def _read(path: Path) -> list[str]:
        try:
            return split_lines(decode_source(path.read_bytes()))
        except (OSError, DecodeError):
            # The diagnostic still has a path and a code to match on.
            return []


def _key_path(absolute: Path, anchor: Path) -> str:
    """``absolute`` relative to the baseline's directory (``..`` allowed, so a
    baseline kept in a subdirectory stays portable) with ``/`` separators; absolute
    only when no relative path exists (another drive on Windows)."""
    try:
        shown = Path(os.path.relpath(absolute, anchor)).as_posix()
    except ValueError:
        shown = absolute.as_posix()
    # Undecodable bytes of a file name as `\\xNN`, as in every report (JSON needs text).
    return shown.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _key(diagnostic: Diagnostic, source: _SourceText, anchor: Path) -> BaselineKey:
    path = _key_path(source.absolute(diagnostic.path), anchor)
    return (path, diagnostic.code, source.line(diagnostic.path, diagnostic.span.line))


def _anchor(baseline_path: Path) -> Path:
    return Path(os.path.abspath(baseline_path)).parent


def baseline_data(report: "Report", baseline_path: Path, *, cwd: Path | None = None) -> dict[str, Any]:
    """The baseline document recording every diagnostic of ``report`` (except MM999),
    with paths relative to the directory ``baseline_path`` will be written in."""
    anchor = _anchor(baseline_path)
    source = _SourceText(report.file_paths, Path.cwd() if cwd is None else cwd)
    counts = Counter(_key(d, source, anchor) for d in report.diagnostics if is_baselinable(d.code))
    entries = [
        {"path": path, "code": code, "text": text, "count": count}
        for (path, code, text), count in sorted(counts.items())
    ]
    return {"version": BASELINE_VERSION, "tool": "mmlint", "entries": entries}


def render_baseline(report: "Report", baseline_path: Path, *, cwd: Path | None = None) -> str:
    """:func:`baseline_data` as the JSON text of the file (stable order, one entry per line group)."""
    return json.dumps(baseline_data(report, baseline_path, cwd=cwd), indent=2, ensure_ascii=False) + "\n"


def load_baseline(baseline_path: Path) -> Counter[BaselineKey]:
    """The recorded counts per (path, code, text). Raises :class:`BaselineError`
    with a one-line message naming the file when it cannot be used."""
    where = f"baseline {baseline_path}"
    try:
        raw = read_placed_bytes(baseline_path, BASELINE_MAX_BYTES)
        if json_depth(raw) > JSON_MAX_DEPTH:
            raise BaselineError(f"{where}: not a baseline: JSON nested more than {JSON_MAX_DEPTH} deep")
        data = json.loads(raw.decode("utf-8"))
    except OSError as error:
        raise BaselineError(f"{where}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise BaselineError(f"{where}: not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise BaselineError(
            f"{where}: not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    except RecursionError:  # json_depth is an estimate for text that is not JSON
        raise BaselineError(f"{where}: not a baseline: JSON nested more than {JSON_MAX_DEPTH} deep") from None
    if not isinstance(data, dict):
        raise BaselineError(f"{where}: expected a JSON object with 'version' and 'entries'")
    if data.get("version") != BASELINE_VERSION:
        raise BaselineError(f"{where}: unsupported version {data.get('version')!r} (expected {BASELINE_VERSION})")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise BaselineError(f"{where}: 'entries' must be a list")
    counts: Counter[BaselineKey] = Counter()
    for number, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise BaselineError(f"{where}: entry {number} is not an object")
        for name in ("path", "code", "text"):
            if not isinstance(entry.get(name), str):
                raise BaselineError(f"{where}: entry {number}: '{name}' must be a string")
        if "\x00" in entry["path"]:  # no file's path holds one
            raise BaselineError(f"{where}: entry {number}: 'path' holds a NUL character")
        count = entry.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise BaselineError(f"{where}: entry {number}: 'count' must be a positive integer")
        counts[(entry["path"], entry["code"], entry["text"])] += count
    return counts


def apply_baseline(report: AnyReport, baseline_path: Path, *, cwd: Path | None = None) -> BaselineOutcome[AnyReport]:
    """Drop the diagnostics recorded in the baseline from ``report``.

    Each entry absorbs up to ``count`` diagnostics with the same path, code and
    flagged text, wherever they now sit in the file. Entries left over are stale;
    they are counted only for files this scan covered (all of them on a full
    scan), so a pre-commit run over a few files does not call the rest stale.
    Raises :class:`BaselineError` when the file cannot be used."""
    remaining = load_baseline(baseline_path)
    anchor = _anchor(baseline_path)
    source = _SourceText(report.file_paths, Path.cwd() if cwd is None else cwd)
    kept: list[Diagnostic] = []
    baselined = 0
    for diagnostic in report.diagnostics:
        key = None if not is_baselinable(diagnostic.code) else _key(diagnostic, source, anchor)
        if key is not None and remaining[key] > 0:
            remaining[key] -= 1
            baselined += 1
        else:
            kept.append(diagnostic)

    full_scan = report.full_scan
    scanned = {_key_path(source.absolute(display), anchor) for display in report.file_paths}
    stale = sum(count for (path, _, _), count in remaining.items() if count > 0 and (full_scan or path in scanned))
    return BaselineOutcome(
        report=dataclasses.replace(report, diagnostics=tuple(kept)), baselined=baselined, stale_entries=stale
    )
