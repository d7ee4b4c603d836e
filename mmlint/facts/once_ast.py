"""Once-per-object guards in a sync def, read with the standard library's
``ast`` by the light tier (mmlint.facts.light): the one reading of these
shapes (the collector of the async defs, mmlint.facts.collect, reads none).

A call runs once per object (or process), not once per request, when it sits

- in the body of a lazy-initialisation guard, ``if X is None:`` or
  ``if not X:``, whose body assigns ``X`` and stores on ``self`` / ``cls``
  or in a ``global`` (``if self._x is None: self._x = load()``;
  ``x = getattr(self, "_x", None)`` then ``if x is None: x = self._x = load()``);
- after an early return on a flag the def itself sets
  (``if self._started: return`` ... ``self._started = True``).

Such calls weigh nothing on the loop: the cost is paid once, at start-up or
on first use (CallRef.once).

A call is opt-in (CallRef.opt_in), off the default path, when it sits in
``if FLAG:`` (or ``if FLAG and ...:``) or after ``if not FLAG: ... return``,
where ``FLAG`` is a module-level name the def does not rebind, assigned from
the environment so that it is false when the variable is unset
(``_ENABLED = os.environ.get("X_PROFILE") == "1"``,
``DEBUG = bool(int(os.getenv("X_DEBUG", "0")))``): a profiling or debug
path a deployment turns on by hand."""

from __future__ import annotations

