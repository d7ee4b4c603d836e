"""Where names' values come from: one walk over the statements (never the
expressions) of CPython's tree of a file, flow-insensitive, as PyCG's
assignment graph is. Each assignment of a module global, an instance
attribute (``self.X = ...`` in a method, a class-level annotation or
field), a local of a def, a loop or ``with`` target, and each return value
(a return annotation, else each ``return`` of a call or a name) becomes a
ValueFact whose source is a path (mmlint.facts.model.ValueFact); anything
else (arithmetic, a lambda, a literal) tells no type and is left out.

One walker for every file, whichever collector fills the other fields (the
light tier, or libcst's collector when a file's lean view is not worth it):
the facts come from CPython's tree in both cases, so they cannot disagree.
A file CPython cannot parse (newer syntax than the running Python) has none:
its receivers stay unknown, as before this layer.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from sys import intern

from mmlint.facts.model import ValueFact, ValueKind
from mmlint.facts.module_paths import relative_anchor

__all__ = ["values_of", "expr_path", "lambda_name", "decorated_def", "key_text", "stored_names"]

# Containers an annotation may name: their last subscript argument is the element.
_CONTAINERS = frozenset(
    {
        "list",
        "List",
        "dict",
        "Dict",
        "set",
        "Set",
        "frozenset",
        "FrozenSet",
        "tuple",
        "Tuple",
        "Sequence",
        "MutableSequence",
        "Mapping",
        "MutableMapping",
        "Iterable",
        "Iterator",
        "Collection",
        "deque",
        "defaultdict",
        "OrderedDict",
    }
)
_OPTIONAL = frozenset({"Optional", "Union", "Annotated", "ClassVar", "Final", "InitVar", "Required", "NotRequired"})
_UNTYPED = frozenset({"Any", "object", "None", "Callable", "type", "Type", "TypeVar"})
_MOST_ELEMENTS = 4  # distinct element paths kept from one display


def lambda_name(node: ast.Lambda) -> str:
    """A lambda's name, as a def's: its place (``<lambda@3:8>``), unique in its scope."""
    return f"<lambda@{node.lineno}:{node.col_offset}>"


def decorated_def(name: str) -> str:
    """The path of a module-level def itself, not what its decorators made of it."""
    return f"<def:{name}>"


def subscript_key(node: ast.AST) -> str:
    """A subscript's key in a path: the repr of a constant string or integer
    (``'a'``, ``0``), "" for any other."""
    return key_text(node.value) if type(node) is ast.Constant else ""


def key_text(value: object) -> str:
    """subscript_key's text of a constant."""
    if type(value) in (str, int):
        text = repr(value)
        return text if len(text) <= 40 and "[" not in text and "]" not in text else ""
    return ""


def expr_path(node: ast.AST) -> str | None:
    """The path of an expression: names, attributes, calls ``()``,
    subscripts ``[]`` (``['a']``, ``[0]`` by a constant key); an awaited
    call is its result; a literal's attribute starts from its builtin type's
    instance (``", ".join`` is ``str().join``). None for anything else."""
    suffix: list[str] = []
    while True:
        kind = type(node)
        if kind is ast.Attribute:
            suffix.append("." + node.attr)  # type: ignore[attr-defined]
            node = node.value  # type: ignore[attr-defined]
        elif kind is ast.Call:
            suffix.append("()")
            node = node.func  # type: ignore[attr-defined]
        elif kind is ast.Subscript:
            suffix.append(f"[{subscript_key(node.slice)}]")  # type: ignore[attr-defined]
            node = node.value  # type: ignore[attr-defined]
        elif kind is ast.Await:
            node = node.value  # type: ignore[attr-defined]
        elif kind is ast.Name:
            return str(node.id) + "".join(reversed(suffix))  # type: ignore[attr-defined]
        elif kind is ast.Constant and suffix:
            literal = _LITERALS.get(type(node.value))  # type: ignore[attr-defined]
            return None if literal is None else literal + "".join(reversed(suffix))
        elif kind is ast.JoinedStr and suffix:
            return "str()" + "".join(reversed(suffix))
        else:
            return None


def _dotted(node: ast.AST) -> str | None:
    path = expr_path(node)
    return path if path is not None and "(" not in path and "[" not in path else None


