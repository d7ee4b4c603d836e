"""MM999 syntax-error."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.core.diagnostics import Diagnostic
from mmlint.rules.base import Example, Rule, RuleContext


class SyntaxErrorRule(Rule):
    """## What it does
    Reports a file that could hold a finding (its text names a twin, defines
    an `async def` or holds an mmlint comment) but does not parse, or is not valid in its
    declared encoding (UTF-8 when it has no cookie). The parser's line and
    message are given. Other files are still checked; the exit code is 1.
    Files that cannot hold a finding are never parsed, so their syntax errors
    are Python's business, not mmlint's.

    ## Why is this bad?
    A file mmlint cannot parse is a file it cannot vouch for: a sync call site
    in it would go unreported. Reporting it keeps the verdict honest.

    ## Fix
    Fix the syntax error or the encoding; then mmlint checks the file.

    ## When to suppress
    Never: MM999 is reported whatever `select`, `ignore`, exemptions or
    suppressions say.
    """

    code = "MM999"
    name = "syntax-error"
    summary = "A file that could hold a finding could not be parsed"
    always_on = True
    baselinable = False

    bad_examples = (
        Example(
            """
            class BrokenProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs)
                    return await self.process_and_combine_mm_data_async(image_data, self.mm_tokens)
            """,
            expect=("MM999",),
        ),
    )
    good_examples = (
        Example(
            """
            # Never parsed: the prefilter finds no twin name and no coroutine keyword in it.
            def broken(:
                pass
            """
        ),
    )

    def check_project(self, ctx: RuleContext) -> Iterable[Diagnostic]:
        """One diagnostic per target file the per-file pass could not parse (or
        would not, past a budget): recorded by the engine, unfiltered."""
        for path, failure in ctx.parse_failures.items():
            yield self.diagnostic(path, failure.span, f"{failure.kind}: {failure.message}")
