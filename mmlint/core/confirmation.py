"""What `mmlint confirm` measured about a finding, and the key that names the
finding across the static run and the test run.

The key is (code, path, qualified name of the enclosing def, callee), never a
line: an edit that moves the call keeps the key, so `check --confirmed` finds
the measurement again. Both sides compute it here: the pytest plugin (from a
report or mmlint.api) and `check --confirmed` (from a Diagnostic)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Status = Literal["confirmed", "not-reached", "refuted"]
STATUSES: tuple[Status, ...] = ("confirmed", "not-reached", "refuted")

# The first `quoted` name of a message: `time.sleep(...)` → time.sleep.
_QUOTED = re.compile(r"`([^`]+)`")


def finding_key(code: str, path: str, def_qualname: str, callee: str) -> str:
    """``MM005:pkg/a.py:Handler.run:time.sleep`` (a qualname and a callee hold
    no colon, so the key reads back unambiguously from the right)."""
    return f"{code}:{path}:{def_qualname}:{callee}"


def callee_of(chain: tuple[str, ...] | list[str], message: str) -> str:
    """The blocking callee a finding names: the last step of its chain (the
    costliest call), else the first quoted call of its message (MM001's
    `x.process(...)`). Backticks, `(...)` and ` at path:line` are dropped."""
    for text in (chain[-1] if chain else "", message):
        found = _QUOTED.search(text)
        if found:
            name = found.group(1)
            name = name.removeprefix("async def ").removesuffix("(...)")
            return name.replace(":", "")
    return ""


@dataclass(frozen=True, slots=True)
class Confirmation:
    """A finding's measurement from a confirm run (README "Confirm findings
    with your tests"): ``status`` and what the calls on the loop cost."""

    status: Status
    calls: int
    blocked_ms_total: float
    blocked_ms_max: float
    test: str

    def as_dict(self) -> dict[str, object]:
        return {
            "calls": self.calls,
            "blocked_ms_total": self.blocked_ms_total,
            "blocked_ms_max": self.blocked_ms_max,
            "test": self.test,
        }

    def describe(self) -> str:
        """One line for text, GitHub and JUnit output."""
        if self.status == "confirmed":
            where = f" in {self.test}" if self.test else ""
            return (
                f"confirmed: blocked the loop up to {self.blocked_ms_max:.1f} ms "
                f"({self.calls} call{'s' if self.calls != 1 else ''} on the loop, "
                f"{self.blocked_ms_total:.1f} ms in all){where}"
            )
        if self.status == "refuted":
            return (
                f"refuted: {self.calls} call{'s' if self.calls != 1 else ''} on the loop, "
                f"none past the threshold (at most {self.blocked_ms_max:.1f} ms)"
            )
        return "not reached by the tests"
