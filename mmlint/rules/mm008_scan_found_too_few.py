"""MM008 scan-found-too-few."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.rules.base import Example, Rule, RuleContext


class ScanFoundTooFew(Rule):
    """## What it does
    Reports, once and against the configuration file, a scan that found fewer
    twin call sites (calls of either twin, the base-class delegation included)
    than `min-call-sites`. It runs only when the scan covers the configured
    `paths`, i.e. when no PATH is given on the command line, so a pre-commit
    run over a few changed files never trips it.

    ## Why is this bad?
    A linter that finds nothing looks exactly like a codebase with nothing to
    find. When the twin is renamed, the processors move to another folder or
    `paths` is mistyped, every other rule silently passes. This rule proves the
    scan is not vacuous: it saw at least as many call sites as you know exist.

    ## Fix
    Not automatic. Check that `paths` points at the processors and that
    `twins` names the current methods; when call sites were really removed,
    lower `min-call-sites`.

    ## When to suppress
    Do not suppress it; set `min-call-sites` to the number you expect, or
    remove the key to switch the guard off.
    """

    code = "MM008"
    name = "scan-found-too-few"
    summary = "The scan found fewer twin call sites than `min-call-sites`: it may be vacuous"

    bad_examples = (
        Example(
            """
            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    return await self.process_and_combine_mm_data_async(image_data, self.mm_tokens)
            """,
            expect=("MM008",),
            config={"min-call-sites": 2},
        ),
    )
    good_examples = (
        Example(
            """
            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    return await self.process_and_combine_mm_data_async(image_data, self.mm_tokens)
            """,
            config={"min-call-sites": 1},
        ),
    )

    def check_project(self, ctx: RuleContext) -> Iterable[Diagnostic]:
        settings, project = ctx.settings, ctx.project
        expected = settings.min_call_sites
        if not project.full_scan or expected is None or project.call_site_count >= expected:
            return
        line = settings.key_line("min-call-sites")
        where = project.config_display_path or "the configuration"
        found = project.call_site_count
        yield self.diagnostic(
            where,
            Span(line, 1, line, len("min-call-sites") + 1),
            f"scan found {found} twin call site{'s' if found != 1 else ''}, under {expected}",
            help=f"min-call-sites = {expected} is set in {where}: a renamed twin or a moved folder may have emptied the scan; "
            "check `paths` and `twins`, or lower min-call-sites if sites were really removed",
        )
