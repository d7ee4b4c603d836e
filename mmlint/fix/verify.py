"""Independent checks of a fixer's output before anything is written.

The call rewrite is checked twice, in two vocabularies:

- tokens: the new token stream must equal the old one with exactly the planned
  changes applied (each fixed call located in the old tokens as the fixer
  locates it, and its ``AwaitRewrite``'s tokens inserted around it, its sync
  name replaced by the async name) and nothing else;
- trees: undoing those sites in the new ``ast`` (``Await(Call(..async..))`` back
  to ``Call(..sync..)``, at exactly the inserted ``await`` tokens) must give a
  tree equal to the old one.

A comment-only fix (MM009) must leave every token except comments, and the
tree, unchanged."""

from __future__ import annotations

import ast
import tokenize
import warnings
from collections.abc import Iterable, Sequence

from mmlint.core.diagnostics import AWAIT, Edit
from mmlint.core.source import decode_keeping_format, python_tokens
from mmlint.fix.call_rewrite import CallTokens, locate_call, outer_first
from mmlint.fix.model import CallFix, FixedSite
from mmlint.fix.text_edits import locate_edits


class VerificationFailed(Exception):
    """The fixer's output is not the promised edit; the file must not be written."""


_Token = tokenize.TokenInfo


def _tokens(source: bytes, label: str) -> list[_Token]:
    """Python's tokens of ``source``, in the same lines as the facts' positions
    (a lone CR ends a line)."""
    try:
        text, _ = decode_keeping_format(source)
        return python_tokens(text)
    except (tokenize.TokenError, SyntaxError, UnicodeError, LookupError) as error:
        raise VerificationFailed(f"the {label} text does not tokenize: {error}") from None


def _parse(source: bytes, label: str) -> ast.Module:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source)
    except (SyntaxError, ValueError) as error:
        raise VerificationFailed(f"the {label} text does not parse: {error}") from None


