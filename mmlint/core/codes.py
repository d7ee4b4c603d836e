"""The rule codes mmlint answers to, and their names: the public interface
(SPEC's table), kept in one place that configuration can validate against
without importing the rules. The rule registry (mmlint.rules) fails loudly
when a rule module and this catalogue disagree."""

from __future__ import annotations

from typing import Literal

# The kind of fix a rule declares (mmlint.rules.base.Rule.fix_kind).
FixKind = Literal["call-rewrite", "text-edits"]

RULE_NAMES: dict[str, str] = {
    "MM001": "sync-twin-call",
    "MM002": "unawaitable-call-site",
    "MM003": "fake-async",
    "MM004": "hollow-await",
    "MM005": "blocking-call-in-async",
    "MM006": "unawaited-async-twin",
    "MM007": "ineffective-timeout",
    "MM008": "scan-found-too-few",
    "MM009": "unused-suppression",
    "MM010": "sync-call-with-async-twin",
    "MM011": "dropped-coroutine",
    "MM012": "stale-configuration",
    "MM013": "undefined-twin-call",
    "MM999": "syntax-error",
}

RULE_CODES: tuple[str, ...] = tuple(sorted(RULE_NAMES))

# The kind of fix each fixable code's rule declares (Rule.fix_kind; the
# registry refuses a rule that disagrees): what a diagnostic built without
# one (by hand, by an older mmlint) carries, so `fix` needs no rule to ask.
FIX_KINDS: dict[str, FixKind] = {
    "MM001": "call-rewrite",
    "MM009": "text-edits",
    "MM010": "call-rewrite",
}
