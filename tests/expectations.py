"""Expected diagnostics written in fixture files, and the comparison with a report.

A fixture line carries its expected codes in a trailing comment:

    items, ids, _ = self.process_and_combine_mm_data(  # expect: MM001
    x = helper()  # why this is here  # expect: MM001, MM002

The marker is read with one regular expression (never ``eval``); the line of
the marker is the line where the diagnostic must start. Comparisons are exact
multisets of (path, line, code), restricted to the codes a test selects.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mmlint.core.diagnostics import Diagnostic
from mmlint.core.source import split_lines

# `# expect: MM001` or `# expect: MM001, MM002`, ending the line; it may follow
# other comment text on that line.
EXPECT_MARKER = re.compile(r"#\s*expect:\s*(?P<codes>MM\d{3}(?:\s*,\s*MM\d{3})*)\s*$")
# `# expect-alone: MM004`: expected only when the file is checked on its own
# (an await folded into its root's MM003 in a full scan is MM004 when the root
# is not a target).
ALONE_MARKER = re.compile(r"#\s*expect-alone:\s*(?P<codes>MM\d{3}(?:\s*,\s*MM\d{3})*)\s*$")


@dataclass(frozen=True, order=True)
class Finding:
    """One diagnostic as the fixtures see it: where it starts and its code."""

    path: str  # posix, relative to the directory the check runs in
    line: int
    code: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.code}"


def markers_in(text: str, marker: re.Pattern[str] = EXPECT_MARKER) -> list[tuple[int, str]]:
    """(line, code) for every code of every `# expect:` marker in ``text``; lines are 1-based."""
    found: list[tuple[int, str]] = []
    for number, line in enumerate(split_lines(text), start=1):
        match = marker.search(line)
        if match is None:
            continue
        found.extend((number, code.strip()) for code in match.group("codes").split(","))
    return found


def expected_findings(root: Path, relative_to: Path, marker: re.Pattern[str] = EXPECT_MARKER) -> Counter[Finding]:
    """The multiset of findings the markers under ``root`` promise.

    Every ``*.py`` / ``*.pyi`` file below ``root`` is read as UTF-8 (fixture files
    with other encodings must declare their markers in ASCII, which still decodes
    with ``errors="replace"``); paths are made relative to ``relative_to``.
    """
    findings: Counter[Finding] = Counter()
    for file in sorted(root.rglob("*")):
        if file.suffix not in (".py", ".pyi") or not file.is_file():
            continue
        display = file.relative_to(relative_to).as_posix()
        text = file.read_bytes().decode("utf-8", errors="replace")
        findings.update(Finding(display, line, code) for line, code in markers_in(text, marker))
    return findings


def reported_findings(diagnostics: Iterable[Diagnostic], codes: Iterable[str]) -> Counter[Finding]:
    """The multiset of findings in ``diagnostics`` whose code is one of ``codes``."""
    wanted = set(codes)
    return Counter(Finding(d.path, d.span.line, d.code) for d in diagnostics if d.code in wanted)


def restrict(findings: Counter[Finding], codes: Iterable[str]) -> Counter[Finding]:
    """Only the findings whose code is one of ``codes``."""
    wanted = set(codes)
    return Counter({finding: count for finding, count in findings.items() if finding.code in wanted})


def describe_difference(expected: Counter[Finding], diagnostics: Iterable[Diagnostic], codes: Iterable[str]) -> str:
    """A readable diff between markers and reported diagnostics; empty when they agree.

    Missing findings are listed with their place; unexpected ones with the
    diagnostic's column and message, which usually tells what went wrong.
    """
    wanted = set(codes)
    relevant = [d for d in diagnostics if d.code in wanted]
    expected = restrict(expected, wanted)
    reported = reported_findings(relevant, wanted)
    missing = expected - reported
    unexpected = reported - expected
    if not missing and not unexpected:
        return ""
    lines: list[str] = []
    if missing:
        lines.append(f"missing ({sum(missing.values())}): expected but not reported")
        for finding in sorted(missing.elements()):
            lines.append(f"  - {finding}")
    if unexpected:
        lines.append(f"unexpected ({sum(unexpected.values())}): reported but not expected")
        remaining = Counter(unexpected)
        for diagnostic in sorted(relevant, key=lambda d: d.sort_key):
            finding = Finding(diagnostic.path, diagnostic.span.line, diagnostic.code)
            if remaining[finding] > 0:
                remaining[finding] -= 1
                lines.append(
                    f"  + {diagnostic.path}:{diagnostic.span.line}:{diagnostic.span.column}: "
                    f"{diagnostic.code} {diagnostic.message}"
                )
    return "\n".join(lines)


def assert_diagnostics_match(
    expected: Counter[Finding], diagnostics: Iterable[Diagnostic], codes: Iterable[str]
) -> None:
    """Fail with a readable diff unless the diagnostics of ``codes`` are exactly ``expected``."""
    codes = tuple(codes)
    difference = describe_difference(expected, diagnostics, codes)
    if difference:
        raise AssertionError(f"diagnostics for {', '.join(sorted(codes))} differ from the markers:\n{difference}")


def markers_to_suppressions(text: str, codes: Iterable[str]) -> str:
    """Turn each `# expect: ...` marker into `# mmlint: ignore[...]` for the codes in ``codes``.

    A marker whose codes are all outside ``codes`` is left as it is; other text
    on the line, line endings included, is untouched.
    """
    wanted = set(codes)
    out: list[str] = []
    for line in split_lines(text, keepends=True):
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        match = EXPECT_MARKER.search(body)
        if match is not None:
            marked = [code.strip() for code in match.group("codes").split(",")]
            kept = [code for code in marked if code in wanted]
            if kept:
                body = body[: match.start()] + f"# mmlint: ignore[{','.join(kept)}]"
        out.append(body + ending)
    return "".join(out)


# ---------------------------------------------------------------------------
# An independent scan with the standard library's `ast`, so the tests do not
# check the engine against itself.


@dataclass(frozen=True, order=True)
class TwinCallSite:
    """A call of a twin found by :func:`scan_twin_calls`."""

    line: int  # where the callee expression starts
    name: str
    is_async_twin: bool
    # Innermost enclosing function-like scope: "module", "class", "def",
    # "async def" or "lambda" (comprehensions looked through).
    scope: str
    function: str  # name of the innermost enclosing def / async def, "" if none


def _callee_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


class _TwinCallFinder(ast.NodeVisitor):
    def __init__(self, sync_names: set[str], async_names: set[str]):
        self.sync_names = sync_names
        self.async_names = async_names
        self.scopes: list[tuple[str, str]] = [("module", "")]
        self.found: list[TwinCallSite] = []

    def _scoped(self, kind: str, name: str, node: ast.AST) -> None:
        self.scopes.append((kind, name))
        self.generic_visit(node)
        self.scopes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        # Decorators and defaults are evaluated in the enclosing scope.
        for outer in (*node.decorator_list, *node.args.defaults, *node.args.kw_defaults):
            if outer is not None:
                self.visit(outer)
        self.scopes.append(("def", node.name))
        for statement in node.body:
            self.visit(statement)
        self.scopes.pop()

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        for outer in (*node.decorator_list, *node.args.defaults, *node.args.kw_defaults):
            if outer is not None:
                self.visit(outer)
        self.scopes.append(("async def", node.name))
        for statement in node.body:
            self.visit(statement)
        self.scopes.pop()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for outer in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(outer)
        self.scopes.append(("class", node.name))
        for statement in node.body:
            self.visit(statement)
        self.scopes.pop()

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._scoped("lambda", "", node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _callee_name(node.func)
        if name in self.sync_names or name in self.async_names:
            kind = self.scopes[-1][0]
            function = next((n for k, n in reversed(self.scopes) if k in ("def", "async def")), "")
            self.found.append(TwinCallSite(node.func.lineno, name, name in self.async_names, kind, function))
        self.generic_visit(node)


def scan_twin_calls(source: str | bytes, twins: Iterable[tuple[str, str]]) -> list[TwinCallSite] | None:
    """Every call of a twin in ``source``, sorted; None when it does not parse.

    ``twins`` holds (sync name, async name) pairs. References that are not
    calls (``functools.partial(self.twin, ...)``) are not call sites.
    """
    pairs = list(twins)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    finder = _TwinCallFinder({s for s, _ in pairs}, {a for _, a in pairs})
    finder.visit(tree)
    return sorted(finder.found)


def is_delegation(site: TwinCallSite, twins: Iterable[tuple[str, str]]) -> bool:
    """A sync twin called inside the body of its own async twin (the base-class delegation)."""
    return any(site.name == sync and site.function == async_ for sync, async_ in twins)
