"""mmlint's values as the protocol's: 1-based code-point spans → 0-based
positions in the client's encoding (UTF-16 unless it chose UTF-8 or UTF-32),
diagnostics with their severity, rule link and related locations, and a new
text as the edits that turn the old one into it.

The protocol's values are plain JSON objects (dicts), as they go on the
wire; the TypedDicts below name the shapes mypy checks, the others are
``dict[str, Any]`` built in one place each. Optional fields are left out
rather than null, as clients expect."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any, TypedDict

from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.core.source import split_lines
from mmlint.rules import rule_by_code

# Position encodings (PositionEncodingKind): the code units a position's character counts.
UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
ENCODINGS = (UTF8, UTF16, UTF32)
# DiagnosticSeverity.
ERROR, WARNING = 1, 2
SOURCE = "mmlint"
# The rule pages on the project's repository (pyproject's [project.urls]
# Repository, whose rules/ holds them): an address that works from a wheel
# install too, where no rules/ directory comes along.
RULE_DOCS_URL = "https://github.com/mmlint/mmlint/blob/main/rules/{code}.md"


def units(text: str, encoding: str) -> int:
    """How many code units of ``encoding`` ``text`` takes."""
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == UTF32:
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class Position(TypedDict):
    line: int  # 0-based
    character: int  # 0-based, in code units of the position encoding


class Range(TypedDict):
    start: Position
    end: Position


def position(line: int, character: int) -> Position:
    return {"line": line, "character": character}


class Lines:
    """A document's lines, for turning code-point columns into the client's units."""

    def __init__(self, text: str, encoding: str) -> None:
        self.lines = split_lines(text, keepends=True)
        self.encoding = encoding

    def position(self, line: int, column: int) -> Position:
        """1-based line and code-point column → the protocol's position."""
        index = line - 1
        if index >= len(self.lines):  # the end of a file without a final line break, or past it
            if not self.lines:
                return position(0, 0)
            last = self.lines[-1]
            if last.endswith(("\n", "\r")):
                return position(len(self.lines), 0)
            return position(len(self.lines) - 1, units(last, self.encoding))
        text = self.lines[max(index, 0)].rstrip("\r\n")
        return position(max(index, 0), units(text[: max(column - 1, 0)], self.encoding))

    def range(self, span: Span) -> Range:
        return {"start": self.position(span.line, span.column), "end": self.position(span.end_line, span.end_column)}


def rule_url(code: str, template: str | None) -> str | None:
    """The address of the rule's page (``template``: the ruleDocsUrl setting, with {code} and {name})."""
    rule = rule_by_code(code)
    if rule is None:
        return None
    return (template or RULE_DOCS_URL).replace("{code}", code).replace("{name}", rule.name)


def to_lsp(
    diagnostic: Diagnostic,
    lines: Lines,
    *,
    uri_of: Callable[[str], str | None],
    lines_of: Callable[[str], Lines | None],
    rule_docs_url: str | None = None,
) -> dict[str, Any]:
    """One diagnostic as `check` reports it: code, message (its help on a
    line below), severity (the rule's level), the link to the rule's page
    and the related locations (``uri_of`` / ``lines_of``: a display path's
    URI and lines)."""
    rule = rule_by_code(diagnostic.code)
    level = rule.level if rule is not None else "error"
    related = []
    for location in diagnostic.related:
        uri = uri_of(location.path)
        if uri is None:
            continue
        other = lines_of(location.path)
        where = other.range(location.span) if other is not None else _plain_range(location.span)
        related.append({"location": {"uri": uri, "range": where}, "message": location.message})
    shown: dict[str, Any] = {
        "range": lines.range(diagnostic.span),
        # An editor shows the whole message on hover: the advice goes on a line below.
        "message": diagnostic.message + (f"\nhelp: {diagnostic.help}" if diagnostic.help else ""),
        "severity": WARNING if level == "warning" else ERROR,
        "code": diagnostic.code,
    }
    url = rule_url(diagnostic.code, rule_docs_url)
    if url is not None:
        shown["codeDescription"] = {"href": url}
    shown["source"] = SOURCE
    if related:
        shown["relatedInformation"] = related
    shown["data"] = {
        "name": diagnostic.name,
        "fixable": diagnostic.fixable,
        "line": diagnostic.span.line,
        "column": diagnostic.span.column,
    }
    return shown


def _plain_range(span: Span) -> Range:
    return {"start": position(span.line - 1, span.column - 1), "end": position(span.end_line - 1, span.end_column - 1)}


def text_edit(where: Range, new_text: str) -> dict[str, Any]:
    return {"range": where, "newText": new_text}


def text_edits(old: str, new: str, encoding: str) -> list[dict[str, Any]]:
    """Edits turning ``old`` into ``new``: one per run of changed lines, so the
    rest of the buffer (and the cursor) stays where it is."""
    old_lines, new_lines = split_lines(old, keepends=True), split_lines(new, keepends=True)
    where = Lines(old, encoding)
    edits = []
    for first, last, new_first, new_last in _changed_runs(old_lines, new_lines):
        start = _line_start(where, first)
        end = _line_start(where, last)
        edits.append(text_edit({"start": start, "end": end}, "".join(new_lines[new_first:new_last])))
    return edits


def _changed_runs(old: list[str], new: list[str]) -> list[tuple[int, int, int, int]]:
    """The runs of lines that differ, as (first, last) in each (last exclusive).
    Texts of as many lines (every fix and suppression keeps the lines) are
    compared line by line, in linear time: difflib's matcher is quadratic
    in the lines a file repeats, and a fix-all of 8,000 similar lines took
    seconds there."""
    if len(old) != len(new):
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        return [(a, b, c, d) for tag, a, b, c, d in matcher.get_opcodes() if tag != "equal"]
    runs: list[tuple[int, int, int, int]] = []
    index = 0
    while index < len(old):
        if old[index] == new[index]:
            index += 1
            continue
        first = index
        while index < len(old) and old[index] != new[index]:
            index += 1
        runs.append((first, index, first, index))
    return runs


def _line_start(lines: Lines, index: int) -> Position:
    """The start of line ``index`` (0-based), or the end of the text past its last line."""
    if index < len(lines.lines):
        return position(index, 0)
    return lines.position(index + 1, 1)