import ast
from collections.abc import Iterator

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` of a name or attribute chain, else None (stdlib ast)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _own_nodes(nodes: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of these statements, not into nested defs, lambdas or classes."""
    stack: list[ast.AST] = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, _NESTED))


def _object_attribute(node: ast.AST) -> str | None:
    """``self.a`` / ``cls.a``, or ``getattr(self, "a", ...)``, as ``self.a``."""
    text = dotted_name(node)
    if text is not None and text.count(".") == 1 and text.split(".")[0] in ("self", "cls"):
        return text
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and len(node.args) >= 2
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id in ("self", "cls")
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ):
        return f"{node.args[0].id}.{node.args[1].value}"
    return None


def _assigned(nodes: list[ast.stmt]) -> set[str]:
    """Texts of the names and attributes these statements assign (own body only)."""
    found: set[str] = set()
    for node in _own_nodes(nodes):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            text = dotted_name(target)
            if text is not None:
                found.add(text)
    return found


def _guarded(test: ast.expr) -> ast.AST | None:
    """X of ``X is None`` / ``not X``."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is):
        right = test.comparators[0]
        if isinstance(right, ast.Constant) and right.value is None:
            return test.left
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    return None


def _is_lazy_init(node: ast.If, globals_: set[str]) -> bool:
    guarded = _guarded(node.test)
    if guarded is None:
        return False
    assigned = _assigned(node.body)
    stores = any(t.split(".")[0] in ("self", "cls") and t.count(".") == 1 for t in assigned) or bool(
        assigned & globals_
    )
    if not stores:
        return False
    text = dotted_name(guarded)
    if text is not None and text in assigned:
        return True
    attribute = _object_attribute(guarded)
    return attribute is not None and attribute in assigned


def _early_return_flag(node: ast.stmt) -> str | None:
    """``self.a`` of ``if self.a: return`` (or ``getattr(self, "a", ...)``)."""
    if not isinstance(node, ast.If) or node.orelse or len(node.body) != 1:
        return None
    only = node.body[0]
    if not isinstance(only, ast.Return) or not (only.value is None or isinstance(only.value, ast.Constant)):
        return None
    return _object_attribute(node.test)


def is_guard(node: ast.If) -> bool:
    """The test of a lazy-initialisation guard, ``X is None`` / ``not X``: the
    light walk keeps such ifs of each def for once_guarded_calls."""
    return _guarded(node.test) is not None


def once_guarded_calls(
    function: ast.FunctionDef | ast.AsyncFunctionDef, calls: list[ast.Call], guards: list[ast.If], globals_: set[str]
) -> set[ast.Call]:
    """The calls of the def's own body (``calls``, in the light walk's frame)
    that run once per object: ``guards``, the def's own ifs that is_guard
    kept; ``globals_``, the names its ``global`` statements declare. A call is
    placed by where it starts, against the statements' ranges."""
    body = function.body
    found: set[ast.Call] = set()
    for index, statement in enumerate(body):
        flag = _early_return_flag(statement)
        if flag is not None and flag in _assigned(body[index + 1 :]):
            after = (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
            found.update(call for call in calls if (call.lineno, call.col_offset) >= after)
            break
    for node in guards:
        if _is_lazy_init(node, globals_):
            first, last = node.body[0], node.body[-1]
            start, end = (first.lineno, first.col_offset), (last.end_lineno or last.lineno, last.end_col_offset or 0)
            found.update(call for call in calls if start <= (call.lineno, call.col_offset) < end)
    return found


_ENV_READERS = frozenset({"os.environ.get", "os.getenv", "environ.get", "getenv"})
_FALSY_DEFAULTS = (None, "", "0", "false", "False", "no", 0, False)


def _env_default(node: ast.AST) -> tuple[bool, object]:
    """(True, default) when ``node`` reads an environment variable
    (``os.environ.get(K[, D])``, ``os.getenv(K[, D])``, maybe `.lower()`ed or
    `.strip()`ped); default None when none is given."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("lower", "strip", "casefold")
        and not node.args
    ):
        node = node.func.value
    if not isinstance(node, ast.Call) or dotted_name(node.func) not in _ENV_READERS or not node.args:
        return False, None
    if len(node.args) < 2:
        return True, None
    default = node.args[1]
    return (True, default.value) if isinstance(default, ast.Constant) else (False, None)


def is_opt_in_flag(value: ast.expr) -> bool:
    """Whether a module-level ``FLAG = value`` is false when its environment
    variable is unset: a comparison with literals the default is not, or the
    variable itself (through ``bool``/``int``) with a falsy default."""
    if isinstance(value, ast.Compare) and len(value.ops) == 1:
        is_env, default = _env_default(value.left)
        right = value.comparators[0]
        if not is_env:
            return False
        if isinstance(value.ops[0], ast.Eq) and isinstance(right, ast.Constant):
            return default != right.value
        if isinstance(value.ops[0], ast.In) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
            literals = [item.value for item in right.elts if isinstance(item, ast.Constant)]
            return len(literals) == len(right.elts) and default not in literals
        return False
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("bool", "int"):
        if len(value.args) != 1:
            return False
        value = value.args[0]
    is_env, default = _env_default(value)
    return is_env and default in _FALSY_DEFAULTS


def _flag_of(test: ast.expr) -> str | None:
    """FLAG of ``if FLAG:`` / ``if FLAG and ...:``."""
    if isinstance(test, ast.Name):
        return test.id
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and isinstance(test.values[0], ast.Name):
        return test.values[0].id
    return None


def is_flag_test(node: ast.If) -> bool:
    """An ``if FLAG:`` the light walk keeps for opt_in_calls (``if not FLAG:`` is is_guard's)."""
    return _flag_of(node.test) is not None


def opt_in_calls(
    function: ast.FunctionDef | ast.AsyncFunctionDef, calls: list[ast.Call], ifs: list[ast.If], flags: set[str]
) -> set[ast.Call]:
    """The calls of the def's own body that run only when an opt-in flag
    (``flags``: the module's names is_opt_in_flag accepted) is on: ``ifs``,
    the def's own ifs the light walk kept."""
    if not flags:
        return set()
    flags = flags - _assigned(function.body)
    found: set[ast.Call] = set()
    for statement in function.body:
        if (
            isinstance(statement, ast.If)
            and not statement.orelse
            and isinstance(statement.body[-1], ast.Return)
            and isinstance(statement.test, ast.UnaryOp)
            and isinstance(statement.test.op, ast.Not)
            and isinstance(statement.test.operand, ast.Name)
            and statement.test.operand.id in flags
        ):
            after = (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
            found.update(call for call in calls if (call.lineno, call.col_offset) >= after)
            break
    for node in ifs:
        if _flag_of(node.test) in flags:
            first, last = node.body[0], node.body[-1]
            start, end = (first.lineno, first.col_offset), (last.end_lineno or last.lineno, last.end_col_offset or 0)
            found.update(call for call in calls if start <= (call.lineno, call.col_offset) < end)
    return found
