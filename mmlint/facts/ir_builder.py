"""Builds one async def's IR (mmlint.facts.ir) and its per-def facts (awaits,
direct calls, timeouts) from what the collector's single walk recorded.

Only subtrees that hold a suspension point are descended into: the walk
recorded, for every `await` and `async` comprehension, its chain of
ancestors, and the nodes on those chains are the only ones the builder opens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import libcst as cst

from mmlint.facts.ir import (
    EMPTY,
    AsyncLoopOrContext,
    AwaitPoint,
    Branch,
    Exit,
    Jump,
    Loop,
    Node,
    Seq,
    Try,
)
from mmlint.facts.model import AwaitFact, CallFact, TimeoutFact
from mmlint.core.diagnostics import Span
from mmlint.facts.model import CalleeRef, ScopeKind
from mmlint.facts.syntax import Link, call_place_flags, callee_name, dotted_text, short_text

TIMEOUT_CONTEXTS = frozenset({"asyncio.timeout", "asyncio.timeout_at", "async_timeout.timeout"})
FUTURE_FACTORIES = frozenset({"concurrent.futures.Future", "asyncio.run_coroutine_threadsafe"})


@dataclass(eq=False)
class Frame:
    """What one function, lambda or class body holds directly (nested bodies
    have frames of their own)."""

    node: cst.CSTNode
    awaits: list[cst.Await] = field(default_factory=list)
    async_comps: list[cst.CompFor] = field(default_factory=list)
    calls: list[cst.Call] = field(default_factory=list)
    assigns: list[cst.Assign] = field(default_factory=list)
    returns: list[cst.Return] = field(default_factory=list)
    is_generator: bool = False


class WalkRecords(Protocol):
    """What the collector's walk (mmlint.facts.collect.FileWalk) recorded, as the builder reads it."""

    links: dict[int, Link]
    call_places: dict[int, tuple[tuple[ScopeKind, ...], Link]]
    discarded: set[int]
    iterated_starts: frozenset[tuple[int, int]]  # mmlint.facts.light.LightFields'
    input_bounds: Mapping[Span, str]  # mmlint.facts.light.LightFields'
    short_arguments: Mapping[Span, str]  # mmlint.facts.light.LightFields'
    calls_in_loops: frozenset[Span]  # mmlint.facts.light.LightFields'

    def span(self, node: cst.CSTNode) -> Span: ...

    def resolve_dotted(self, text: str, imports_seen: int | None = None) -> str: ...

    def dotted_callee(self, call: cst.Call, imports_seen: int | None = None) -> str: ...

    def callee_ref(self, func: cst.BaseExpression) -> CalleeRef: ...


