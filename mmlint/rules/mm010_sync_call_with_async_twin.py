"""MM010 sync-call-with-async-twin."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.analysis.flow import NEVER
from mmlint.analysis.twins import Contract, DeepTwinCall, TwinAnalysis, TwinCall
from mmlint.core.diagnostics import AwaitRewrite, Diagnostic
from mmlint.facts.model import FileFacts
from mmlint.rules.base import Example, Rule, RuleContext

CODE = "MM010"
_NOT_FIXABLE = " (not auto-fixable: "

_TWIN_HELPERS = """
    import asyncio

    class ImageHelper:
        def resize_image(self, image, size):
            return image.resize(size)

        async def resize_image_async(self, image, size):
            return await asyncio.to_thread(self.resize_image, image, size)
"""


class SyncCallWithAsyncTwin(Rule):
    """## What it does
    Flags a call, made directly in an `async def`, of the sync member of a twin
    pair the scanned package defines itself: a `def X` beside an `async def`
    named by the `twin-patterns` (`X_async`, `async_X`, `aX` by default) in the
    same class (or along its MRO) or the same module. The callee must resolve,
    inside the scanned code, through `self.` / `cls.` / `super().`, the class
    hierarchy and imports, to the sync member, and the async member must be
    reachable from the same receiver; a callee that cannot be resolved is
    never reported, so `str.encode` is no twin of a package's `async_encode`.
    The async twin's own body (the delegation to the sync one) is not flagged.
    Pairs listed under `[[tool.mmlint.twins]]` are MM001's, never MM010's.

    Names are followed through a package's re-exports: `from .api import
    stop`, `from . import sub`, `import x as y`, `from .api import drain as
    halt` (the twin of `halt` is then whatever binds `drain_async` there) and
    `from .api import *` as the api module's literal `__all__` limits it.
    Twins defined by assignment through a `twin-wrappers` call count too:
    `X_async = make_async(X, executor=...)` at module level,
    `self.X_async = make_async(self.X)` in a method (the class and its
    subclasses then have the pair), `functools.partial(asyncio.to_thread, X)`.

    A twin bypassed deeper is flagged too: a call, in an `async def`, of a
    scanned sync function that reaches the sync member of a pair through
    other scanned sync calls (any depth; offloading with `to_thread`,
    `run_in_executor` or `submit` stops the chain), where the call of the
    sync member has the async member reachable from its receiver, fitting
    the same arguments and suspending. The chain is shown as a note.

    ## Why is this bad?
    The package offers an awaitable path for this work, usually one that
    offloads it to a thread or a worker pool; calling the sync member instead
    runs the work on the event loop thread, and every other request waits for
    it. Nothing fails; only latency and throughput show it. Linters that know
    fixed lists of blocking calls cannot see the package's own twins.

    ## Fix
    `mmlint fix` rewrites the call to `await <receiver>.<async twin>(...)`
    (parenthesised where a trailer follows) only when the async twin fits: it
    takes the sync twin's parameters with the same names, kinds, defaults and
    annotations (any extra ones with defaults), and the suspension analysis finds that it
    suspends on every path or on some; rewriting to a twin that never suspends
    gains nothing. Otherwise, and for a call in a generator expression, in an
    f-string, with a parenthesised callee, or a bare name whose async twin is
    not bound in the module, the diagnostic's help says why it is left alone. A
    twin bypassed deeper in the chain is never rewritten: the fix is an async
    path through the chain (async twins of the sync functions on it, the last
    one awaiting the async member), as the class may already have for another method.

    ## When to suppress
    When the sync call is cheap or must run on the loop on purpose (a cache
    hit, a call during start-up). Say why next to `# mmlint: ignore[MM010]`,
    or turn discovery off with `auto-twins = false`.
    """

    code = CODE
    name = "sync-call-with-async-twin"
    summary = "Sync call in an `async def` where the package defines an awaitable twin"
    fixable = True
    fix_kind = "call-rewrite"

    bad_examples = (
        Example(
            """
            from .helpers import ImageHelper

            class ImageProcessor(ImageHelper):
                async def process(self, request):
                    image = await request.image()
                    small = self.resize_image(image, (224, 224))
                    return small
            """,
            expect=("MM010",),
            fixed="""
            from .helpers import ImageHelper

            class ImageProcessor(ImageHelper):
                async def process(self, request):
                    image = await request.image()
                    small = await self.resize_image_async(image, (224, 224))
                    return small
            """,
            files={"helpers.py": _TWIN_HELPERS},
        ),
        Example(
            """
            import zlib

            def encode(text):
                return zlib.compress(text.encode())

            async def aencode(text, *, errors="strict"):
                return encode(text)

            async def handle(request):
                text = await request.body()
                return encode(text)
            """,
            # Not fixed: `aencode` never suspends, so awaiting it would gain nothing.
            # (zlib.compress is known CPU work: MM005 in the async twin, which runs it on the loop.)
            expect=("MM010", "MM005"),
        ),
        Example(
            """
            import asyncio

            class Engine:
                def _rpc(self, method):
                    self.socket.send(method)
                    return self.socket.recv()

                async def _rpc_async(self, method):
                    await self.socket.send_async(method)
                    return await self.socket.recv_async()

                def get_load(self):
                    return sum(self._rpc("get_load"))

                async def load_route(self, request):
                    await request.body()
                    return {"load": self.get_load()}
            """,
            # Not fixed: `get_load` has no async twin; the fix is one over `_rpc_async`.
            expect=("MM010",),
        ),
        Example(
            """
            from .utils import make_async

            class InputProcessor:
                def __init__(self, executor):
                    self.process_inputs_async = make_async(self.process_inputs, executor=executor)

                def process_inputs(self, prompt):
                    return {"prompt": prompt}

                async def add_request(self, prompt, queue):
                    request = self.process_inputs(prompt)
                    await queue.put(request)
            """,
            expect=("MM010",),
            fixed="""
            from .utils import make_async

            class InputProcessor:
                def __init__(self, executor):
                    self.process_inputs_async = make_async(self.process_inputs, executor=executor)

                def process_inputs(self, prompt):
                    return {"prompt": prompt}

                async def add_request(self, prompt, queue):
                    request = await self.process_inputs_async(prompt)
                    await queue.put(request)
            """,
        ),
    )
    good_examples = (
        Example(
            """
            from .helpers import ImageHelper

            class ImageProcessor(ImageHelper):
                async def process(self, request):
                    image = await request.image()
                    small = await self.resize_image_async(image, (224, 224))
                    return small
            """,
            files={"helpers.py": _TWIN_HELPERS},
        ),
        Example(
            """
            async def handle(request, async_encode):
                # `str.encode` is not the sync twin of any `async_encode`.
                return await async_encode(request.text.encode())
            """
        ),
    )

    def check_file(self, facts: FileFacts, ctx: RuleContext) -> Iterable[Diagnostic]:
        if not ctx.settings.auto_twins or facts.path not in ctx.project.targets or not facts.async_defs:
            return
        analysis = twin_analysis(ctx)
        for twin_call in analysis.calls_in(facts.path):
            contract = analysis.contract(twin_call.twin)
            reason = unfixable_reason(twin_call, contract, facts)
            rewrite = call_rewrite(twin_call) if reason is None else None
            yield self.diagnostic(
                facts.path,
                twin_call.call.span,
                message(twin_call),
                help=advice(twin_call, analysis, reason),
                fixable=reason is None,
                edits=rewrite.edits() if rewrite is not None else (),
                unfixable_reason=reason,
                rewrite=rewrite,
                owner=analysis.suspension.defs[twin_call.enclosing].owner,
            )
        for deep in analysis.deep_calls_in(facts.path):
            yield self.diagnostic(
                facts.path,
                deep.call.span,
                deep_message(deep),
                help=deep_advice(deep, analysis),
                unfixable_reason=deep_fix(deep),
                owner=analysis.suspension.defs[deep.enclosing].owner,
                chain=deep_chain(deep, analysis),
            )


def twin_analysis(ctx: RuleContext) -> TwinAnalysis:
    """The project's twin analysis for the configured patterns, configured pairs left to MM001."""
    excluded = frozenset(name for pair in ctx.settings.twins for name in (pair.sync, pair.async_))
    return ctx.project.twins(tuple(ctx.settings.twin_patterns), excluded, tuple(ctx.settings.twin_wrappers))


