"""MM009 unused-suppression."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from mmlint.core.diagnostics import Diagnostic, Edit
from mmlint.facts.suppressions import FileSuppressions, Suppression
from mmlint.rules import all_codes, is_active
from mmlint.rules.base import Example, Rule, RuleContext

if TYPE_CHECKING:
    from mmlint.config.settings import Settings


class UnusedSuppression(Rule):
    """## What it does
    Flags an `# mmlint: ignore[...]` comment that suppressed nothing on its
    line: a listed code that was not reported there, or a bare
    `# mmlint: ignore` on a line with no diagnostic. Codes that the run does
    not select are not judged. It also warns, without a fix, about an unknown
    code in a suppression (`MM01`) and about a comment that starts like a
    directive but is not one (`# mmlint: ignore[MM001]because`: a reason goes
    after whitespace, as in `# mmlint: ignore[MM001] -- because`; or
    `# mmlint: ignore MM001`, codes outside their brackets), since neither
    suppresses anything. A `# noqa` is never judged: other tools share it.

    Stale entries of the configuration file are MM012's.

    ## Why is this bad?
    Stale suppressions pile up after code is fixed or moved, and a stale
    `ignore` silently hides the next real finding on that line.

    ## Fix
    `mmlint fix` removes the dead directive, or only the dead codes when some
    of the listed codes are still used. Other text in the same comment stays.
    Unknown codes and malformed directives are left for you to correct.

    ## When to suppress
    Rarely; for a suppression kept on purpose for code that is generated or
    differs between versions, add `MM009` to its list.
    """

    code = "MM009"
    name = "unused-suppression"
    summary = "A `# mmlint: ignore` comment that suppressed nothing"
    fixable = True
    level = "warning"  # housekeeping, not a defect of the code that runs
    fix_kind = "text-edits"

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

    def check_suppressions(
        self, path: str, suppressions: FileSuppressions, used: Mapping[int, set[str]], ctx: RuleContext
    ) -> Iterable[Diagnostic]:
        """MM009 for each suppression (or part of one) that suppressed nothing,
        and a warning without a fix for each malformed directive and unknown
        code. ``used`` maps a line to the codes its suppression really suppressed."""
        return unused_suppression_diagnostics(path, suppressions, used, ctx.settings)


_RULE = UnusedSuppression()


def unused_suppression_diagnostics(
    path: str, suppressions: FileSuppressions, used: Mapping[int, set[str]], settings: Settings
) -> Iterable[Diagnostic]:
    known = set(all_codes())
    for suppression in suppressions.by_line:
        if suppression.kind != "mmlint":
            continue  # a noqa comment is shared with other tools: never judged as unused
        used_here = used.get(suppression.line, set())
        if suppression.codes is None:
            # A bare ignore covers every code: judge it only when every rule ran.
            if not used_here and all(is_active(code, settings) for code in known):
                yield _unused(path, suppression, "`# mmlint: ignore` suppressed nothing on this line", ())
            continue
        unknown = [code for code in suppression.codes if code not in known]
        if unknown:
            # Likely a typo of a real code: left for a person to correct, never removed.
            yield _RULE.diagnostic(
                path,
                suppression.span,
                f"unknown code in suppression: {', '.join(unknown)}",
                help="no rule has this code; correct or remove it by hand",
            )
        dead = [
            code for code in suppression.codes if code in known and is_active(code, settings) and code not in used_here
        ]
        if dead:
            kept = tuple(code for code in suppression.codes if code not in dead)
            yield _unused(path, suppression, f"unused suppression: {', '.join(dead)} not reported on this line", kept)
    for malformed in suppressions.malformed:
        # The reason's first clause is the message, what follows its "; " the help.
        what, _, how = malformed.reason.partition("; ")
        yield _RULE.diagnostic(path, malformed.span, f"not a suppression: {what}", help=how)


def _unused(path: str, suppression: Suppression, message: str, kept: tuple[str, ...]) -> Diagnostic:
    """The fix removes exactly the directive (with the blanks before it), or only
    the dead codes inside its brackets; other text in the comment stays."""
    if kept:
        assert suppression.codes_span is not None  # only a code list keeps codes
        edit = Edit(suppression.codes_span, ",".join(kept))
    elif suppression.removal_span is not None:
        edit = Edit(suppression.removal_span, "")
    else:
        # Alone on a line between a lone CR and an LF: emptying the line would join
        # the two breaks into one CRLF, so the file would lose a line.
        return _RULE.diagnostic(
            path,
            suppression.span,
            message,
            help="remove it by hand: it is alone on a line "
            "between a bare CR and an LF, which emptied would join into one line break",
        )
    return _RULE.diagnostic(path, suppression.span, message, fixable=True, edits=(edit,))