def _compiles(source: bytes) -> str | None:
    """None when ``source`` compiles, else the error (catches ``await`` outside
    an async function, which ``ast.parse`` accepts)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<mmlint-fix>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        return str(error)
    return None


def _check_parses(old: bytes, new: bytes) -> tuple[ast.Module, ast.Module]:
    old_tree = _parse(old, "original")
    new_tree = _parse(new, "fixed")
    if _compiles(old) is None and (problem := _compiles(new)) is not None:
        raise VerificationFailed(f"the fixed text does not compile: {problem}")
    return old_tree, new_tree


def _kind(tok: _Token) -> tuple[int, str]:
    return (tok.type, tok.string)


def verify_call_rewrite(old: bytes, new: bytes, fixes: Sequence[CallFix], fixed: Sequence[FixedSite]) -> None:
    """Raise ``VerificationFailed`` unless ``new`` is ``old`` with exactly the
    ``fixed`` sites rewritten as planned in ``fixes``."""
    old_tree, new_tree = _check_parses(old, new)
    by_span = {fix.span: fix for fix in fixes}
    old_tokens = _tokens(old, "original")
    new_tokens = _tokens(new, "fixed")
    indexed = CallTokens(old_tokens)

    # The expected new token stream: each fixed site's rewrite, as the original
    # tokens place it, inserted before/after old token indexes.
    before: dict[int, list[tuple[int, str]]] = {}
    after: dict[int, list[tuple[int, str]]] = {}
    renames: dict[int, tuple[str, str]] = {}
    for site in sorted(fixed, key=lambda site: outer_first(site.span)):
        fix = by_span.get(site.span)
        located = locate_call(indexed, fix) if fix is not None else "not planned"
        if isinstance(located, str) or located.rewrite.parenthesize != site.parenthesized:
            raise VerificationFailed(f"line {site.span.line}: the fixed site does not match the original tokens")
        rewrite = located.rewrite
        before.setdefault(located.start, []).extend(map(_inserted, rewrite.opening_tokens))
        after.setdefault(located.close, [])[:0] = map(_inserted, rewrite.closing_tokens)
        renames[located.name] = (rewrite.sync, rewrite.async_)

    expected: list[tuple[int, str]] = []
    await_slots: list[int] = []  # indexes in `expected` of the inserted `await`s
    for index, tok in enumerate(old_tokens):
        for inserted in before.get(index, ()):
            if inserted[1] == AWAIT:
                await_slots.append(len(expected))
            expected.append(inserted)
        expected.append((tokenize.NAME, renames[index][1]) if index in renames else _kind(tok))
        expected.extend(after.get(index, ()))
    actual = [_kind(tok) for tok in new_tokens]
    if actual != expected:
        raise VerificationFailed(_first_difference(expected, new_tokens))

    # Tree check: undo the sites at the inserted `await` tokens, compare trees.
    await_positions = {_ast_position(new_tokens[slot]) for slot in await_slots}
    undo = _UndoAwait(await_positions, {fix.async_: fix.sync for fix in fixes})
    restored = undo.visit(new_tree)
    if undo.undone != len(fixed):
        raise VerificationFailed(f"found {undo.undone} rewritten calls in the fixed tree, planned {len(fixed)}")
    if ast.dump(restored) != ast.dump(old_tree):
        raise VerificationFailed("the fixed tree differs from the original beyond the planned rewrites")


def _inserted(text: str) -> tuple[int, str]:
    """An inserted token as the tokenizer reports it."""
    return (tokenize.NAME if text.isidentifier() else tokenize.OP, text)


def _ast_position(tok: _Token) -> tuple[int, int]:
    """(lineno, col_offset) as ``ast`` reports it: the column in UTF-8 bytes."""
    line, column = tok.start
    return (line, len(tok.line[:column].encode("utf-8")))


def _first_difference(expected: Sequence[tuple[int, str]], actual: Sequence[_Token]) -> str:
    for index, tok in enumerate(actual):
        if index >= len(expected) or expected[index] != _kind(tok):
            want = expected[index][1] if index < len(expected) else "end of file"
            return f"line {tok.start[0]}: unexpected token {tok.string!r} (expected {want!r})"
    return "the fixed text ends early"


class _UndoAwait(ast.NodeTransformer):
    """Turn ``await x.async_(...)`` at the given positions back into ``x.sync(...)``."""

    def __init__(self, positions: set[tuple[int, int]], sync_for_async: dict[str, str]) -> None:
        self.positions = positions
        self.sync_for_async = sync_for_async
        self.undone = 0

    def visit_Await(self, node: ast.Await) -> ast.AST:
        self.generic_visit(node)
        call = node.value
        if (node.lineno, node.col_offset) not in self.positions or not isinstance(call, ast.Call):
            return node
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in self.sync_for_async:
            func.attr = self.sync_for_async[func.attr]
        elif isinstance(func, ast.Name) and func.id in self.sync_for_async:
            func.id = self.sync_for_async[func.id]
        else:
            return node
        self.undone += 1
        return call


def verify_only_edits_changed(old: str, new: str, edits: Sequence[Edit]) -> None:
    """Raise ``VerificationFailed`` unless ``new`` is ``old`` with exactly
    ``edits`` (spans in ``old``) applied: every character outside the edit
    spans is compared, one by one, to where it must stand in ``new``."""
    located = locate_edits(old, edits)
    old_at = new_at = 0
    for start, end, text in located:
        kept = start - old_at
        if old[old_at:start] != new[new_at : new_at + kept] or new[new_at + kept : new_at + kept + len(text)] != text:
            raise VerificationFailed("the fixed text differs from the original outside the planned edits")
        old_at, new_at = end, new_at + kept + len(text)
    if old[old_at:] != new[new_at:]:
        raise VerificationFailed("the fixed text differs from the original outside the planned edits")


def _without_comments(tokens: Iterable[_Token]) -> list[tuple[int, str]]:
    return [_kind(tok) for tok in tokens if tok.type not in (tokenize.COMMENT, tokenize.NL)]


def verify_comment_edit(old: bytes, new: bytes) -> None:
    """Raise ``VerificationFailed`` unless ``new`` differs from ``old`` only in
    comments (and blank lines left by a removed comment)."""
    old_tree, new_tree = _check_parses(old, new)
    if _without_comments(_tokens(old, "original")) != _without_comments(_tokens(new, "fixed")):
        raise VerificationFailed("a comment fix changed code, not only comments")
    if ast.dump(old_tree) != ast.dump(new_tree):
        raise VerificationFailed("a comment fix changed the syntax tree")
