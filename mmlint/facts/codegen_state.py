"""A libcst codegen state that keeps no text: only where it is, and the ranges
of the nodes it was asked about.

libcst's PositionProvider runs the whole module's codegen through a state that
builds a CodeRange for every node and enters a generator-based context manager
per node: about ten times the cost of plain codegen. This state runs the same
codegen (so the same code decides every range: syntactic positions, with
start/end hoisted from child nodes where libcst says so; else the
whitespace-inclusive range) but keeps only a line and a column, records a
range only for the nodes asked for, and can stop where a compound statement's
first block begins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst
from libcst._add_slots import add_slots
from libcst._nodes.internal import CodegenState

_NEWLINE = re.compile(r"\r\n?|\n")

# (start line, start column, end line, end column): 1-based lines, 0-based
# columns in code points, end exclusive — libcst's CodeRange as a tuple.
Range = tuple[int, int, int, int]


class ReachedBlock(Exception):
    """Raised by the state at ``stop_at``: the statement's header is done."""


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

    def __init__(self, state: "PositionState", node_id: int, start_id: int | None, end_id: int | None) -> None:
        self.state = state
        self.node_id = node_id
        self.start_id = start_id
        self.end_id = end_id

    def __enter__(self) -> None:
        self.line = self.state.line
        self.column = self.state.column

    def __exit__(self, exc_type: object, *exc_info: object) -> None:
        if exc_type is not None:  # stopped at a block (ReachedBlock): this node's range is not needed
            return
        state = self.state
        ranges = state.ranges
        start = (self.line, self.column) if self.start_id is None else ranges[self.start_id][:2]
        end = (state.line, state.column) if self.end_id is None else ranges[self.end_id][2:]
        ranges[self.node_id] = (*start, *end)


@add_slots
@dataclass(frozen=False)
class PositionState(CodegenState):
    """Run ``node._codegen(state)``: ``ranges`` then holds the range of each
    node in ``wanted`` that was generated, counted from where ``line`` and
    ``column`` stood. ``probe``'s syntactic start is kept in ``probe_start``;
    generating ``stop_at`` raises ReachedBlock instead."""

    wanted: set[int] = field(default_factory=set)
    ranges: dict[int, Range] = field(default_factory=dict)
    inclusive_starts: dict[int, tuple[int, int]] = field(default_factory=dict)
    line: int = 1
    column: int = 0
    probe: int = 0
    probe_start: tuple[int, int] | None = None
    stop_at: cst.CSTNode | None = None

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
        if node is self.stop_at:
            raise ReachedBlock
        if id(node) in self.wanted:
            self.inclusive_starts[id(node)] = (self.line, self.column)

    def after_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted and key not in self.ranges:  # no syntactic position was recorded
            self.ranges[key] = (*self.inclusive_starts[key], self.line, self.column)

    def record_syntactic_position(  # type: ignore[override]
        self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None, end_node: cst.CSTNode | None = None
    ):
        key = id(node)
        if key == self.probe:
            self.probe_start = (self.line, self.column)
        if key not in self.wanted:
            return _NO_RECORD
        # Hoisted ends need the child's own range, recorded on the way.
        if start_node is not None:
            self.wanted.add(id(start_node))
        if end_node is not None:
            self.wanted.add(id(end_node))
        return _Record(
            self,
            key,
            None if start_node is None else id(start_node),
            None if end_node is None else id(end_node),
        )


def advance(line: int, column: int, text: str) -> tuple[int, int]:
    """Where a position ends up after ``text``."""
    if "\n" in text or "\r" in text:
        segments = _NEWLINE.split(text)
        return line + len(segments) - 1, len(segments[-1])
    return line, column + len(text)
