"""Name scopes, for one question: is a callee's head name a local (a
parameter, a variable, a nested def) or a module-level reference?

The model follows libcst's ScopeProvider, rule for rule: class bodies are
invisible to the scopes nested in them, comprehensions and PEP 695 annotation
scopes are scopes of their own, `global` / `nonlocal` redirect a name's
bindings, and a name found nowhere but in builtins counts as bound (it is no
module-level definition either). A binding anywhere in a scope counts, even
one textually after the use.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field

GLOBAL_SCOPE = "global"
FUNCTION_SCOPE = "function"  # def and lambda
CLASS_SCOPE = "class"
COMPREHENSION_SCOPE = "comprehension"
ANNOTATION_SCOPE = "annotation"  # PEP 695 type parameters and `type X = ...`


@dataclass(eq=False)
class NameScope:
    kind: str
    parent: "NameScope | None"  # None for the module
    bound: set[str] = field(default_factory=set)
    # `global x` / `nonlocal x` in this scope: the scope x's bindings go to.
    declared: dict[str, "NameScope"] = field(default_factory=dict)

    def visible_from(self, user: "NameScope") -> bool:
        """A class body's names are seen only by its own type-parameter scopes."""
        if self.kind != CLASS_SCOPE:
            return True
        return user.kind == ANNOTATION_SCOPE and user.parent is self


def first_visible(start: NameScope, user: NameScope) -> NameScope:
    scope = start
    while not scope.visible_from(user):
        assert scope.parent is not None  # the module scope is always visible
        scope = scope.parent
    return scope


def bind(scope: NameScope, name: str) -> None:
    """Record a binding of ``name`` made in ``scope``."""
    target = scope
    while name in target.declared:
        target = first_visible(target.declared[name], target)
    target.bound.add(name)


BUILTINS = object()  # marker: the name resolves to a builtin


def binding_scope(user: NameScope, name: str) -> "NameScope | object | None":
    """The scope whose bindings a use of ``name`` in ``user`` sees (or
    BUILTINS, or None when the name is bound nowhere)."""
    scope = user
    while True:
        if scope.kind == GLOBAL_SCOPE:
            if name in scope.bound:
                return scope
            return BUILTINS if hasattr(builtins, name) else None
        if name in scope.declared:
            scope = first_visible(scope.declared[name], user)
            continue
        if name in scope.bound:
            return scope
        assert scope.parent is not None
        scope = first_visible(scope.parent, user)


def bound_in_function(name: str, scope: NameScope | None) -> bool:
    """A name bound in a function scope (a local, a parameter), or only a
    builtin, cannot be resolved to a module-level definition."""
    if scope is None or scope.kind == GLOBAL_SCOPE:
        return False
    found = binding_scope(scope, name)
    return found is BUILTINS or (isinstance(found, NameScope) and found.kind != GLOBAL_SCOPE)
