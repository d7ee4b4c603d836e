"""Every use mmlint makes of libcst's private API, checked once at import.

libcst promises none of these, so each is checked against what it is known
to be; where one is not (another libcst release, or MMLINT_LIBCST_PUBLIC_API=1
set to force it), ``PROBLEM`` says why and every caller takes the public road,
slower and still exact:

- ``libcst._nodes.internal.CodegenState``, subclassed by ``PositionState``: a
  codegen state that keeps no text, only where it is and the ranges of the
  nodes it was asked about (mmlint.facts.positions generates the statements
  that hold such nodes through it). libcst's PositionProvider runs the whole
  module's codegen through a state that builds a CodeRange for every node
  and enters a generator-based context manager per node: about ten times
  the cost. Public road: PositionProvider over the whole module.
- ``CSTNode._codegen(state, **kwargs)``, called by ``generate`` on one
  statement (``is_elif`` for an elif), and replaced (``flatten_codegen``) by
  the same three calls without passing an empty ``**kwargs`` on: on Python
  3.12 that pass-through costs a C stack frame per node, and the C stack's
  fixed limit there ends libcst's codegen of a flat 800-term sum, which
  CPython compiles. Public road: libcst's own ``_codegen`` (such a file is
  then MM999 on 3.12).
- ``CSTNode.__post_init__`` being only ``self._validate()``: a pool worker,
  which builds nodes only by parsing, replaces it (``skip_node_validation``).
  Public road: libcst validates every node.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
from dataclasses import dataclass, field

import libcst as cst

try:
    from libcst._nodes.internal import CodegenState
except ImportError:  # PROBLEM says so; nothing generates through PositionState then

    @dataclass
    class CodegenState:  # type: ignore[no-redef]
        default_indent: str
        default_newline: str
        indent_tokens: list[str] = field(default_factory=list)
        tokens: list[str] = field(default_factory=list)


__all__ = [
    "PROBLEM",
    "PositionState",
    "Range",
    "ReachedBlock",
    "advance",
    "flatten_codegen",
    "generate",
    "skip_node_validation",
]

FORCE_PUBLIC_API = "MMLINT_LIBCST_PUBLIC_API"

# (start line, start column, end line, end column): 1-based lines, 0-based
# columns in code points, end exclusive — libcst's CodeRange as a tuple.
Range = tuple[int, int, int, int]

_NEWLINE = re.compile(r"\r\n?|\n")

# What CodegenState is known to be: its fields and methods. Another method
# (say, a second way to write a token) would be one PositionState misses.
_STATE_FIELDS = ("default_indent", "default_newline", "provider", "indent_tokens", "tokens")
_STATE_METHODS = frozenset(
    {
        "add_indent_tokens",
        "add_token",
        "after_codegen",
        "before_codegen",
        "decrease_indent",
        "increase_indent",
        "pop_trailing_newline",
        "record_syntactic_position",
    }
)
_CODEGEN_CALLS = ("before_codegen", "_codegen_impl", "after_codegen")


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

    def __init__(self, state: PositionState, node_id: int, start_id: int | None, end_id: int | None) -> None:
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


@dataclass(slots=True)
class PositionState(CodegenState):
    """Run ``generate(state, node)``: ``ranges`` then holds the range of each
    node in ``wanted`` that was generated, counted from where ``line`` and
    ``column`` stood. ``probe``'s syntactic start is kept in ``probe_start``;
    generating ``stop_at`` raises ReachedBlock instead.

    It runs libcst's own codegen (so the same code decides every range:
    syntactic positions, with start/end hoisted from child nodes where libcst
    says so; else the whitespace-inclusive range) but keeps only a line and a
    column, records a range only for the nodes asked for, and can stop where
    a compound statement's first block begins."""

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

    def record_syntactic_position(  # type: ignore[override]  # libcst's is a generator context manager: any one does
        self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None, end_node: cst.CSTNode | None = None
    ) -> _Record | _NoRecord:
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


def generate(state: PositionState, node: cst.CSTNode, is_elif: bool = False) -> None:
    """libcst's codegen of ``node`` (an ``If`` as an elif with ``is_elif``) through ``state``."""
    if is_elif:
        node._codegen(state, is_elif=True)
    else:
        node._codegen(state)


