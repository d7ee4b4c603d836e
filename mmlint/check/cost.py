"""What analysing a file will cost, estimated from its bytes before it is
parsed, and the budgets (mmlint.config.settings.Budgets) such an estimate
is judged by.

libcst's parse dominates the per-file pass, and its cost follows two things
(benchmarks/budget_shapes.py measures them on generated shapes: short
statements, one long call, a data table, long strings, the benchmark's
module, nested lists and calls):

- tokens: up to 2.9 KiB and 50 µs of CPU each, whatever the shape (one call
  of 80,000 arguments on one line costs what 80,000 short statements do:
  the longest line adds nothing beyond its tokens);
- bracket nesting: each bracket costs in proportion to how deep it sits
  (up to 2.3 KiB per level), so depth costs its square: fifty lines each
  nesting 150 lists, 20 KB of text, take 1 GiB.

The measurements are passes in C over the bytes (about 10 ms a megabyte):
tokens are counted as runs of word characters plus operator characters
(the words of strings and comments count too, which only errs high), and
depth is counted per top-level statement (a line that starts at column 0
with a name or `@`), so an unbalanced bracket inside a string costs at most
its own statement. The coefficients are above the highest measured: an
estimate errs high, and the worker enforces the budget on what it misses
(mmlint.check.limits)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate

from mmlint.config.settings import Budgets

# Per token and per level of bracket depth, the highest measured for mmlint's
# whole per-file pass (parse and facts), rounded up.
KIB_PER_TOKEN = 3.2
KIB_PER_DEPTH = 2.5
MICROSECONDS_PER_TOKEN = 60.0
MICROSECONDS_PER_DEPTH = 20.0
_BASE_MIB = 16  # the facts, the decoded text and CPython's statement anchors of a small file

_WORD = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
# Every byte to a marker: `a` for a word character, a space for anything else.
_WORDS_AS_A = bytes(0x61 if byte in _WORD else 0x20 for byte in range(256))
# Operator and bracket characters, each a token of its own (quotes are not: a
# string is one token, counted by the words in it).
_NOT_OPERATOR = bytes(byte for byte in range(256) if chr(byte) not in "()[]{}:;,.=+-*/%<>!&|^~@")
_NOT_BRACKET = bytes(byte for byte in range(256) if chr(byte) not in "()[]{}\0")
_STEP = tuple(1 if chr(byte) in "([{" else -1 if chr(byte) in ")]}" else 0 for byte in range(256))
_TOP_LEVEL = re.compile(rb"\n(?=[A-Za-z_@])")


@dataclass(frozen=True, slots=True)
class Cost:
    """A file's measurements and what they predict."""

    tokens: int
    depth_sum: int  # the depth of every bracket, added up, per top-level statement
    max_depth: int  # the deepest bracket nesting, over the whole file

    @property
    def memory_mib(self) -> int:
        return _BASE_MIB + int((self.tokens * KIB_PER_TOKEN + self.depth_sum * KIB_PER_DEPTH) / 1024)

    @property
    def seconds(self) -> float:
        return (self.tokens * MICROSECONDS_PER_TOKEN + self.depth_sum * MICROSECONDS_PER_DEPTH) / 1e6


def estimate(data: bytes) -> Cost:
    """The measurements of a file's bytes, not decoded: the encodings source
    code uses keep names, operators and brackets in ASCII; one that hides
    them (UTF-7) only makes the estimate err low, where the worker's
    enforcement still holds."""
    marked = data.translate(_WORDS_AS_A)
    words = marked.count(b" a") + (marked[:1] == b"a")
    operators = len(data.translate(None, _NOT_OPERATOR))
    depth_sum = max_depth = carry = 0
    # The brackets alone, a NUL where each top-level statement starts (a NUL
    # in the source is an error anyway, and only resets the depth count).
    for brackets in _TOP_LEVEL.sub(b"\0", data).translate(None, _NOT_BRACKET).split(b"\0"):
        if not brackets:
            continue
        depths = list(accumulate(map(_STEP.__getitem__, brackets)))
        max_depth = max(max_depth, carry + max(depths))
        carry += depths[-1]
        depth_sum += max(0, sum(depths))
    return Cost(words + operators, depth_sum, max_depth)


def over_size_budget(size: int | None, budgets: Budgets) -> str:
    """Why a file over max-file-size is not analysed: it holds ``size``
    bytes, or (None) more than the budget, where reading stopped."""
    shown = f"more than {budgets.max_file_size:,}" if size is None else f"{size:,}"
    return f"{shown} bytes, over the size budget (max-file-size = {budgets.max_file_size:,})"


def over_budget(cost: Cost, budgets: Budgets) -> str | None:
    """Why a file of this cost is not analysed (the budget it is past, and the
    setting that raises it), or None when it is within every budget."""
    if cost.memory_mib > budgets.max_file_memory:
        return (
            f"estimated to need {cost.memory_mib:,} MiB ({cost.tokens:,} tokens), "
            f"over the memory budget (max-file-memory = {budgets.max_file_memory:,} MiB)"
        )
    if cost.seconds > budgets.max_file_seconds:
        return (
            f"estimated to take {cost.seconds:,.0f} s of CPU time ({cost.tokens:,} tokens), "
            f"over the time budget (max-file-seconds = {budgets.max_file_seconds:,})"
        )
    return None


# A file estimated to cost this share of a budget or more is analysed in a
# process of its own even when the run has no pool: a native crash or a
# budget stopping it then costs that file, not the run.
RISKY_SHARE = 4
RISKY_BYTES = 1024 * 1024


def is_risky(data: bytes, budgets: Budgets) -> bool:
    """Within every budget (a file past one is refused at once, wherever it
    is), but large or near enough to a budget to be stopped by it."""
    if len(data) > budgets.max_file_size:
        return False
    cost = estimate(data)
    if over_budget(cost, budgets) is not None:
        return False
    return (
        len(data) > RISKY_BYTES
        or cost.memory_mib * RISKY_SHARE > budgets.max_file_memory
        or cost.seconds * RISKY_SHARE > budgets.max_file_seconds
    )
