"""Source positions for the few nodes that become facts, exactly as libcst's
PositionProvider gives them, without generating the whole module.

A node's position depends only on the code generated before it. Every
statement's line is known from CPython's parser (mmlint.facts.anchors), so
only the statements that hold a node to place are generated, each from the
line start it begins on, with the indentation of the blocks around it
(mmlint.facts.libcst_internals); a compound statement is generated only up to its
first block when the nodes are in its header. Where a def or class and its
name start is plain arithmetic over the keywords and the whitespace between
them. Everything else, most of a file, is never generated.

The two trees are walked side by side, statement by statement; where they
disagree in any way (a kind, a def's name, a column, the count), or CPython
cannot parse the file, the whole module is generated instead. Where libcst's
private codegen API is not the one known (mmlint.facts.libcst_internals),
libcst's PositionProvider places them: slower, the same ranges.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst

from mmlint.core.diagnostics import Span
from mmlint.facts.anchors import Anchor
from mmlint.facts import libcst_internals
from mmlint.facts.libcst_internals import PositionState, Range, ReachedBlock, advance, generate

__all__ = ["Positions", "Range", "locate", "to_span"]

# A node's chain of ancestors, itself first (mmlint.facts.ir_builder.Link).
Link = tuple[cst.CSTNode, "Link | None"]
Definition = cst.FunctionDef | cst.ClassDef


@dataclass(frozen=True)
class Positions:
    # id(node) -> its range: each placed node, and the name of each def and class
    ranges: dict[int, Range]
    # id(def or class) -> its syntactic start (the `async`, `def` or `class` keyword)
    starts: dict[int, tuple[int, int]]


def locate(
    module: cst.Module,
    placed: Iterable[tuple[cst.CSTNode, Link]],
    definitions: Iterable[Definition],
    anchors: Sequence[Anchor] | None,
    column_shift: Mapping[int, int] | None = None,
) -> Positions:
    """The ranges of the ``placed`` nodes (each with an ancestor chain that
    reaches its statement) and where each of ``definitions`` and its name
    start. ``anchors``: mmlint.facts.anchors.statement_anchors of the text
    ``module`` was parsed from, or None. ``column_shift`` (line -> count) adds
    to the columns on those lines: ``module`` was parsed from a view of the
    file with that many characters removed at the start of each such line
    (mmlint.core.source.indentation_view)."""
    placed = list(placed)
    definitions = list(definitions)
    positions = None
    if libcst_internals.PROBLEM is not None:
        positions = _from_provider(module, placed, definitions)
    else:
        libcst_internals.flatten_codegen()
        if anchors is not None:
            try:
                positions = _by_statement(module, placed, anchors)
            except _Misaligned:
                positions = None
        if positions is None:
            positions = _whole_module(module, placed, definitions)
    if not column_shift:
        return positions
    return Positions(
        {key: _shifted(code_range, column_shift) for key, code_range in positions.ranges.items()},
        {key: (line, column + column_shift.get(line, 0)) for key, (line, column) in positions.starts.items()},
    )


def to_span(code_range: Range) -> Span:
    """A libcst-style range (0-based columns) as a 1-based Span."""
    line, column, end_line, end_column = code_range
    return Span(line, column + 1, end_line, end_column + 1)


def _shifted(code_range: Range, column_shift: Mapping[int, int]) -> Range:
    line, column, end_line, end_column = code_range
    return (line, column + column_shift.get(line, 0), end_line, end_column + column_shift.get(end_line, 0))


class _Misaligned(Exception):
    """The two parsers' statements disagree: place nodes the slow, sure way."""


# How much of a statement to generate: a simple line, a compound statement's
# header (up to its first block), or all of it (nodes in an except or case
# clause, or in a block on the header's line).
_LINE, _HEADER, _WHOLE = 1, 2, 3
_COMPOUND = frozenset(
    {cst.FunctionDef, cst.ClassDef, cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar, cst.Match}
)
_PAST_HEADER = frozenset({cst.SimpleStatementSuite, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase})