def flatten_codegen() -> bool:
    """Replace ``CSTNode._codegen`` by the same calls without the ``**kwargs``
    pass-through when it is the implementation known to make only them; True
    when it is replaced. It behaves the same in every way, so it stays."""
    current = cst.CSTNode.__dict__.get("_codegen")
    if current is _flat_codegen:
        return True
    if PROBLEM is not None or current is not LIBCST_CODEGEN:
        return False
    cst.CSTNode._codegen = _flat_codegen  # type: ignore[method-assign]
    return True


# libcst's own, as found at import (before flatten_codegen replaces it).
LIBCST_CODEGEN = cst.CSTNode.__dict__.get("_codegen")


def _flat_codegen(self: cst.CSTNode, state: CodegenState, **kwargs: object) -> None:
    state.before_codegen(self)
    if kwargs:
        self._codegen_impl(state, **kwargs)
    else:
        self._codegen_impl(state)
    state.after_codegen(self)


def skip_node_validation() -> bool:
    """Stop libcst from validating each node as it is built, in this process.

    Every libcst node checks itself on construction (CSTNode.__post_init__
    calls _validate): right for trees built by hand, redundant for the
    parser's output, which is valid by construction (libcst's own PERF note in
    __post_init__ says as much), and about a seventh of a parse. Replaced only
    while __post_init__ is the implementation known to do nothing else; True
    when validation is now off."""
    post_init = cst.CSTNode.__dict__.get("__post_init__")
    if post_init is _trusting_post_init:
        return True
    code = getattr(post_init, "__code__", None)
    if PROBLEM is not None or code is None or code.co_names != ("_validate",):
        return False  # another libcst: leave it validating
    cst.CSTNode.__post_init__ = _trusting_post_init  # type: ignore[method-assign]
    return True


def _trusting_post_init(self: object) -> None:
    return None


# ------------------------------------------------------------ the checks


def _problem() -> str | None:
    """Why libcst's private API is not the one this module knows; None when it is."""
    if os.environ.get(FORCE_PUBLIC_API):
        return f"{FORCE_PUBLIC_API} is set"
    if not (dataclasses.is_dataclass(CodegenState) and CodegenState.__module__ == "libcst._nodes.internal"):
        return "libcst._nodes.internal.CodegenState is gone"
    fields = tuple(f.name for f in dataclasses.fields(CodegenState))
    if fields != _STATE_FIELDS:
        return f"CodegenState's fields are {fields}"
    methods = {name for name, value in vars(CodegenState).items() if callable(value) and not name.startswith("__")}
    if methods != _STATE_METHODS:
        return f"CodegenState's methods changed: {sorted(methods ^ _STATE_METHODS)}"
    record = inspect.signature(CodegenState.record_syntactic_position).parameters
    if [name for name, p in record.items() if p.kind is p.KEYWORD_ONLY] != ["start_node", "end_node"]:
        return "record_syntactic_position takes other arguments"
    codegen = cst.CSTNode.__dict__.get("_codegen")
    if codegen is _flat_codegen:  # already replaced: what it replaced was checked
        codegen = LIBCST_CODEGEN
    if getattr(getattr(codegen, "__code__", None), "co_names", None) != _CODEGEN_CALLS:
        return "CSTNode._codegen does something else"
    if "is_elif" not in inspect.signature(cst.If._codegen_impl).parameters:
        return "If._codegen_impl takes no is_elif"
    try:
        return _ranges_differ()
    except Exception as error:  # a codegen that no longer fits the state: the public road, not a crash
        return f"codegen through PositionState fails: {type(error).__name__}: {error}"


# Every way a range is decided: hoisted starts (decorators) and ends (bodies),
# parentheses, an elif, a line continuation, strings over several lines.
_PROBE = '''@decorate(x)
async def f(a, *, b=(1 +
        2)):
    if a:
        return (await g(a))[0]
    elif b: pass
    else:
        s = """two
lines""" \\
            + f"{a!r}"
class C(Base): x = [i for i in y]
'''


def _ranges_differ() -> str | None:
    """PositionState's ranges for every node of a small module, against PositionProvider's."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    module = cst.parse_module(_PROBE)
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    state = PositionState(module.default_indent, module.default_newline, wanted={id(node) for node in theirs})
    generate(state, module)
    for node, code_range in theirs.items():
        expected = (code_range.start.line, code_range.start.column, code_range.end.line, code_range.end.column)
        if state.ranges.get(id(node)) != expected:
            return f"codegen places a {type(node).__name__} at {state.ranges.get(id(node))}, PositionProvider at {expected}"
    return None


PROBLEM: str | None = _problem()
