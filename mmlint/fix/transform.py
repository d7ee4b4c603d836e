"""The MM001 rewrite with libcst: ``x.sync(...)`` -> ``await x.async_(...)``.

The module is parsed from bytes and written back with ``Module.bytes``, so the
encoding cookie, a BOM and the line endings survive; libcst keeps every
comment and whitespace token, so only the rewritten nodes change."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from mmlint.diagnostics import Span
from mmlint.fix.model import CallFix, FixedSite, UnfixedSite

MM001 = "MM001"


@dataclass(frozen=True)
class CallRewrite:
    """What the transformer produced for one file."""

    new: bytes
    fixed: tuple[FixedSite, ...]
    unfixed: tuple[UnfixedSite, ...]


def needs_parentheses(call: cst.Call, parent: cst.CSTNode | None) -> bool:
    """Whether ``await <call>`` must be parenthesised where ``call`` sits.

    ``await`` binds tighter than every operator (``await x ** 2`` is
    ``(await x) ** 2``, ``-await x`` and ``2 ** await x`` are fine), but it is
    not a primary: a trailer on it (``.attr``, ``[i]``, ``(...)``) or another
    ``await`` in front of it needs the parentheses."""
    if isinstance(parent, (cst.Attribute, cst.Subscript)):
        return parent.value is call
    if isinstance(parent, cst.Call):
        return parent.func is call
    return isinstance(parent, cst.Await)


def _terminal_name(func: cst.BaseExpression) -> cst.Name | None:
    if isinstance(func, cst.Name):
        return func
    if isinstance(func, cst.Attribute):
        return func.attr
    return None


def _key(span: Span) -> tuple[int, int, int, int]:
    return (span.line, span.column, span.end_line, span.end_column)


class _CallRewriter(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider)

    def __init__(self, planned: dict[tuple[int, int, int, int], CallFix]) -> None:
        super().__init__()
        self.planned = planned
        self.fixed: list[FixedSite] = []
        self.unfixed: list[UnfixedSite] = []
        self.seen: set[tuple[int, int, int, int]] = set()
        # Depth of f-string replacement fields we are inside (see leave_Call).
        self.fstring_depth = 0

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        self.fstring_depth += 1

    def leave_FormattedStringExpression(
        self, original_node: cst.FormattedStringExpression, updated_node: cst.FormattedStringExpression
    ) -> cst.FormattedStringExpression:
        self.fstring_depth -= 1
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        position = self.get_metadata(PositionProvider, original_node)
        # libcst columns are 0-based code points, the node's own parentheses excluded.
        key = (position.start.line, position.start.column + 1, position.end.line, position.end.column + 1)
        fix = self.planned.get(key)
        if fix is None:
            return updated_node
        self.seen.add(key)
        if self.fstring_depth:
            # Before Python 3.12 an f-string is one token, so the token-level
            # verification could not see the edit; leave these to a human.
            self.unfixed.append(UnfixedSite(fix.span, MM001, "inside an f-string"))
            return updated_node
        name = _terminal_name(updated_node.func)
        if name is None or name.value != fix.sync:
            self.unfixed.append(UnfixedSite(fix.span, MM001, f"the callee here is not `{fix.sync}`"))
            return updated_node
        renamed_func = (
            name.with_changes(value=fix.async_)
            if isinstance(updated_node.func, cst.Name)
            else updated_node.func.with_changes(attr=name.with_changes(value=fix.async_))
        )
        parent = self.get_metadata(ParentNodeProvider, original_node, None)
        add_parens = not updated_node.lpar and needs_parentheses(original_node, parent)
        # Parentheses already around the call now enclose the whole `await` expression.
        lpar = [cst.LeftParen()] if add_parens else list(updated_node.lpar)
        rpar = [cst.RightParen()] if add_parens else list(updated_node.rpar)
        self.fixed.append(FixedSite(fix.span, MM001, parenthesized=add_parens))
        return cst.Await(
            expression=updated_node.with_changes(func=renamed_func, lpar=(), rpar=()),
            lpar=lpar,
            rpar=rpar,
        )


def rewrite_calls(source: bytes, fixes: Sequence[CallFix]) -> CallRewrite:
    """Rewrite every planned call in ``source``; raise ``libcst.ParserSyntaxError``
    when it does not parse. A planned span that matches no call is reported as
    unfixed rather than guessed at."""
    planned = {_key(fix.span): fix for fix in fixes}
    module = cst.parse_module(source)
    if not planned:
        return CallRewrite(source, (), ())
    rewriter = _CallRewriter(planned)
    new_module = MetadataWrapper(module, unsafe_skip_copy=True).visit(rewriter)
    missing = tuple(
        UnfixedSite(fix.span, MM001, "no call of the twin starts and ends at this position")
        for key, fix in planned.items()
        if key not in rewriter.seen
    )
    fixed = tuple(sorted(rewriter.fixed, key=lambda site: site.span))
    unfixed = tuple(sorted(rewriter.unfixed + list(missing), key=lambda site: site.span))
    return CallRewrite(new_module.bytes, fixed, unfixed)