def message(twin_call: TwinCall) -> str:
    return f"sync twin on the event loop; `{twin_call.twin.async_name}` exists"


def advice(twin_call: TwinCall, analysis: TwinAnalysis, reason: str | None) -> str:
    """Where the async twin is, what to write, and why `mmlint fix` leaves it when it does."""
    twin = twin_call.twin
    defined = f"`{twin.async_name}` is defined at {twin.async_[0]}:{analysis.async_line(twin)}"
    if reason is None:
        return f"{defined}; use `await {twin_call.rewritten}(...)`"
    return f"{defined}; consider `await {twin_call.rewritten}(...)`{_NOT_FIXABLE}{reason})"


def deep_message(deep: DeepTwinCall) -> str:
    return f"reaches the sync twin `{deep.bypass.twin.sync_name}` on the loop"


def deep_advice(deep: DeepTwinCall, analysis: TwinAnalysis) -> str:
    """Where the async twin is, and the fix: an async path through the chain."""
    twin = deep.bypass.twin
    return (
        f"`{twin.async_name}` is defined at {twin.async_[0]}:{analysis.async_line(twin)}{_NOT_FIXABLE}{deep_fix(deep)})"
    )


def deep_fix(deep: DeepTwinCall) -> str:
    """What the fix is when the twin is bypassed deeper than the call."""
    return f"needs an async path through the chain to `{deep.bypass.twin.async_name}`"


