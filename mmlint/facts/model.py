"""The facts one parse of one file yields. Plain frozen data: no CST nodes, so
facts can be cached by content hash and computed in worker processes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mmlint.diagnostics import Owner, Span

# Scope kinds, innermost first, as seen from a call site.
MODULE = "module"
CLASS = "class"
DEF = "def"
ASYNC_DEF = "async def"
LAMBDA = "lambda"
COMPREHENSION = "comprehension"
GENEXP = "generator expression"

# Coroutine consumers, by the last name of the callee: a coroutine passed as an
# argument to one of these is scheduled or run, not dropped (MM006).
TASK_WRAPPERS = frozenset(
    {
        "create_task", "ensure_future", "gather", "wait_for", "wait", "shield", "as_completed",
        "run", "run_until_complete", "run_coroutine_threadsafe",
    }
)


@dataclass(frozen=True, slots=True)
class TwinPair:
    sync: str
    async_: str


@dataclass(frozen=True, slots=True)
class CallSite:
    """A call of either twin of a pair (references that are not calls are not sites)."""

    span: Span  # from the first character of the callee expression to the closing paren
    name_span: Span  # the twin's name token
    callee: str  # the twin's name as written
    pair: TwinPair
    is_async_twin: bool
    receiver: str  # source text before ".name" ("self", "super()", "proc") or "" for a bare name
    # The innermost scope that decides whether `await` is allowed there (comprehensions
    # are looked through): one of MODULE, CLASS, DEF, ASYNC_DEF, LAMBDA.
    deciding_scope: str
    # The chain of scopes from the call outward until the deciding one, e.g.
    # (COMPREHENSION, DEF) for a list comprehension inside a sync def.
    scope_chain: tuple[str, ...]
    in_genexp: bool  # a generator expression lies between the call and the deciding scope
    awaited: bool  # the call is the direct operand of `await`
    in_task_wrapper: bool  # an argument of create_task/gather/ensure_future/wait_for/...
    in_fstring: bool  # inside an f-string replacement field (one token before Python 3.12)
    in_annotation: bool  # inside an annotation, where `await` is not allowed
    callee_parenthesized: bool  # `(self.twin)(...)`: the callee is wrapped in parentheses
    needs_parens: bool  # `await` must be parenthesised here ((await x)[0], (await x).a, (await x)())
    delegation: bool  # inside the body of this pair's async twin (the base-class delegation)
    owner: tuple[Owner, ...]

    @property
    def awaitable(self) -> bool:
        return self.deciding_scope == ASYNC_DEF

    @property
    def comprehension_depth(self) -> int:
        """How many comprehensions (of any kind) enclose the call below its deciding scope."""
        return sum(kind in (COMPREHENSION, GENEXP) for kind in self.scope_chain)


@dataclass(frozen=True, slots=True)
class AsyncDefFact:
    """An `async def`, with what the local (single-function) rules need."""

    name: str
    qualname: str  # "Class.method", "function", "outer.<locals>.inner"
    span: Span  # from the `async` keyword to the end of the name
    owner: tuple[Owner, ...]  # enclosing definitions, the function itself last
    suspends_locally: bool  # await / async for / async with in its own body
    is_generator: bool  # a `yield` in its own body
    is_stub: bool  # body is only docstring / pass / ... / raise NotImplementedError
    is_abstract: bool  # @abstractmethod (any spelling)
    is_overload: bool  # @overload / @typing.overload
    in_protocol: bool  # defined in a class deriving from Protocol


@dataclass(frozen=True, slots=True)
class FileFacts:
    path: str  # display path (relative posix when under the cwd, else absolute)
    call_sites: tuple[CallSite, ...] = ()
    async_defs: tuple[AsyncDefFact, ...] = ()
    # Names bound at module level by def, class, import or assignment (for the
    # bare-function fix: the async twin must be reachable by name).
    module_names: frozenset[str] = frozenset()
    newline: str = "\n"  # the file's line ending, as libcst detected it
    # Cross-file suspension data (mmlint.facts.suspension); None when not collected.
    suspension: Any = field(default=None)
