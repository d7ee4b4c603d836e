"""MM013 undefined-twin-call."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from mmlint.analysis.twin_presence import MISSING
from mmlint.core.diagnostics import Diagnostic
from mmlint.facts.model import CLS, SELF, SUPER, FileFacts
from mmlint.rules.base import Example, Rule, RuleContext

_RECEIVERS = {SELF: "self", CLS: "cls", SUPER: "super()"}
# How close a name must be to a twin name to be read as a misspelling of it.
_SPELLING_CUTOFF = 0.85

_BASE_WITHOUT_TWIN = """
class BaseMultimodalProcessor:
    def process_and_combine_mm_data(self, base_output, mm_tokens, **kwargs):
        ...
"""

_BASE_WITH_TWIN = """
class BaseMultimodalProcessor:
    def process_and_combine_mm_data(self, base_output, mm_tokens, **kwargs):
        ...

    async def process_and_combine_mm_data_async(self, base_output, mm_tokens, **kwargs):
        ...
"""


class UndefinedTwinCall(Rule):
    """## What it does
    Flags a call on `self`, `cls` or `super()` of a twin name (either member
    of a configured `[[tool.mmlint.twins]]` pair), or of a near-miss spelling
    of one in an `async def`, that no class of the receiver's hierarchy
    defines, while it does define the other member of the pair (or, for a
    misspelling, the name it is close to). The hierarchy is the enclosing
    class's MRO (C3 order) and every scanned subclass the method may run on;
    it must be scanned whole (bases such as `abc.ABC`, `Generic` and
    `Protocol` count as scanned), else nothing is reported. Methods,
    class-body assignments, `self.X = ...` in a method and `__getattr__` all
    count as defining a name.

    ## Why is this bad?
    The call raises `AttributeError` when it runs: typically a half-done
    migration, where call sites were rewritten to the async twin
    (`await self.process_and_combine_mm_data_async(...)`) against a base class
    that does not have it yet, or a misspelt twin name. Nothing fails at
    import time; the server fails on its first multimodal request.

    ## Fix
    Not automatic: add the async twin to the base class (the release that
    introduced it defines it next to the sync body), call the sync twin
    while the base has none, or correct the spelling.

    ## When to suppress
    When the name is supplied in a way the scan cannot see (a base class
    from outside the scanned code that mmlint was nonetheless shown, a
    metaclass or a decorator that adds methods). Write the reason next to
    `# mmlint: ignore[MM013]`.
    """

    code = "MM013"
    name = "undefined-twin-call"
    summary = "A twin name called on a class whose hierarchy does not define it: AttributeError at run time"

    bad_examples = (
        Example(
            """
            from base_processor import BaseMultimodalProcessor

            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    return await self.process_and_combine_mm_data_async(image_data, self.mm_tokens)
            """,
            expect=("MM013",),
            files={"base_processor.py": _BASE_WITHOUT_TWIN},
        ),
        Example(
            """
            from base_processor import BaseMultimodalProcessor

            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    return await self.process_and_combine_mm_data_asnyc(image_data, self.mm_tokens)
            """,
            expect=("MM013",),
            files={"base_processor.py": _BASE_WITH_TWIN},
        ),
    )
    good_examples = (
        Example(
            """
            from base_processor import BaseMultimodalProcessor

            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    return await self.process_and_combine_mm_data_async(image_data, self.mm_tokens)
            """,
            files={"base_processor.py": _BASE_WITH_TWIN},
        ),
        Example(
            """
            from base_processor import BaseMultimodalProcessor

            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    base_output = await self.load_mm_data_async(input_text, image_data=image_data)
                    # No async twin on this release's base: the sync body is what exists.
                    return self.process_and_combine_mm_data(base_output, self.mm_tokens)
            """,
            files={"base_processor.py": _BASE_WITHOUT_TWIN},
        ),
    )

    def check_file(self, facts: FileFacts, ctx: RuleContext) -> Iterable[Diagnostic]:
        presence = ctx.project.twin_presence
        for site in facts.call_sites:
            if site.receiver not in ("self", "cls", "super()"):
                continue
            companion = site.pair.sync if site.is_async_twin else site.pair.async_
            found = presence.of_call(facts.path, site.owner, site.receiver, site.callee, companion)
            if found.state != MISSING or not found.where:
                continue
            written = f"{site.receiver}.{site.callee}"
            if site.is_async_twin:
                advice = (
                    f"this hierarchy has no async twin yet: call `{site.receiver}.{site.pair.sync}(...)`"
                    f" or define `{site.callee}` in its base class"
                )
            else:
                advice = f"define `{site.callee}` in the class or a base, or call a method that exists"
            yield self.diagnostic(
                facts.path,
                site.span,
                "twin not defined on this class hierarchy",
                help=f"`{found.where}` and its bases define no `{site.callee}` (`{written}(...)`): {advice}",
                owner=site.owner,
            )
        twin_names = sorted({name for pair in ctx.settings.twins for name in (pair.sync, pair.async_)})
        for info in facts.async_defs:
            for call in info.calls:
                receiver = _RECEIVERS.get(call.callee.kind)
                name = call.callee.text
                if receiver is None or name in twin_names:
                    continue
                meant = difflib.get_close_matches(name, twin_names, n=1, cutoff=_SPELLING_CUTOFF)
                if not meant:
                    continue
                found = presence.of_call(facts.path, info.owner, receiver, name, meant[0])
                if found.state != MISSING or not found.where:
                    continue
                yield self.diagnostic(
                    facts.path,
                    call.span,
                    "method not defined on this class hierarchy",
                    help=f"`{found.where}` and its bases define no `{name}`: did you mean `{receiver}.{meant[0]}(...)`?",
                    owner=info.owner,
                )
