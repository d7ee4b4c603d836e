"""What libcst has to parse of a file: its text with the bodies of most sync
defs replaced by `pass`, every other line where it was.

A file's facts come from two parsers (mmlint.check.per_file). The stdlib
`ast` tier (mmlint.facts.light.light_fields) fills every field but two, the
call sites and the async defs; libcst's collector (mmlint.facts.collect)
fills those two, and reads nothing else of a sync def's body for them
unless the body:

- names a twin (a call site of it),
- holds or awaits a coroutine (``async`` / ``await``: an async def, an async
  comprehension),
- imports (an async def written later resolves names through every import
  before it), or
- rebinds a name of an outer scope (``global`` / ``nonlocal``).

Every other body of a def at module level or directly in a class body
(classes nested in classes too) is therefore, for libcst, a ``pass`` where its
first statement started, then empty lines down to its last line: every
position outside it stays as it was. A line holding only a comment between
statements (not in brackets, not in a string) is emptied too: libcst keeps
it as a comment line before a statement, which no fact reads, and emptied,
an edit of the comment leaves libcst's input as it was (the server then
keeps its tree: mmlint.check.per_file.remember_parses). libcst's parse is
most of a file's cost, and a third to two fifths of a serving framework's analysed lines are such
bodies (31 % of vLLM's, 39 % of sglang's, 47 % of its multimodal processors').
tests/test_lean.py checks that the facts are the same as from the whole file's
parse, over the fixtures and (ecosystem) real packages.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from mmlint.core.identifiers import normalise_identifier
from mmlint.core.source import split_lines
from mmlint.core.twins import TwinPair
from mmlint.facts.anchors import Anchor, anchors_of

_KEYWORDS = ("async", "await", "import", "global", "nonlocal")
# A lean view pays for the light tier's walk of the whole file (about a tenth
# of a libcst parse of it): below this share of blanked lines, it is not worth it.
MIN_BLANKED_SHARE = 0.1


@dataclass(frozen=True)
class LeanView:
    text: str  # what libcst parses
    anchors: list[Anchor]  # mmlint.facts.anchors' of that text, without parsing it again
    blanked_lines: int


def lean_view(text: str, tree: ast.Module, twins: tuple[TwinPair, ...]) -> LeanView | None:
    """The lean view of ``text`` (``tree``: CPython's parse of it), or None when
    too little of it can be blanked to be worth a second parser's walk."""
    lines = split_lines(text, keepends=True)  # Python's physical lines, each with its ending
    words = _words(twins)
    first_statements: dict[int, ast.stmt] = {}  # id(def) -> its first statement, for the anchors
    replaced: list[tuple[int, int, str]] = []  # (first line, last line, indentation), 1-based
    for node in _defs_at_top(tree.body):
        first = node.body[0]
        end = node.end_lineno
        if end is None or not _starts_own_line(lines, first) or end - first.lineno < 1:
            continue
        body = "".join(lines[first.lineno - 1 : end])
        # Python reads identifiers NFKC-normalised (so do the facts, mmlint.facts.nfkc):
        # a twin's name spelt with compatibility characters is still its name.
        if words.search(normalise_identifier(body)):
            continue
        first_statements[id(node)] = first
        replaced.append((first.lineno, end, lines[first.lineno - 1][: first.col_offset]))
    blanked = sum(end - start + 1 for start, end, _ in replaced)
    if not lines or blanked < MIN_BLANKED_SHARE * len(lines):
        return None
    for start, end, indentation in replaced:
        lines[start - 1] = indentation + "pass" + _ending(lines[start - 1])
        for index in range(start, end):
            _empty(lines, index)
    for number in _comment_lines(lines, tree):
        _empty(lines, number - 1)
    return LeanView("".join(lines), anchors_of(tree, first_statements), blanked)


def _empty(lines: list[str], index: int) -> None:
    """The line at ``index`` emptied, its line break kept."""
    ending = _ending(lines[index])
    # After a lone CR, an emptied LF line would make one CRLF of the
    # two, and every later line would move up: a blank keeps them apart.
    lines[index] = (" " if ending == "\n" and index and lines[index - 1].endswith("\r") else "") + ending


def _comment_lines(lines: list[str], tree: ast.Module) -> list[int]:
    """The lines (1-based) that hold only a comment between statements: in no
    simple statement and in no compound statement's header (from its first
    decorator to its first body statement), so in no brackets and no string.
    libcst keeps such a comment as a line of its own before a statement,
    which no fact reads: emptied, an edit of a comment leaves libcst's input
    as it was (mmlint.check.per_file.remember_parses). The first two lines,
    where an encoding cookie may be, stay."""
    covered = bytearray(len(lines) + 2)
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        body = getattr(node, "body", None)
        if not (isinstance(body, list) and body and isinstance(body[0], ast.stmt)):
            first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        else:  # a compound statement, an except clause or a match case: its header
            starts = [getattr(node, "lineno", None), getattr(getattr(node, "pattern", None), "lineno", None)]
            starts += [decorator.lineno for decorator in getattr(node, "decorator_list", ())]
            known = [start for start in starts if start is not None]
            first, last = (min(known) if known else None), body[0].lineno - 1
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                stack.extend(getattr(node, field, ()))
        if first is None or last is None:  # a node without a position: nothing is known to be outside it
            return []
        for number in range(first, last + 1):
            covered[number] = 1
    return [
        number
        for number in range(3, len(lines) + 1)
        if not covered[number] and lines[number - 1].lstrip(" \t").startswith("#")
    ]


def _defs_at_top(body: Iterable[ast.stmt]) -> Iterable[ast.FunctionDef]:
    """The sync defs directly in ``body`` or in the body of a class there, at any depth of classes."""
    for statement in body:
        if type(statement) is ast.FunctionDef:
            yield statement
        elif type(statement) is ast.ClassDef:
            yield from _defs_at_top(statement.body)


def _starts_own_line(lines: list[str], first: ast.stmt) -> bool:
    """The body is an indented block: its first statement is the first thing
    on its physical line, and that line continues no other (a backslash)."""
    index = first.lineno - 1
    if index < 1 or index >= len(lines):
        return False
    line = lines[index]
    # Blanks are one byte each, so the UTF-8 column counts them as characters.
    if line[: first.col_offset].strip(" \t") or len(line) <= first.col_offset or line[first.col_offset] in " \t\r\n":
        return False
    return not lines[index - 1].rstrip("\r\n").endswith("\\")


def _ending(line: str) -> str:
    """The line break that ends a physical line ("" for a last line without one)."""
    return line[len(line.rstrip("\r\n")) :]


@functools.lru_cache(maxsize=8)
def _words(twins: tuple[TwinPair, ...]) -> re.Pattern[str]:
    names = {name for pair in twins for name in (pair.sync, pair.async_)}
    alternatives = sorted({*_KEYWORDS, *names}, key=lambda word: (-len(word), word))
    return re.compile(r"\b(?:%s)\b" % "|".join(re.escape(word) for word in alternatives))