def _statements_holding(placed: list[tuple[cst.CSTNode, Link]]) -> dict[int, int]:
    """id(statement) -> how much of it to generate, for the statements (simple
    lines and compound statements) that hold a placed node."""
    marked: dict[int, int] = {}
    # id(link) -> (the statement above it, whether a clause lies between): nodes
    # of one statement share most of their chains.
    found: dict[int, tuple[cst.CSTNode, bool]] = {}
    for _node, link in placed:
        path: list[tuple[int, bool]] = []
        current: Link | None = link
        while True:
            if current is None:
                raise _Misaligned  # a node outside every statement: not a tree we know
            known = found.get(id(current))
            if known is not None:
                statement, past_header = known
                break
            node_type = type(current[0])
            if node_type is cst.SimpleStatementLine or node_type in _COMPOUND:
                statement, past_header = current[0], False
                break
            path.append((id(current), node_type in _PAST_HEADER))
            current = current[1]
        for key, is_clause in reversed(path):
            past_header = past_header or is_clause
            found[key] = (statement, past_header)
        if type(statement) is cst.SimpleStatementLine:
            mode = _LINE
        else:
            mode = _WHOLE if past_header else _HEADER
        if marked.get(id(statement), 0) < mode:
            marked[id(statement)] = mode
    return marked


def _by_statement(module: cst.Module, placed: list[tuple[cst.CSTNode, Link]], anchors: Sequence[Anchor]) -> Positions:
    marked = _statements_holding(placed)
    state = PositionState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        wanted={id(node) for node, _ in placed},
    )
    ranges: dict[int, Range] = {}
    starts: dict[int, tuple[int, int]] = {}
    default_indent = module.default_indent
    count = len(anchors)
    index = 0
    stack: list[tuple[cst.CSTNode, tuple[str, ...]]] = [(statement, ()) for statement in reversed(module.body)]
    elifs: set[int] = set()  # an elif is an If generated with is_elif
    while stack:
        node, indent = stack.pop()
        if isinstance(node, cst.SimpleStatementLine):
            small = node.body
            if index + len(small) > count:
                raise _Misaligned
            for offset, statement in enumerate(small):
                if _kind(statement) != anchors[index + offset][0]:
                    raise _Misaligned
            _, line, column, _ = anchors[index]  # the first small statement's: the line's
            index += len(small)
            if id(node) in marked:
                _generate(state, node, line, column, indent, None, ranges, False)
            continue
        if index >= count:
            raise _Misaligned
        kind, line, column, name = anchors[index]
        index += 1
        if _kind(node) != kind:
            raise _Misaligned
        if not isinstance(node, cst.BaseCompoundStatement):  # a simple statement in a block on its header's line
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            if node.name.value != name and unicodedata.normalize("NFKC", node.name.value) != name:
                raise _Misaligned  # (CPython keeps a name NFKC-normalised, libcst as written)
            starts[id(node)] = (line, column)
            ranges[id(node.name)] = _name_range(node, line, column)
        mode = marked.get(id(node))
        if mode is not None:
            stop_at = _first_block(node) if mode == _HEADER else None
            _generate(state, node, line, column, indent, stop_at, ranges, id(node) in elifs)
        stack.extend(reversed(_nested(node, indent, default_indent, elifs)))
    if index != count:
        raise _Misaligned
    return Positions(ranges, starts)


def _generate(
    state: PositionState,
    node: cst.CSTNode,
    line: int,
    column: int,
    indent: tuple[str, ...],
    stop_at: cst.CSTNode | None,
    ranges: dict[int, Range],
    is_elif: bool,
) -> None:
    """Generate ``node`` (a simple line or a compound statement, which begins
    at the start of a line) from line 0, then move what it placed to the line
    its anchor gives: the statement's syntactic start is at (line, column)."""
    state.line = 0
    state.column = 0
    state.indent_tokens = list(indent)
    state.ranges = {}
    state.inclusive_starts = {}
    state.probe = id(node)
    state.probe_start = None
    state.stop_at = stop_at
    try:
        generate(state, node, is_elif)
    except ReachedBlock:
        pass
    start = state.probe_start
    # The column is the indentation, so bytes and code points agree.
    if start is None or start[1] != column:
        raise _Misaligned
    delta = line - start[0]
    for key, (start_line, start_column, end_line, end_column) in state.ranges.items():
        ranges[key] = (start_line + delta, start_column, end_line + delta, end_column)


