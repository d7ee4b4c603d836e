"""The findings to confirm, as sites in the source: where each one's code runs
(the call's lines, or the whole def for MM003), the def it is in, the callees
to wrap, and its key. Built from mmlint.api's report or from a `check --format
json` file; the enclosing def's range and qualified name come from the file's
own syntax tree (the JSON report carries neither)."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmlint.core.confirmation import callee_of, finding_key
from mmlint.core.json_file import JsonFileError, read_json_file

# MM003 is about the whole def: any line of it blocking is the finding.
WHOLE_DEF_CODES = frozenset({"MM003"})
# A chain step: "`helper` at pkg/a.py:12".
_STEP = re.compile(r"^`([^`]+)` at (.+):(\d+)$")


class ReportError(Exception):
    """A report that cannot be used: the message names the file."""


@dataclass(frozen=True, slots=True)
class DefRange:
    qualname: str
    start: int
    end: int
    is_class: bool = False


@dataclass(frozen=True, slots=True)
class Site:
    """One finding as the run-time side sees it. ``targets``: the callees to
    wrap, the costliest first (a dotted name as the file's code spells it, or a
    scanned def as (path, line)); the first one that resolves is wrapped."""

    code: str
    path: str  # as the report shows it
    file: str  # absolute, symbolic links resolved: frames are compared with it
    line: int
    first: int  # the lines whose execution is this finding
    last: int
    def_qualname: str
    callee: str
    key: str
    targets: tuple[str | tuple[str, int], ...]

    def covers(self, line: int) -> bool:
        return self.first <= line <= self.last

    @property
    def label(self) -> str:
        return f"{self.path}:{self.line} {self.code} `{self.callee}`"


def def_ranges(source: str) -> list[DefRange]:
    """Every def and class of a module with its lines (decorators included) and
    qualified name, spelled as mmlint.core.diagnostics.qualname spells it."""
    found: list[DefRange] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                is_class = isinstance(child, ast.ClassDef)
                found.append(DefRange(name, start, child.end_lineno or child.lineno, is_class))
                visit(child, name + ("." if is_class else ".<locals>."))
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def innermost_def(ranges: Iterable[DefRange], line: int) -> DefRange | None:
    """The innermost def (not class) containing ``line``."""
    best: DefRange | None = None
    for candidate in ranges:
        if (
            not candidate.is_class
            and candidate.start <= line <= candidate.end
            and (best is None or candidate.start >= best.start)
        ):
            best = candidate
    return best


class SourceDefs:
    """Each file's defs, parsed once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._ranges: dict[str, list[DefRange]] = {}

    def absolute(self, path: str) -> str:
        return os.path.realpath(self.root / path)

    def ranges(self, path: str) -> list[DefRange]:
        if path not in self._ranges:
            try:
                source = Path(self.absolute(path)).read_text(encoding="utf-8")
                self._ranges[path] = def_ranges(source)
            except (OSError, SyntaxError, UnicodeDecodeError, ValueError, RecursionError):
                self._ranges[path] = []
        return self._ranges[path]


def site_of(finding: Mapping[str, Any], sources: SourceDefs) -> Site:
    """A Site from one diagnostic of a JSON report (or its equivalent dict)."""
    code, path, line = str(finding["code"]), str(finding["path"]), int(finding["line"])
    end_line = int(finding.get("end_line", line))
    chain = [str(step) for step in finding.get("chain", [])]
    message = str(finding.get("message", ""))
    enclosing = innermost_def(sources.ranges(path), line)
    def_qualname = enclosing.qualname if enclosing else "<module>"
    first, last = (enclosing.start, enclosing.end) if code in WHOLE_DEF_CODES and enclosing else (line, end_line)
    callee = callee_of(chain, message)
    targets: list[str | tuple[str, int]] = [callee] if callee else []
    for step in reversed(chain[:-1]):  # scanned defs on the way, deepest first
        matched = _STEP.match(step)
        if matched:
            targets.append((matched.group(2), int(matched.group(3))))
    return Site(
        code=code,
        path=path,
        file=sources.absolute(path),
        line=line,
        first=first,
        last=last,
        def_qualname=def_qualname,
        callee=callee,
        key=finding_key(code, path, def_qualname, callee),
        targets=tuple(targets),
    )


def sites_from_findings(findings: Iterable[Mapping[str, Any]], root: Path) -> tuple[Site, ...]:
    sources = SourceDefs(root)
    return tuple(site_of(finding, sources) for finding in findings)


def read_report(path: Path) -> list[Mapping[str, Any]]:
    """The diagnostics of a `mmlint check --format json` file, checked enough
    that every later read of them succeeds."""
    try:
        data = read_json_file(path)
    except JsonFileError as error:
        raise ReportError(str(error)) from None
    diagnostics = data.get("diagnostics") if isinstance(data, dict) else None
    if not isinstance(diagnostics, list):
        raise ReportError(f'{path}: not a `mmlint check --format json` report (no "diagnostics" list)')
    for index, entry in enumerate(diagnostics):
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("code"), str)
            and isinstance(entry.get("path"), str)
            and type(entry.get("line")) is int
            and type(entry.get("end_line", 0)) is int
            and isinstance(entry.get("message", ""), str)
            and isinstance(entry.get("chain", []), list)
            and all(isinstance(step, str) for step in entry.get("chain", []))
        ):
            raise ReportError(f"{path}: diagnostic {index} lacks a code, path, line or message of the right type")
    return diagnostics
