"""MM009 unused-suppression."""

from __future__ import annotations

from collections.abc import Iterable

from mmlint.diagnostics import Diagnostic, Edit
from mmlint.rules import all_codes
from mmlint.rules.base import Example, Rule
from mmlint.settings import Settings
from mmlint.suppressions import FileSuppressions, Suppression


class UnusedSuppression(Rule):
    """## What it does
    Flags an `# mmlint: ignore[...]` comment that suppressed nothing on its
    line: a listed code that was not reported there, an unknown code, or a
    bare `# mmlint: ignore` on a line with no diagnostic. Codes that the run
    does not select are not judged.

    ## Why is this bad?
    Stale suppressions pile up after code is fixed or moved, and a stale
    `ignore` silently hides the next real finding on that line.

    ## Fix
    `mmlint fix` removes the dead comment, or only the dead codes when some of
    the listed codes are still used. Other text in the same comment stays.

    ## When to suppress
    Rarely; for a suppression kept on purpose for code that is generated or
    differs between versions, add `MM009` to its list.
    """

    code = "MM009"
    name = "unused-suppression"
    summary = "A `# mmlint: ignore` comment that suppressed nothing"
    fixable = True

    bad_examples = (
        Example(
            """
            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    return await self.process_and_combine_mm_data_async(image_data, self.mm_tokens)  # mmlint: ignore[MM001]
            """,
            expect=("MM009",),
            fixed="""
            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    return await self.process_and_combine_mm_data_async(image_data, self.mm_tokens)
            """,
        ),
    )
    good_examples = (
        Example(
            """
            class BenchProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    base_output = await self.load_mm_data_async(input_text, image_data=image_data)
                    # Measures the sync body alone, on purpose.
                    return self.process_and_combine_mm_data(base_output, self.mm_tokens)  # mmlint: ignore[MM001]
            """
        ),
    )


_RULE = UnusedSuppression()


def unused_suppression_diagnostics(
    path: str, suppressions: FileSuppressions, used: dict[int, set[str]], settings: Settings
) -> Iterable[Diagnostic]:
    """MM009 for each suppression (or part of one) that suppressed nothing.
    ``used`` maps a line to the codes its suppression actually suppressed."""
    known = set(all_codes())
    for suppression in suppressions.by_line:
        used_here = used.get(suppression.line, set())
        if suppression.codes is None:
            if not used_here:
                yield _diagnostic(path, suppression, "`# mmlint: ignore` suppressed nothing on this line", ())
            continue
        dead = [
            code
            for code in suppression.codes
            if code not in known or (settings.is_selected(code) and code not in used_here)
        ]
        if not dead:
            continue
        kept = tuple(code for code in suppression.codes if code not in dead)
        described = ", ".join(f"{code} (unknown code)" if code not in known else code for code in dead)
        yield _diagnostic(path, suppression, f"unused suppression: {described} not reported on this line", kept)


def _diagnostic(path: str, suppression: Suppression, message: str, kept: tuple[str, ...]) -> Diagnostic:
    if kept:
        edit = Edit(suppression.span, f"# mmlint: ignore[{','.join(kept)}]")
    else:
        edit = Edit(suppression.removal_span, "")
    return _RULE.diagnostic(path, suppression.span, message, fixable=True, edits=(edit,))
