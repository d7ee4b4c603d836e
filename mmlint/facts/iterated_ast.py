"""Calls whose value is iterated where they are written, read with the
standard library's ``ast``: the one reading of these shapes. The light
tier's walk (mmlint.facts.light) gathers each def's roots below as it passes
them, marks its sync defs' calls with the result, and hands the collector of
the async defs (mmlint.facts.collect) where each iterated call of an async
def starts.

Calling a generator function only creates a generator: its body runs where
the generator is iterated. A call's value is iterated in the def's own body
when it is

- the iterable of a ``for`` or of a comprehension (``for x in gen()``);
- the operand of ``yield from``, or returned (the caller iterates it);
- an argument of a builtin that consumes an iterable (``list``, ``tuple``,
  ``set``, ``frozenset``, ``dict``, ``sorted``, ``sum``, ``any``, ``all``,
  ``min``, ``max``, ``next``) or of ``.join`` / ``.extend``;
- an argument of a lazy wrapper (``enumerate``, ``zip``, ``iter``,
  ``reversed``, ``map``, ``filter``) whose own value is iterated;
- assigned to a local name that is iterated so in the same body.

A call of a generator function in none of these places runs none of its
body there (CallRef.iterated / CallFact.iterated; mmlint.analysis.weight)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

# Builtins that iterate their argument to the end (or, `next`, one step).
CONSUMERS = frozenset(
    {"list", "tuple", "set", "frozenset", "dict", "sorted", "sum", "any", "all", "min", "max", "next"}
)
CONSUMING_METHODS = frozenset({"join", "extend"})
# Builtins that wrap an iterable lazily: iterated when they are.
WRAPPERS = frozenset({"enumerate", "zip", "iter", "reversed", "map", "filter"})


@dataclass(eq=False)
class IteratedRoots:
    """What one def's own body iterates, as the walk meets it: the iterables
    of its loops and comprehensions, what it returns or yields from, the
    arguments of consumers; and each value bound to one local name."""

    roots: list[ast.expr] = field(default_factory=list)
    named: list[tuple[str, ast.expr]] = field(default_factory=list)

    def consumed(self, call: ast.Call) -> None:
        """``call`` is a consumer's (CONSUMERS by name, CONSUMING_METHODS as a method)."""
        self.roots.extend(arg.value if isinstance(arg, ast.Starred) else arg for arg in call.args)

    def calls(self) -> set[ast.Call]:
        """The calls of the def's own body whose value is iterated there."""
        roots = list(self.roots)
        names = {root.id for root in roots if isinstance(root, ast.Name)}
        if names:
            roots += [value for name, value in self.named if name in names]
        found: set[ast.Call] = set()  # ast nodes hash by identity
        while roots:
            root = roots.pop()
            if not isinstance(root, ast.Call) or root in found:
                continue
            found.add(root)
            if isinstance(root.func, ast.Name) and root.func.id in WRAPPERS:
                roots.extend(arg for arg in root.args if not isinstance(arg, ast.Starred))
        return found
