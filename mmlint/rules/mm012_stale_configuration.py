"""MM012 stale-configuration."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.rules import all_codes, is_active
from mmlint.rules.base import Example, Rule, RuleContext

if TYPE_CHECKING:
    from mmlint.analysis.project import Project
    from mmlint.config.settings import Settings


class StaleConfiguration(Rule):
    """## What it does
    On a full scan (no PATH given), flags configuration entries that act on
    nothing, against the configuration file at the entry's line: an
    `exempt.paths` glob that matches no scanned file, an `exempt.classes` or
    `exempt.functions` entry that names nothing in the parsed code, and a
    `per-file-ignores` glob that matches no file or whose codes were not
    reported in any file it matches. A partial scan (pre-commit passing a few
    files) does not judge them.

    ## Why is this bad?
    An exemption outlives the code it was written for: after a rename it
    exempts nothing, and the next class to take the old name is silently
    exempt. A glob with a typo looks like a working exclusion.

    ## Fix
    Not automatic: delete the entry from the configuration file, or correct
    the name or glob it meant.

    ## When to suppress
    For an entry kept on purpose for code that only some versions have, add
    `MM012` to `ignore`.
    """

    code = "MM012"
    name = "stale-configuration"
    summary = "A configuration entry (exemption, per-file-ignore) that acts on nothing"
    level = "warning"  # housekeeping, not a defect of the code that runs

    bad_examples = (
        Example(
            """
            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    return await self.process_and_combine_mm_data_async(image_data, self.mm_tokens)
            """,
            expect=("MM012",),
            config={"exempt": {"paths": ["**/old_base_processor.py"]}},
        ),
    )
    good_examples = (
        Example(
            """
            class ClipProcessor(BaseMultimodalProcessor):
                async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
                    return await self.process_and_combine_mm_data_async(image_data, self.mm_tokens)
            """,
            config={"exempt": {"classes": ["ClipProcessor"]}},
        ),
    )

    def check_project(self, ctx: RuleContext) -> Iterable[Diagnostic]:
        project, settings = ctx.project, ctx.settings
        usage = ctx.config_usage
        if not project.full_scan or settings.config_file is None or usage is None:
            return
        where = project.config_display_path or str(settings.config_file)
        for pattern in settings.exempt_paths:
            if pattern not in usage.matched_exempt_paths:
                yield self._stale(
                    settings,
                    where,
                    "exempt.paths",
                    "exempt.paths entry matches no scanned file",
                    repr(pattern),
                    _DELETE_OR_CORRECT_GLOB,
                )
        classes, functions = _defined_names(project)
        for name in sorted(settings.exempt_classes):
            if name not in classes:
                yield self._stale(
                    settings,
                    where,
                    "exempt.classes",
                    "exempt.classes entry names no class",
                    "",
                    f"no parsed file defines a class {name!r}, so it exempts nothing; {_DELETE_OR_CORRECT_NAME}",
                )
        for name in sorted(settings.exempt_functions):
            if name not in functions:
                yield self._stale(
                    settings,
                    where,
                    "exempt.functions",
                    "exempt.functions entry names no function",
                    "",
                    f"no parsed file defines a function {name!r}, so it exempts nothing; {_DELETE_OR_CORRECT_NAME}",
                )
        for pattern, codes in settings.per_file_ignores:
            key = f'per-file-ignores."{pattern}"'
            if pattern not in usage.matched_ignore_patterns:
                yield self._stale(
                    settings,
                    where,
                    key,
                    "per-file-ignores entry matches no scanned file",
                    repr(pattern),
                    _DELETE_OR_CORRECT_GLOB,
                )
            elif pattern not in usage.used_ignore_patterns and _any_selected(settings, codes):
                yield self._stale(
                    settings,
                    where,
                    key,
                    "per-file-ignores entry ignores nothing",
                    repr(pattern),
                    f"{', '.join(codes)} not reported in the files it matches; delete the entry, "
                    "or the codes no longer needed",
                )

    def _stale(self, settings: Settings, where: str, key: str, message: str, value: str, advice: str) -> Diagnostic:
        """``message`` short (the entry's kind and fault); ``value``, the entry, opens
        the help (empty when the advice names it already)."""
        line = settings.key_line(key)
        return self.diagnostic(
            where,
            Span(line, 1, line, 1),
            f"stale configuration: {message}",
            help=f"{value}: {advice}" if value else advice,
        )


_DELETE_OR_CORRECT_GLOB = "delete the entry, or correct the glob it meant"
_DELETE_OR_CORRECT_NAME = "delete the entry, or correct the name it meant"


def _any_selected(settings: Settings, prefixes: tuple[str, ...]) -> bool:
    """Whether this run selected a rule the prefixes cover (else nothing can be judged)."""
    return any(is_active(code, settings) for code in all_codes() if code.startswith(prefixes))


def _defined_names(project: Project) -> tuple[set[str], set[str]]:
    """Class names, and `function` / `Class.method` names, in every parsed file."""
    classes: set[str] = set()
    functions: set[str] = set()
    for facts in project.files.values():
        functions.update(facts.functions)
        for info in facts.classes:
            simple = info.name.rsplit(".", 1)[-1]
            classes.add(simple)
            functions.update(f"{simple}.{method}" for method in info.methods)
    return classes, functions