def annotation_paths(node: ast.AST | None, depth: int = 0) -> list[tuple[str, str]]:
    """(path of an instance, the container it is an element of: "" when
    none) for each type an annotation names: ``Optional[T]`` / ``T | None``
    / ``"T"`` are ``T()``; ``dict[str, T]`` holds ``T()`` elements (``("T()",
    "dict")``), ``dict[str, Any]`` elements of no known type (``("", "dict")``);
    ``Any`` and ``None`` tell nothing."""
    if node is None or depth > 4:
        return []
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            try:
                inner = ast.parse(node.value.strip(), mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return []
            return annotation_paths(inner, depth + 1)
        return []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return annotation_paths(node.left, depth + 1) + annotation_paths(node.right, depth + 1)
    if isinstance(node, ast.Subscript):
        base = _dotted(node.value)
        last = base.rsplit(".", 1)[-1] if base else ""
        arguments = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if last in _OPTIONAL:
            chosen = arguments[:1] if last in ("Annotated",) else arguments
            return [found for argument in chosen for found in annotation_paths(argument, depth + 1)]
        if last in _CONTAINERS and arguments:
            held = [(path, last) for path, within in annotation_paths(arguments[-1], depth + 1) if not within]
            return held or [("", last)]
        return [] if base is None or last in _UNTYPED else [(base + "()", "")]
    base = _dotted(node)
    if base is None or base.rsplit(".", 1)[-1] in _UNTYPED:
        return []
    return [(base + "()", "")]


# The builtin type of a literal (its value's path: ``str()``), and of a display's container.
_LITERALS = {str: "str()", bytes: "bytes()", int: "int()", float: "float()", bool: "bool()", complex: "complex()"}
_DISPLAYS = {
    ast.Dict: "dict",
    ast.List: "list",
    ast.Tuple: "tuple",
    ast.Set: "set",
    ast.DictComp: "dict",
    ast.ListComp: "list",
    ast.SetComp: "set",
    ast.GeneratorExp: "generator",
}


# (path, the container it is an element of: "" when none, the keys it is
# stored under there, outermost first: one per level, "" when not constant).
Paths = list[tuple[str, str, tuple[str, ...]]]


def value_paths(node: ast.AST | None) -> Paths:
    """(path, container, keys) for each value an expression may have: a
    literal is its builtin type's instance (``"str()"``), a lambda its def
    (``<lambda@3:8>``), a display or comprehension a container of its
    elements' values, each under its constant key (``{"a": f}``: ``("f",
    "dict", ("'a'",))``; ``("", "list", ("",))`` for one whose elements have
    no path)."""
    if node is None:
        return []
    kind = type(node)
    if kind in (ast.Call, ast.Name, ast.Attribute, ast.Subscript, ast.Await):
        path = expr_path(node)
        return [] if path is None else [(path, "", ())]
    if kind is ast.Constant:
        literal = _LITERALS.get(type(node.value))  # type: ignore[attr-defined]
        return [] if literal is None else [(literal, "", ())]
    if kind is ast.JoinedStr:
        return [("str()", "", ())]
    if kind is ast.Lambda:
        return [(lambda_name(node), "", ())]  # type: ignore[arg-type]
    if kind is ast.IfExp:
        return value_paths(node.body) + value_paths(node.orelse)  # type: ignore[attr-defined]
    if kind is ast.BoolOp:
        return [found for value in node.values for found in value_paths(value)]  # type: ignore[attr-defined]
    if kind is ast.NamedExpr:
        return value_paths(node.value)  # type: ignore[attr-defined]
    container = _DISPLAYS.get(kind)
    elements: list[tuple[str, ast.AST | None]]
    if kind is ast.Dict:
        elements = [(subscript_key(key) if key else "", value) for key, value in zip(node.keys, node.values)]  # type: ignore[attr-defined]
    elif kind in (ast.List, ast.Tuple):
        starred = [type(e) is ast.Starred for e in node.elts]  # type: ignore[attr-defined]
        elements = [("" if any(starred[: i + 1]) else str(i), e) for i, e in enumerate(node.elts)]  # type: ignore[attr-defined]
    elif kind is ast.Set:
        elements = [("", e) for e in node.elts]  # type: ignore[attr-defined]
    elif kind is ast.DictComp:
        elements = [("", node.value)]  # type: ignore[attr-defined]
    elif kind in (ast.ListComp, ast.SetComp, ast.GeneratorExp):
        elements = [("", node.elt)]  # type: ignore[attr-defined]
    else:
        return []
    keyed = len(elements) <= _MOST_ELEMENTS  # past that, one element is as likely as another
    found: dict[tuple[str, tuple[str, ...]], None] = {}
    for key, element in elements:
        for path, within, inner in value_paths(element):
            if path:
                found[(path, ((key if keyed else ""), *(inner if within else ())))] = None
        if len(found) >= _MOST_ELEMENTS:
            break
    return [(path, container or "", keys) for path, keys in found] or [("", container or "", ("",))]


@dataclass(frozen=True, slots=True)
class _Scope:
    kind: str  # "module", "class", "def"
    qualname: str  # "" at module level
    holder_class: str | None = None  # a method's class (qualified): its first parameter is the instance
    instance: str = ""  # that first parameter's name
    in_def_chain: bool = False  # inside a def (a class there has no ClassInfo)


class _Walk:
    def __init__(self, flow: _ModuleFlow, real_path: Path | None) -> None:
        self.found: list[ValueFact] = []
        self.flow = flow
        self.real_path = real_path  # where a relative import starts from (None: relative ones are left out)
        self.line = 0  # of the statement walked
        self.generators: set[str] = set()  # defs with a `yield` of their own (their values are what they yield)
        self._annotated_return: dict[str, bool] = {}
        self._defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self._locals: dict[str, frozenset[str]] = {}

    def emit(self, kind: ValueKind, holder: str, name: str, paths: Paths, context: str) -> None:
        for path, container, keys in paths:
            if kind == "global" and not context and self.flow.dead(name, keys, self.line):
                continue
            element = bool(container) or bool(keys)
            self.found.append(
                ValueFact(kind, intern(holder), name, intern(path), context, element, container, _keys(keys))
            )

    def body(self, statements: list[ast.stmt], scope: _Scope, globals_: frozenset[str]) -> None:
        # A stack of (statements, scope, global names declared in that def): iterative, as the other walks.
        stack: list[tuple[list[ast.stmt], _Scope, frozenset[str]]] = [(statements, scope, globals_)]
        while stack:
            block, scope, declared = stack.pop()
            for statement in block:
                self.line = statement.lineno
                self.statement(statement, scope, declared, stack)

    def statement(self, node: ast.stmt, scope: _Scope, declared: frozenset[str], stack: list) -> None:  # type: ignore[type-arg]
        kind = type(node)
        self.expressions(node, scope)
        if kind is ast.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                self.assign(target, node.value, None, scope, declared)  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign:
            self.assign(node.target, node.value, node.annotation, scope, declared)  # type: ignore[attr-defined]
        elif kind is ast.Expr:
            updated = _updated(node.value)  # type: ignore[attr-defined]
            if updated is not None:
                self.store(updated[0], (), value_paths(updated[1]), scope, declared)
        elif kind in (ast.For, ast.AsyncFor):
            path = expr_path(node.iter)  # type: ignore[attr-defined]
            if path is not None:
                self.bind(node.target, [(path + "[]", "", ())], scope, declared)  # type: ignore[attr-defined]
                if kind is ast.For and scope.kind != "class":
                    self.emit("implicit", scope.qualname, "iter", [(path, "", ())], scope.qualname)
            stack.append((node.body + node.orelse, scope, declared))  # type: ignore[attr-defined]
        elif kind is ast.Raise:
            path = _dotted(node.exc) if node.exc is not None else None  # type: ignore[attr-defined]
            if path is not None and scope.kind != "class":
                self.emit("implicit", scope.qualname, "raise", [(path, "", ())], scope.qualname)
        elif kind in (ast.With, ast.AsyncWith):
            for item in node.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, value_paths(item.context_expr), scope, declared)
            stack.append((node.body, scope, declared))  # type: ignore[attr-defined]
        elif kind is ast.Return:
            if scope.kind == "def" and not self._annotated_return.get(scope.qualname, False):
                paths = [found for found in value_paths(node.value) if found[0] != "None"]  # type: ignore[attr-defined]
                self.emit("return", scope.qualname, "", paths, scope.qualname)
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            self.function(node, scope, stack)  # type: ignore[arg-type]
        elif kind is ast.ClassDef:
            inner_name = node.name if scope.kind == "module" else f"{scope.qualname}.{node.name}"  # type: ignore[attr-defined]
            if scope.kind == "def" or scope.in_def_chain:
                inner = _Scope("class", inner_name, in_def_chain=True)
            else:
                inner = _Scope("class", inner_name)
            stack.append((node.body, inner, frozenset()))  # type: ignore[attr-defined]
        elif kind in (ast.If, ast.While):
            stack.append((node.body + node.orelse, scope, declared))  # type: ignore[attr-defined]
        elif kind in (ast.Try, getattr(ast, "TryStar", ast.Try)):
            blocks = node.body + node.orelse + node.finalbody  # type: ignore[attr-defined]
            for handler in node.handlers:  # type: ignore[attr-defined]
                blocks = blocks + handler.body
            stack.append((blocks, scope, declared))
        elif kind is getattr(ast, "Match", None):
            stack.append(([s for case in node.cases for s in case.body], scope, declared))  # type: ignore[attr-defined]
        elif kind in (ast.Import, ast.ImportFrom) and scope.kind == "def":
            self.imported(node, scope.qualname)  # type: ignore[arg-type]

    def imported(self, node: ast.Import | ast.ImportFrom, qual: str) -> None:
        """A def's own import: each name it binds in the def, as a module-level
        import's ImportFact would (mmlint.facts.model.ValueKind "import")."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                head = alias.name.split(".")[0]
                local, target = (alias.asname, alias.name) if alias.asname else (head, head)
                self.found.append(ValueFact("import", qual, local, target, qual))
            return
        anchor: tuple[str, ...] = ()
        if node.level:
            found = relative_anchor(self.real_path, node.level) if self.real_path is not None else None
            if found is None:
                return
            anchor = found
        for alias in node.names:
            if alias.name != "*":
                target = f"{node.module}.{alias.name}" if node.module else alias.name
                self.found.append(ValueFact("import", qual, alias.asname or alias.name, target, qual, keys=anchor))

    def expressions(self, node: ast.stmt, scope: _Scope) -> None:
        """What the statement's own expressions (nested statements and
        lambdas' bodies are not its own) tell: each call's arguments whose
        value has a path, each `yield`'s value, each lambda's return value;
        a decorator is given the def or class it decorates."""
        if scope.kind == "class":
            return  # a class body's names are no def's locals nor globals
        context = scope.qualname if scope.kind == "def" else ""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and scope.kind == "module":
            # `@d1 @d2 def f`: d2 is given the def itself (decorated_def), d1 what d2 returns.
            given = decorated_def(node.name) if type(node) is ast.FunctionDef else node.name
            for decorator in reversed(node.decorator_list):
                callee = expr_path(decorator)
                if callee is None:
                    break
                self.found.append(ValueFact("argument", intern(callee), "0", intern(given), context))
                given = f"{callee}()"
            else:
                if type(node) is ast.FunctionDef and node.decorator_list:
                    self.found.append(ValueFact("decorated", "", node.name, intern(given), context))
        stack = _expression_children(node)
        while stack:
            child = stack.pop()
            kind = type(child)
            if kind is ast.Lambda:
                name = lambda_name(child)  # type: ignore[arg-type]
                qual = f"{context}.<locals>.{name}" if context else name
                self.emit("return", qual, "", value_paths(child.body), qual)  # type: ignore[attr-defined]
                continue
            if kind is ast.Yield and context and not self._annotated_return.get(context, False):
                self.generators.add(context)
                paths = value_paths(child.value)  # type: ignore[attr-defined]
                self.emit("return", context, "", [(p, "generator", ("", *keys)) for p, _, keys in paths], context)
            elif kind is ast.Call:
                callee = expr_path(child.func)  # type: ignore[attr-defined]
                if callee is not None:
                    for position, argument in enumerate(child.args):  # type: ignore[attr-defined]
                        if isinstance(argument, ast.Starred):
                            break
                        self._argument(callee, str(position), argument, context)
                    for keyword in child.keywords:  # type: ignore[attr-defined]
                        if keyword.arg is not None:
                            self._argument(callee, keyword.arg, keyword.value, context)
            elif kind is ast.comprehension and context and type(child.target) is ast.Name:  # type: ignore[attr-defined]
                # `[t.strip() for t in parts]`: t, an element of parts, as a local of the def
                # (flow-insensitive, as a loop's target).
                path = expr_path(child.iter)  # type: ignore[attr-defined]
                if path is not None:
                    self.emit("local", context, child.target.id, [(path + "[]", "", ())], context)  # type: ignore[attr-defined]
            elif kind is ast.NamedExpr and context:
                # `if (usage := data.get("usage")):` binds a local of the def.
                self.emit("local", context, child.target.id, value_paths(child.value), context)  # type: ignore[attr-defined]
            stack += _expression_children(child)

    def _argument(self, callee: str, name: str, argument: ast.expr, context: str) -> None:
        kind = type(argument)
        if kind is ast.Lambda:
            self.found.append(ValueFact("argument", intern(callee), name, lambda_name(argument), context))  # type: ignore[arg-type]
        elif kind in (ast.Name, ast.Attribute, ast.Call, ast.Subscript):
            path = expr_path(argument)
            if path is not None:
                self.found.append(ValueFact("argument", intern(callee), name, intern(path), context))

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope, stack: list) -> None:  # type: ignore[type-arg]
        if scope.kind == "def":
            qual = f"{scope.qualname}.<locals>.{node.name}"
        else:
            qual = f"{scope.qualname}.{node.name}" if scope.qualname else node.name
        returns = annotation_paths(node.returns)
        self._annotated_return[qual] = bool(returns) or node.returns is not None
        self.emit("return", qual, "", [(p, c, ("",) if c else ()) for p, c in returns], "")
        self._defs[qual] = node
        holder_class = instance = None
        if scope.kind == "class" and not scope.in_def_chain:
            positional = node.args.posonlyargs + node.args.args
            static = any(_dotted(d) in ("staticmethod", "builtins.staticmethod") for d in node.decorator_list)
            if positional and not static:
                holder_class, instance = scope.qualname, positional[0].arg
        inner = _Scope("def", qual, holder_class, instance or "", True)
        declared = frozenset(
            name
            for statement in _own_statements(node.body)
            if isinstance(statement, ast.Global)
            for name in statement.names
        )
        stack.append((node.body, inner, declared))

    def assign(
        self,
        target: ast.expr,
        value: ast.expr | None,
        annotation: ast.expr | None,
        scope: _Scope,
        declared: frozenset[str],
    ) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and not any(type(v) is ast.Starred for v in value.elts):
                self._unpack(target.elts, value.elts, scope, declared)
            return
        paths: Paths = []
        if annotation is not None:
            paths = [(p, c, ("",) if c else ()) for p, c in annotation_paths(annotation)]
        if not paths:
            paths = value_paths(value)
        if paths:
            self.bind(target, paths, scope, declared)

    def _unpack(self, targets: list[ast.expr], values: list[ast.expr], scope: _Scope, declared: frozenset[str]) -> None:
        """``a, *b, c = x, y, z, w``: each target its value, a starred one a list of the rest."""
        starred = [index for index, target in enumerate(targets) if type(target) is ast.Starred]
        if not starred and len(targets) == len(values):
            for element, element_value in zip(targets, values):
                self.assign(element, element_value, None, scope, declared)
        elif len(starred) == 1 and len(values) >= len(targets) - 1:
            at, after = starred[0], len(targets) - starred[0] - 1
            rest = ast.List(elts=values[at : len(values) - after], ctx=ast.Load())
            for element, element_value in zip(targets, [*values[:at], rest, *values[len(values) - after :]]):
                self.assign(
                    element.value if type(element) is ast.Starred else element, element_value, None, scope, declared
                )

    def bind(self, target: ast.expr, paths: Paths, scope: _Scope, declared: frozenset[str]) -> None:
        if not paths:
            return
        if isinstance(target, ast.Subscript):
            keys: list[str] = []
            while isinstance(target, ast.Subscript):
                keys.append(subscript_key(target.slice))
                target = target.value
            self.store(target, tuple(reversed(keys)), paths, scope, declared)
            return
        if isinstance(target, ast.Name):
            name = target.id
            if scope.kind == "module":
                self.emit("global", "", name, paths, "")
            elif scope.kind == "class":
                if not scope.in_def_chain:
                    self.emit("attribute", scope.qualname, name, paths, "")
            elif name in declared:
                self.emit("global", "", name, paths, scope.qualname)
            else:
                self.emit("local", scope.qualname, name, paths, scope.qualname)
        elif (
            isinstance(target, ast.Attribute)
            and scope.kind == "def"
            and scope.holder_class is not None
            and isinstance(target.value, ast.Name)
            and target.value.id == scope.instance
        ):
            self.emit("attribute", scope.holder_class, target.attr, paths, scope.qualname)

    def store(
        self, target: ast.expr, keys: tuple[str, ...], paths: Paths, scope: _Scope, declared: frozenset[str]
    ) -> None:
        """``d["a"] = f`` (``keys`` ``("'a'",)``), ``d.update({"a": f})``
        (``keys`` ``()``, the display's own): elements of d, under those keys.
        In a def, a store into a global or an instance attribute; one into
        the def's own local or parameter is left out (its annotation and
        what its callers pass tell its values)."""
        paths = [(p, "", (*keys, *(inner if container else ()))) for p, container, inner in paths]
        if isinstance(target, ast.Name) and scope.kind == "def" and target.id not in declared:
            if target.id in self._def_locals(scope.qualname):
                return
            declared = declared | {target.id}
        self.bind(target, paths, scope, declared)

    def _def_locals(self, qual: str) -> frozenset[str]:
        """The names a def binds (its parameters, its assignments' and loops' names)."""
        found = self._locals.get(qual)
        if found is None:
            node = self._defs[qual]
            names = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
            names.update(a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None)
            for statement in _own_statements(node.body):
                if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
                    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                    names.update(name for target in targets for name in stored_names(target))
            found = self._locals[qual] = frozenset(names)
        return found


def _keys(keys: tuple[str, ...]) -> tuple[str, ...]:
    """A fact's keys: none for an element under no constant key (the common case)."""
    return () if keys == ("",) else keys