class BodyBuilder:
    def __init__(self, walk: WalkRecords, func: cst.FunctionDef, frame: Frame, imports_seen: int) -> None:
        self.walk = walk
        self.func = func
        self.frame = frame
        self.imports_seen = imports_seen
        self.awaits: list[AwaitFact] = []
        self.calls: list[CallFact] = []
        self.timeouts: list[TimeoutFact] = []
        # Every node on the path from a suspension point up to the function.
        self.marked: set[int] = set()
        for point in (*frame.awaits, *frame.async_comps):
            link: Link | None = walk.links[id(point)]
            while link is not None:
                node = link[0]
                if node is func or id(node) in self.marked:
                    break
                self.marked.add(id(node))
                link = link[1]
        self.future_names = {
            t.target.value
            for a in frame.assigns
            if isinstance(a.value, cst.Call) and self._makes_future(a.value)
            for t in a.targets
            if isinstance(t.target, cst.Name)
        }

    def build(self) -> Node:
        body = self.block(self.func.body)
        for call in self.frame.calls:  # direct calls (MM005) and wait_for timeouts (MM007)
            self._call(call)
        return body

    # -- statements

    def block(self, suite: cst.BaseSuite | None) -> Node:
        if suite is None:
            return EMPTY
        if isinstance(suite, cst.IndentedBlock):
            return Seq(tuple(self.statement(stmt) for stmt in suite.body))
        assert isinstance(suite, cst.SimpleStatementSuite)
        return Seq(tuple(self.small(stmt) for stmt in suite.body))

    def statement(self, stmt: cst.CSTNode) -> Node:
        if isinstance(stmt, cst.SimpleStatementLine):
            return Seq(tuple(self.small(item) for item in stmt.body))
        if isinstance(stmt, cst.FunctionDef):
            # Its body is not this function's; what runs at definition time
            # (decorators, defaults, annotations) is.
            parts: list[Node] = [self.expr(d.decorator) for d in stmt.decorators]
            parts.append(self.expr(stmt.params))
            parts.append(self.expr(stmt.returns))
            return Seq(tuple(parts))
        if isinstance(stmt, cst.ClassDef):
            parts = [self.expr(d.decorator) for d in stmt.decorators]
            parts.extend(self.expr(arg) for arg in (*stmt.bases, *stmt.keywords))
            return Seq(tuple(parts))
        if isinstance(stmt, cst.If):
            clause = stmt.orelse
            if isinstance(clause, cst.If):
                other = self.statement(clause)
            elif isinstance(clause, cst.Else):
                other = self.block(clause.body)
            else:
                other = EMPTY
            return Seq((self.expr(stmt.test), Branch((self.block(stmt.body), other))))
        if isinstance(stmt, cst.For):
            head = [self.expr(stmt.iter)]
            if stmt.asynchronous is not None:
                head.append(AsyncLoopOrContext("async for"))
            body = self.block(stmt.body)
            orelse = self.block(stmt.orelse.body) if stmt.orelse else EMPTY
            return Seq((*head, Loop(body, orelse, infinite=False)))
        if isinstance(stmt, cst.While):
            infinite = isinstance(stmt.test, cst.Name) and stmt.test.value == "True"
            test = self.expr(stmt.test)
            body = self.block(stmt.body)
            orelse = self.block(stmt.orelse.body) if stmt.orelse else EMPTY
            return Seq((test, Loop(Seq((body, test)), orelse, infinite=infinite)))
        if isinstance(stmt, cst.With):
            parts = []
            for item in stmt.items:
                parts.append(self.expr(item.item))
                if stmt.asynchronous is not None:
                    parts.append(AsyncLoopOrContext("async with"))
            body = self.block(stmt.body)
            if stmt.asynchronous is not None:
                self._timeout_context(stmt, body)
            return Seq((*parts, body))
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            body = self.block(stmt.body)
            handlers = tuple(Seq((self.expr(h.type), self.block(h.body))) for h in stmt.handlers)
            orelse = self.block(stmt.orelse.body) if stmt.orelse else EMPTY
            finalbody = self.block(stmt.finalbody.body) if stmt.finalbody else EMPTY
            return Try(body, handlers, orelse, finalbody)
        if isinstance(stmt, cst.Match):
            subject = self.expr(stmt.subject)
            arms: list[Node] = []
            irrefutable = False
            for case in stmt.cases:
                arms.append(Seq((self.expr(case.guard), self.block(case.body))))
                if case.guard is None and isinstance(case.pattern, cst.MatchAs) and case.pattern.pattern is None:
                    irrefutable = True
            if not irrefutable:
                arms.append(EMPTY)
            return Seq((subject, Branch(tuple(arms))))
        return EMPTY

    def small(self, item: cst.CSTNode) -> Node:
        if isinstance(item, cst.Return):
            return Seq((self.expr(item.value), Exit("return")))
        if isinstance(item, cst.Raise):
            return Seq((self.expr(item.exc), self.expr(item.cause), Exit("raise")))
        if isinstance(item, (cst.Break, cst.Continue)):
            return Jump("break" if isinstance(item, cst.Break) else "continue")
        return self.expr(item)

    # -- expressions

    def expr(self, node: cst.CSTNode | None) -> Node:
        """The suspension points of an expression (or simple statement), in
        source order; those under a conditional operand become optional."""
        if node is None or id(node) not in self.marked:
            return EMPTY
        found: list[Node] = []
        self._collect(node, node, found)
        return Seq(tuple(found))

    def _collect(self, node: cst.CSTNode, root: cst.CSTNode, found: list[Node]) -> None:
        point: Node | None = None
        if isinstance(node, cst.Await):
            point = self._await(node)
        elif isinstance(node, cst.CompFor) and node.asynchronous is not None:
            point = AsyncLoopOrContext("async for")
        for child in node.children:
            if id(child) in self.marked:
                self._collect(child, root, found)
        if point is not None:  # the awaited expression is evaluated first
            found.append(Branch((point, EMPTY)) if self._conditional(node, root) else point)

    def _conditional(self, item: cst.CSTNode, stop: cst.CSTNode) -> bool:
        """Whether ``item`` runs only on some evaluations of ``stop``: the right
        operand of and/or, a branch of ``x if c else y``, or a comprehension
        element past the first iterable."""
        child = item
        link = self.walk.links[id(item)][1]
        while child is not stop and link is not None:
            parent = link[0]
            if isinstance(parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                # The element runs once per item, zero or more times; the first
                # `for` clause's iterable (and its first `async for` step) runs once.
                if child is not parent.for_in:
                    return True
            elif isinstance(parent, cst.CompFor):
                if child is not parent.iter:
                    return True  # the target, the conditions, an inner `for`
            elif isinstance(parent, cst.BooleanOperation) and child is parent.right:
                return True
            elif isinstance(parent, cst.IfExp) and child is not parent.test:
                return True
            child = parent
            link = link[1]
        return False

    def _await(self, node: cst.Await) -> AwaitPoint:
        callee = self.walk.callee_ref(node.expression.func) if isinstance(node.expression, cst.Call) else None
        self.awaits.append(AwaitFact(self.walk.span(node), callee, short_text(node.expression)))
        return AwaitPoint(len(self.awaits) - 1)

    def _call(self, node: cst.Call) -> None:
        dotted = self.walk.dotted_callee(node, self.imports_seen)
        future_result = False
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "result" and not node.args:
            receiver = node.func.value
            if isinstance(receiver, cst.Name) and receiver.value in self.future_names:
                future_result = True
            elif isinstance(receiver, cst.Call) and self._makes_future(receiver):
                future_result = True
        chain, link = self.walk.call_places[id(node)]
        awaited, parens, in_fstring, in_annotation, scheduled = call_place_flags(node, link)
        name = callee_name(node)
        span = self.walk.span(node)
        bound = self.walk.input_bounds.get(span)  # None: not small, or CPython cannot parse the file
        self.calls.append(
            CallFact(
                span,
                dotted,
                future_result,
                self.walk.callee_ref(node.func),
                len(node.args),
                name_span=None if name is None else self.walk.span(name),
                scope_chain=chain,
                awaited=awaited,
                needs_parens=parens,
                callee_parenthesized=bool(node.func.lpar) if hasattr(node.func, "lpar") else False,
                in_fstring=in_fstring,
                in_annotation=in_annotation,
                scheduled=scheduled,
                in_loop=span in self.walk.calls_in_loops,
                discarded=id(node) in self.walk.discarded,
                bounded_input=bound is not None,
                iterated=(span.line, span.column) in self.walk.iterated_starts,
                input_bound=bound or "",
                short_arguments=self.walk.short_arguments.get(span, ""),
            )
        )
        if dotted == "asyncio.wait_for" and node.args:
            wrapped = node.args[0].value
            callee = self.walk.callee_ref(wrapped.func) if isinstance(wrapped, cst.Call) else None
            self.timeouts.append(TimeoutFact("wait_for", self.walk.span(node), callee, EMPTY, short_text(wrapped)))

    def _makes_future(self, call: cst.Call) -> bool:
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "submit":
            return True
        text = dotted_text(call.func)
        return text is not None and self.walk.resolve_dotted(text, self.imports_seen) in FUTURE_FACTORIES

    def _timeout_context(self, stmt: cst.With, body: Node) -> None:
        for item in stmt.items:
            if isinstance(item.item, cst.Call):
                text = dotted_text(item.item.func)
                if text is not None and self.walk.resolve_dotted(text, self.imports_seen) in TIMEOUT_CONTEXTS:
                    self.timeouts.append(
                        TimeoutFact("timeout", self.walk.span(item.item), None, body, short_text(item.item))
                    )