def deep_chain(deep: DeepTwinCall, analysis: TwinAnalysis) -> tuple[str, ...]:
    """ "`Engine.get_load` at engine.py:20", ..., "`self._rpc`": the chain to the bypass."""
    steps = []
    for key in deep.steps:
        info = analysis.files[key[0]].sync_defs[key[1]]
        steps.append(f"`{info.qualname}` at {key[0]}:{info.line}")
    return (*steps, f"`{deep.bypass.written}`")


def unfixable_reason(twin_call: TwinCall, contract: Contract, facts: FileFacts) -> str | None:
    """Why `mmlint fix` leaves this call alone, or None when it rewrites it: the
    one answer both the `[*]` marker and the fixer use."""
    call = twin_call.call
    async_name = twin_call.twin.async_name
    if call.in_genexp:
        return "inside a generator expression, where `await` would make it an async generator"
    if call.comprehension_depth >= 2:
        return "inside a comprehension nested in another, where `await` needs Python 3.11"
    if call.in_fstring:
        return "inside an f-string"
    if call.in_annotation:
        return "inside an annotation, where `await` is not allowed"
    if call.callee_parenthesized or call.name_span is None:
        return "the callee is in parentheses"
    if not facts.round_trips:
        return "the file's encoding does not round-trip (decoding and encoding back changes its bytes)"
    if facts.newline == "\r":
        return "the file ends its lines with a bare CR (classic Mac OS), which the fixer does not rewrite"
    if not twin_call.reachable:
        return f"`{twin_call.rewritten}` is not defined or imported where the call is written"
    if twin_call.twin.shadowable:
        return f"a base class outside the scan comes first in the MRO and may define `{call.callee.text.rpartition('.')[2]}` or `{async_name}` itself"
    if contract.arguments_problem is not None:
        return f"the twins' arguments differ: {contract.arguments_problem}"
    if contract.verdict == NEVER:
        return f"`{async_name}` never suspends, so awaiting it gains nothing"
    if not contract.suspends:
        return f"`{async_name}` is a stub, abstract, an overload or a generator, so whether it suspends is unknown"
    return None


def call_rewrite(twin_call: TwinCall) -> AwaitRewrite:
    """`x.f(...)` -> `await x.f_async(...)` as the facts place it (only for a call
    ``unfixable_reason`` passed, so its callee has a name token). The sync name is
    the one written at the call; the fixer finds it there again in the tokens."""
    call = twin_call.call
    assert call.name_span is not None
    sync = call.callee.text.rpartition(".")[2]
    return AwaitRewrite(call.span, call.name_span, sync, twin_call.twin.async_name, call.needs_parens)
