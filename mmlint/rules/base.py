"""What a rule is: its code, name, documentation and examples, and a check
over facts. Rules never see CST nodes."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from mmlint.core.diagnostics import Diagnostic

if TYPE_CHECKING:
    from mmlint.facts.model import FileFacts
    from mmlint.analysis.project import Project
    from mmlint.config.settings import Settings


@dataclass(frozen=True)
class Example:
    """A code sample. A bad example states exactly the codes it must produce (as a
    multiset) and, for fixable rules, the text `mmlint fix` must turn it into.
    ``config`` holds [tool.mmlint] keys the example needs; ``files`` holds other
    modules it imports, by relative path."""

    source: str
    expect: tuple[str, ...] = ()
    fixed: str | None = None
    config: dict = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)

    @property
    def code(self) -> str:
        return textwrap.dedent(self.source).lstrip("\n")

    @property
    def fixed_code(self) -> str | None:
        return None if self.fixed is None else textwrap.dedent(self.fixed).lstrip("\n")


@dataclass(frozen=True)
class RuleContext:
    settings: "Settings"
    project: "Project"


class Rule:
    """Subclass per rule, one per module under mmlint/rules/.

    The class docstring is the rule's documentation, in ruff's sections:
    "## What it does", "## Why is this bad?", "## Fix", "## When to suppress".
    "## Example" and "## Use instead" are rendered from the first bad and good
    examples, so docs and tests come from one text.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    fixable: ClassVar[bool] = False
    bad_examples: ClassVar[tuple[Example, ...]] = ()
    good_examples: ClassVar[tuple[Example, ...]] = ()

    def check_file(self, facts: "FileFacts", ctx: RuleContext) -> Iterable[Diagnostic]:
        """Diagnostics for one file; most rules implement this."""
        return ()

    def check_project(self, ctx: RuleContext) -> Iterable[Diagnostic]:
        """Diagnostics that need the whole scan (MM008); reported once."""
        return ()

    def diagnostic(self, path: str, span, message: str, **extra) -> Diagnostic:
        return Diagnostic(path=path, span=span, code=self.code, name=self.name, message=message, **extra)