def _name_range(node: Definition, line: int, column: int) -> Range:
    """Where a def's or class's name is, from where its keyword starts."""
    if isinstance(node, cst.ClassDef):
        before = "class" + node.whitespace_after_class.value
    else:
        before = "def" + node.whitespace_after_def.value
        if node.asynchronous is not None:
            before = "async" + node.asynchronous.whitespace_after.value + before
    name_line, name_column = advance(line, column, before)
    return (name_line, name_column, name_line, name_column + len(node.name.value))


_KINDS = {cst.FunctionDef: "FunctionDef", cst.For: "For", cst.With: "With"}


def _kind(node: cst.CSTNode) -> str:
    """The statement's kind as mmlint.facts.anchors names it."""
    if isinstance(node, (cst.FunctionDef, cst.For, cst.With)):
        kind = _KINDS[type(node)]
        return kind if node.asynchronous is None else "async " + kind
    return type(node).__name__


def _first_block(node: cst.BaseCompoundStatement) -> cst.CSTNode:
    return node.cases[0] if isinstance(node, cst.Match) else node.body


def _nested(
    node: cst.BaseCompoundStatement, indent: tuple[str, ...], default_indent: str, elifs: set[int]
) -> list[tuple[cst.CSTNode, tuple[str, ...]]]:
    """The statements directly inside a compound statement, in source order,
    each with the indentation it is generated under; an elif's id goes to ``elifs``."""
    if isinstance(node, cst.Match):
        cases_indent = indent + (default_indent if node.indent is None else node.indent,)
        return [item for case in node.cases for item in _block(case.body, cases_indent, default_indent)]
    nested = _block(node.body, indent, default_indent)
    if isinstance(node, cst.If):
        orelse = node.orelse
        if type(orelse) is cst.If:  # elif: a statement of its own, as CPython has it
            nested.append((orelse, indent))
            elifs.add(id(orelse))
        elif orelse is not None:
            nested += _block(orelse.body, indent, default_indent)
    elif isinstance(node, (cst.Try, cst.TryStar)):
        for handler in node.handlers:
            nested += _block(handler.body, indent, default_indent)
        if node.orelse is not None:
            nested += _block(node.orelse.body, indent, default_indent)
        if node.finalbody is not None:
            nested += _block(node.finalbody.body, indent, default_indent)
    elif isinstance(node, (cst.For, cst.While)) and node.orelse is not None:
        nested += _block(node.orelse.body, indent, default_indent)
    return nested


def _block(
    suite: cst.BaseSuite, indent: tuple[str, ...], default_indent: str
) -> list[tuple[cst.CSTNode, tuple[str, ...]]]:
    if type(suite) is cst.IndentedBlock:
        inner = indent + (default_indent if suite.indent is None else suite.indent,)
        return [(statement, inner) for statement in suite.body]
    return [(statement, indent) for statement in suite.body]  # small statements on the header's line


def _whole_module(
    module: cst.Module, placed: list[tuple[cst.CSTNode, Link]], definitions: list[Definition]
) -> Positions:
    """Every position from one codegen of the whole module."""
    wanted = {id(node) for node, _ in placed}
    wanted.update(id(definition) for definition in definitions)
    wanted.update(id(definition.name) for definition in definitions)
    state = PositionState(default_indent=module.default_indent, default_newline=module.default_newline, wanted=wanted)
    if wanted:
        generate(state, module)
    ranges = state.ranges
    starts = {id(definition): ranges.pop(id(definition))[:2] for definition in definitions}
    return Positions(ranges, starts)


def _from_provider(
    module: cst.Module, placed: list[tuple[cst.CSTNode, Link]], definitions: list[Definition]
) -> Positions:
    """Every position from libcst's PositionProvider: its public API, for a
    libcst whose private codegen API is not the one known."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    provided = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)

    def as_range(node: cst.CSTNode) -> Range:
        code_range = provided[node]
        return (code_range.start.line, code_range.start.column, code_range.end.line, code_range.end.column)

    ranges = {id(node): as_range(node) for node, _ in placed}
    ranges.update((id(definition.name), as_range(definition.name)) for definition in definitions)
    starts = {id(definition): as_range(definition)[:2] for definition in definitions}
    return Positions(ranges, starts)
