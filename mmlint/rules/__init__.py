"""The rule registry, built by discovering the modules of this package: one rule
per module named ``mmNNN_<name>.py``. A duplicate code fails loudly."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import TYPE_CHECKING

from mmlint.core.codes import FIX_KINDS, RULE_NAMES
from mmlint.rules.base import ConfigUsage, Example, Rule, RuleContext

if TYPE_CHECKING:
    from mmlint.config.settings import Settings

__all__ = [
    "ConfigUsage",
    "Example",
    "Rule",
    "RuleContext",
    "active_rules",
    "all_codes",
    "all_rules",
    "is_active",
    "rule_by_code",
]


@cache
def all_rules() -> tuple[Rule, ...]:
    found: dict[str, Rule] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("mm"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        classes = [
            obj
            for obj in vars(module).values()
            if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule and obj.__module__ == module.__name__
        ]
        if len(classes) != 1:
            raise RuntimeError(f"{module.__name__} must define exactly one rule, found {len(classes)}")
        rule = classes[0]()
        if rule.code in found:
            raise RuntimeError(
                f"duplicate rule code {rule.code} in {module.__name__} and {type(found[rule.code]).__module__}"
            )
        if RULE_NAMES.get(rule.code) != rule.name:
            raise RuntimeError(f"{module.__name__}: {rule.code} {rule.name} is not in mmlint.core.codes as such")
        if FIX_KINDS.get(rule.code) != rule.fix_kind:
            raise RuntimeError(
                f"{module.__name__}: {rule.code}'s fix kind {rule.fix_kind} is not in mmlint.core.codes.FIX_KINDS"
            )
        found[rule.code] = rule
    if missing := sorted(set(RULE_NAMES) - set(found)):
        raise RuntimeError(f"no rule module for {', '.join(missing)} (listed in mmlint.core.codes)")
    return tuple(found[code] for code in sorted(found))


def rule_by_code(code: str) -> Rule | None:
    return next((rule for rule in all_rules() if rule.code == code), None)


def all_codes() -> tuple[str, ...]:
    return tuple(rule.code for rule in all_rules())


def is_active(code: str, settings: Settings) -> bool:
    """Whether this run reports ``code``: selected, or a rule that is always on."""
    rule = rule_by_code(code)
    return (rule is not None and rule.always_on) or settings.is_selected(code)


def active_rules(settings: Settings) -> tuple[Rule, ...]:
    return tuple(rule for rule in all_rules() if rule.always_on or settings.is_selected(rule.code))
