"""Where each statement starts, from CPython's own parser.

libcst's nodes carry no positions; computing them means generating code from
the top of the file down to the node. With a known line for every statement,
mmlint.facts.positions generates only the statements that hold a node it must
place, each from its own anchor. CPython's parser is written in C, so these
anchors cost a fraction of generating the whole module.

An anchor is (kind, line, column, name) per statement, in the order a
pre-order walk of the statements meets them: kind is libcst's class name for
the statement ("FunctionDef" for both kinds of def, "Del" for ``del``), with
"async " in front for ``async def/for/with``; line is 1-based and column is in
UTF-8 bytes, as the ``ast`` module gives them; name is a def's or class's name,
else None.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Mapping

Anchor = tuple[str, int, int, "str | None"]

_KINDS: dict[type, str] = {
    ast.FunctionDef: "FunctionDef",
    ast.AsyncFunctionDef: "async FunctionDef",
    ast.ClassDef: "ClassDef",
    ast.For: "For",
    ast.AsyncFor: "async For",
    ast.With: "With",
    ast.AsyncWith: "async With",
    ast.Delete: "Del",
}


def statement_anchors(source: str) -> list[Anchor] | None:
    """The anchors of every statement in ``source``; None when CPython cannot
    parse it (syntax newer than this interpreter, nesting too deep), and the
    caller then places nodes without anchors."""
    tree = python_tree_of(source)
    return None if tree is None else anchors_of(tree)


def python_tree_of(source: str) -> ast.Module | None:
    """CPython's tree of ``source``, or None when it cannot parse it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not ours to report
            tree = compile(source, "<mmlint>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    assert isinstance(tree, ast.Module)  # "exec" mode parses a module
    return tree


def anchors_of(tree: ast.Module, blanked: Mapping[int, ast.stmt] | None = None) -> list[Anchor]:
    """The anchors of a tree CPython has already parsed (from the same text).
    ``blanked``: id(def) -> its first statement, for the defs whose body a
    lean view (mmlint.facts.lean) turned into a `pass` there."""
    anchors: list[Anchor] = []
    append = anchors.append
    kinds = _KINDS
    stack: list[ast.stmt] = list(reversed(tree.body))
    push = stack.extend
    while stack:
        stmt = stack.pop()
        stmt_type = type(stmt)
        kind = kinds.get(stmt_type) or stmt_type.__name__
        fields = _NESTED.get(stmt_type)
        if fields is None:  # a simple statement
            append((kind, stmt.lineno, stmt.col_offset, None))
            continue
        append((kind, stmt.lineno, stmt.col_offset, getattr(stmt, "name", None)))
        if blanked and (first := blanked.get(id(stmt))) is not None:
            append(("Pass", first.lineno, first.col_offset, None))
            continue
        # Children last-first, so they pop in source order.
        for field in reversed(fields):
            block = getattr(stmt, field)
            if field in ("handlers", "cases"):
                for clause in reversed(block):
                    push(reversed(clause.body))
            else:
                push(reversed(block))
    return anchors


# The statements that hold statements, and where, in source order.
_NESTED: dict[type, tuple[str, ...]] = {
    ast.FunctionDef: ("body",),
    ast.AsyncFunctionDef: ("body",),
    ast.ClassDef: ("body",),
    ast.If: ("body", "orelse"),
    ast.For: ("body", "orelse"),
    ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.With: ("body",),
    ast.AsyncWith: ("body",),
    ast.Try: ("body", "handlers", "orelse", "finalbody"),
    ast.Match: ("cases",),
}
if hasattr(ast, "TryStar"):  # Python 3.11+
    _NESTED[ast.TryStar] = _NESTED[ast.Try]
