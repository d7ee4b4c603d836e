"""Source positions for the few nodes that become facts, without libcst's
PositionProvider.

PositionProvider runs the whole module's codegen through a state that builds a
CodeRange for every node and enters a generator-based context manager per node:
about ten times the cost of plain codegen. Here the same codegen runs through
a state that keeps no text, only a line and column, and records a range only
for the nodes asked for. The ranges are exactly PositionProvider's: the same
codegen decides them (syntactic positions, with start/end hoisted from child
nodes where libcst says so; else the whitespace-inclusive range).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import libcst as cst
from libcst._add_slots import add_slots
from libcst._nodes.internal import CodegenState

from mmlint.core.diagnostics import Span

_NEWLINE = re.compile(r"\r\n?|\n")

# (start line, start column, end line, end column): 1-based lines, 0-based
# columns in code points, end exclusive — libcst's CodeRange as a tuple.
Range = tuple[int, int, int, int]


class _NoRecord:
    """The context manager for every node nobody asked about: does nothing, cheaply."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None


_NO_RECORD = _NoRecord()


class _Record:
    __slots__ = ("state", "node_id", "start_id", "end_id", "line", "column")

    def __init__(self, state: "_PositionState", node_id: int, start_id: int | None, end_id: int | None) -> None:
        self.state = state
        self.node_id = node_id
        self.start_id = start_id
        self.end_id = end_id

    def __enter__(self) -> None:
        self.line = self.state.line
        self.column = self.state.column

    def __exit__(self, *exc_info: object) -> None:
        state = self.state
        ranges = state.ranges
        start = (self.line, self.column) if self.start_id is None else ranges[self.start_id][:2]
        end = (state.line, state.column) if self.end_id is None else ranges[self.end_id][2:]
        ranges[self.node_id] = (*start, *end)


@add_slots
@dataclass(frozen=False)
class _PositionState(CodegenState):
    wanted: set[int] = field(default_factory=set)
    ranges: dict[int, Range] = field(default_factory=dict)
    inclusive_starts: dict[int, tuple[int, int]] = field(default_factory=dict)
    line: int = 1
    column: int = 0

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            segments = _NEWLINE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)
        if not self.tokens:  # Module's codegen asks whether anything was written
            self.tokens.append(value)

    def pop_trailing_newline(self) -> None:
        return None  # nothing follows it, so no position depends on it

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.wanted:
            self.inclusive_starts[id(node)] = (self.line, self.column)

    def after_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted and key not in self.ranges:  # no syntactic position was recorded
            self.ranges[key] = (*self.inclusive_starts[key], self.line, self.column)

    def record_syntactic_position(  # type: ignore[override]
        self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None, end_node: cst.CSTNode | None = None
    ):
        if id(node) not in self.wanted:
            return _NO_RECORD
        # Hoisted ends need the child's own range, recorded on the way.
        if start_node is not None:
            self.wanted.add(id(start_node))
        if end_node is not None:
            self.wanted.add(id(end_node))
        return _Record(
            self,
            id(node),
            None if start_node is None else id(start_node),
            None if end_node is None else id(end_node),
        )


def node_ranges(
    module: cst.Module, nodes: Iterable[cst.CSTNode], column_shift: Mapping[int, int] | None = None
) -> dict[int, Range]:
    """Ranges of ``nodes`` (keyed by ``id(node)``), exactly as PositionProvider
    gives them, from one lean codegen pass. ``column_shift`` (line -> count) adds
    to the columns on those lines: ``module`` was parsed from a view of the file
    with that many characters removed at the start of each such line
    (mmlint.core.source.indentation_view)."""
    wanted = {id(node) for node in nodes}
    if not wanted:
        return {}
    state = _PositionState(default_indent=module.default_indent, default_newline=module.default_newline, wanted=wanted)
    module._codegen(state)
    if not column_shift:
        return state.ranges
    return {
        key: (line, column + column_shift.get(line, 0), end_line, end_column + column_shift.get(end_line, 0))
        for key, (line, column, end_line, end_column) in state.ranges.items()
    }


def to_span(code_range: Range) -> Span:
    """A libcst-style range (0-based columns) as a 1-based Span."""
    line, column, end_line, end_column = code_range
    return Span(line, column + 1, end_line, end_column + 1)