def stored_names(target: ast.AST) -> list[str]:
    """Names an assignment target binds: through tuples, lists and starred
    elements, not into attributes or subscripts (mmlint.facts.light's too)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in stored_names(element)]
    if isinstance(target, ast.Starred):
        return stored_names(target.value)
    return []


def _updated(node: ast.expr) -> tuple[ast.Name | ast.Attribute, ast.Dict] | None:
    """``d.update({"a": f})``: d, and the display whose entries it stores."""
    if (
        type(node) is ast.Call
        and type(node.func) is ast.Attribute
        and node.func.attr == "update"
        and len(node.args) == 1
        and not node.keywords
        and type(node.args[0]) is ast.Dict
        and type(node.func.value) in (ast.Name, ast.Attribute)
    ):
        return node.func.value, node.args[0]  # type: ignore[return-value]
    return None


@dataclass(frozen=True, slots=True)
class _ModuleFlow:
    """The module body's own statements (outside any def) that rebind a name
    unconditionally, and what each statement reads: enough to tell a global's
    binding that no statement can see."""

    # (name, keys) -> the lines of the statements directly in the body that rebind
    # the name (keys ``()``) or store under those constant keys in it
    # (``d["a"] = f``, ``d.update({"a": f})``).
    rebound: dict[tuple[str, tuple[str, ...]], list[int]]
    # (line, the names its statement reads; None when it calls: it may read any).
    reads: list[tuple[int, frozenset[str] | None]]

    def dead(self, name: str, keys: tuple[str, ...], line: int) -> bool:
        """Whether what the statement at ``line`` stores in ``name`` (under
        ``keys``) is rebound before any statement may read it."""
        for depth in range(len(keys) + 1):
            for later in self.rebound.get((name, keys[:depth]), ()):
                if later > line and not any(
                    line < at <= later and (names is None or name in names) for at, names in self.reads
                ):
                    return True
        return False


def _module_flow(tree: ast.Module) -> _ModuleFlow:
    rebound: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    reads: list[tuple[int, frozenset[str] | None]] = []
    for statement in tree.body:
        kind = type(statement)
        targets: list[ast.expr] = []
        skipped: ast.AST | None = None  # `d.update`'s call: a store, not a read
        if kind is ast.Assign:
            targets = statement.targets  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign and statement.value is not None:  # type: ignore[attr-defined]
            targets = [statement.target]  # type: ignore[attr-defined]
        elif kind is ast.Expr and (updated := _updated(statement.value)) is not None:  # type: ignore[attr-defined]
            skipped = statement.value  # type: ignore[attr-defined]
            if type(updated[0]) is ast.Name:
                for _, _, keys in value_paths(updated[1]):
                    if all(keys):
                        rebound.setdefault((updated[0].id, keys), []).append(statement.lineno)
        for target in targets:
            chain: list[str] = []
            while type(target) is ast.Subscript:
                chain.append(subscript_key(target.slice))
                target = target.value
            if type(target) is ast.Name and all(chain):
                rebound.setdefault((target.id, tuple(reversed(chain))), []).append(statement.lineno)
        reads.append((statement.lineno, _reads(statement, skipped)))
    return _ModuleFlow(rebound, reads)


def _reads(statement: ast.stmt, skipped: ast.AST | None) -> frozenset[str] | None:
    """The names a statement of the module's body reads as it runs (not in
    the bodies of its defs); None when it calls, decorates or defines a class."""
    names: set[str] = set()
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                names.add(node.id)  # type: ignore[attr-defined]
            continue
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            if node.decorator_list:  # type: ignore[attr-defined]
                return None
            continue
        if kind is ast.ClassDef or (kind is ast.Call and node is not skipped):
            return None
        if kind is ast.Lambda:
            continue
        if kind is ast.Subscript and type(node.ctx) is ast.Store:  # type: ignore[attr-defined]
            while type(node) is ast.Subscript:  # `d["a"] = f` stores into d, reads only its keys
                stack.append(node.slice)
                node = node.value
            if type(node) is not ast.Name:
                stack.append(node)
            continue
        if node is skipped:
            stack.extend(node.args)  # type: ignore[attr-defined]
            continue
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(names)


def _own_statements(block: list[ast.stmt]) -> Iterable[ast.stmt]:
    """A def's statements, compound ones' bodies included, nested defs and classes not."""
    stack = list(block)
    while stack:
        statement = stack.pop()
        yield statement
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field_name in ("body", "orelse", "finalbody"):
            stack.extend(getattr(statement, field_name, ()))
        for handler in getattr(statement, "handlers", ()):
            stack.extend(handler.body)
        for case in getattr(statement, "cases", ()):
            stack.extend(case.body)


def values_of(tree: ast.Module, real_path: Path | None = None) -> tuple[ValueFact, ...]:
    """Every ValueFact of a module (CPython's tree of it; ``real_path``: its
    file, which relative imports start from)."""
    walk = _Walk(_module_flow(tree), real_path)
    walk.body(tree.body, _Scope("module", ""), frozenset())
    generators = walk.generators
    return tuple(
        dict.fromkeys(
            fact
            for fact in walk.found
            # A generator's `return` ends it: calling it gives what it yields.
            if not (fact.kind == "return" and fact.holder in generators and fact.container != "generator")
        )
    )


# What _expression_children leaves out: nodes no call can be below, fields
# that never hold an expression. A statement's own expressions are walked
# once per statement, so this is most of values_of's time.
_LEAVES = frozenset(
    {
        ast.Constant,
        ast.Name,
        ast.Load,
        ast.Store,
        ast.Del,
        *ast.operator.__subclasses__(),
        *ast.cmpop.__subclasses__(),
        *ast.unaryop.__subclasses__(),
        *ast.boolop.__subclasses__(),
    }
)
_NO_EXPRESSION = frozenset({"ctx", "op", "ops", "type_comment", "conversion", "kind", "level", "is_async"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _expression_children(node: ast.AST) -> list[ast.AST]:
    """The child nodes of ``node`` in ast.iter_child_nodes's order, without
    statements (nested statements are not the statement's own) and leaves."""
    node_type = type(node)
    names = _FIELDS.get(node_type)
    if names is None:
        names = _FIELDS[node_type] = tuple(name for name in node_type._fields if name not in _NO_EXPRESSION)
    children: list[ast.AST] = []
    for name in names:
        value = getattr(node, name, None)
        if type(value) is list:
            children += [
                item
                for item in value
                if type(item) not in _LEAVES and isinstance(item, ast.AST) and not isinstance(item, ast.stmt)
            ]
        elif (
            value is not None
            and type(value) not in _LEAVES
            and isinstance(value, ast.AST)
            and not isinstance(value, ast.stmt)
        ):
            children.append(value)
    return children
