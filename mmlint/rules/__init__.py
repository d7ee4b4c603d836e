"""The rule registry, built by discovering the modules of this package: one rule
per module named ``mmNNN_<name>.py``. A duplicate code fails loudly."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from mmlint.rules.base import Example, Rule, RuleContext

__all__ = ["Example", "Rule", "RuleContext", "all_rules", "rule_by_code", "all_codes"]


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
            raise RuntimeError(f"duplicate rule code {rule.code} in {module.__name__} and {type(found[rule.code]).__module__}")
        found[rule.code] = rule
    return tuple(found[code] for code in sorted(found))


def rule_by_code(code: str) -> Rule | None:
    return next((rule for rule in all_rules() if rule.code == code), None)


def all_codes() -> tuple[str, ...]:
    return tuple(rule.code for rule in all_rules())
