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

from mmlint.facts.model import ValueFact, ValueKind

__all__ = ["values_of", "expr_path"]

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


def expr_path(node: ast.AST) -> str | None:
    """The path of an expression: names, attributes, calls ``()``,
    subscripts ``[]``; an awaited call is its result. None for anything else."""
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
            suffix.append("[]")
            node = node.value  # type: ignore[attr-defined]
        elif kind is ast.Await:
            node = node.value  # type: ignore[attr-defined]
        elif kind is ast.Name:
            return str(node.id) + "".join(reversed(suffix))  # type: ignore[attr-defined]
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


def value_paths(node: ast.AST | None) -> list[tuple[str, str]]:
    """(path, the container it is an element of: "" when none) for each
    value an expression may have: a literal is its builtin type's instance
    (``"str()"``), a display or comprehension a container of its elements'
    values (``("", "list")`` for one whose elements have no path)."""
    if node is None:
        return []
    kind = type(node)
    if kind in (ast.Call, ast.Name, ast.Attribute, ast.Subscript, ast.Await):
        path = expr_path(node)
        return [] if path is None else [(path, "")]
    if kind is ast.Constant:
        literal = _LITERALS.get(type(node.value))  # type: ignore[attr-defined]
        return [] if literal is None else [(literal, "")]
    if kind is ast.JoinedStr:
        return [("str()", "")]
    if kind is ast.IfExp:
        return value_paths(node.body) + value_paths(node.orelse)  # type: ignore[attr-defined]
    if kind is ast.BoolOp:
        return [found for value in node.values for found in value_paths(value)]  # type: ignore[attr-defined]
    if kind is ast.NamedExpr:
        return value_paths(node.value)  # type: ignore[attr-defined]
    container = _DISPLAYS.get(kind)
    elements: Iterable[ast.AST | None]
    if kind is ast.Dict:
        elements = node.values  # type: ignore[attr-defined]
    elif kind in (ast.List, ast.Tuple, ast.Set):
        elements = node.elts  # type: ignore[attr-defined]
    elif kind is ast.DictComp:
        elements = (node.value,)  # type: ignore[attr-defined]
    elif kind in (ast.ListComp, ast.SetComp, ast.GeneratorExp):
        elements = (node.elt,)  # type: ignore[attr-defined]
    else:
        return []
    found: dict[str, None] = {}
    for element in elements:
        for path, within in value_paths(element):
            if not within:
                found[path] = None
        if len(found) >= _MOST_ELEMENTS:
            break
    return [(path, container or "") for path in found] or [("", container or "")]


@dataclass(frozen=True, slots=True)
class _Scope:
    kind: str  # "module", "class", "def"
    qualname: str  # "" at module level
    holder_class: str | None = None  # a method's class (qualified): its first parameter is the instance
    instance: str = ""  # that first parameter's name
    in_def_chain: bool = False  # inside a def (a class there has no ClassInfo)


class _Walk:
    def __init__(self) -> None:
        self.found: list[ValueFact] = []

    def emit(self, kind: ValueKind, holder: str, name: str, paths: list[tuple[str, str]], context: str) -> None:
        for path, container in paths:
            self.found.append(ValueFact(kind, holder, name, path, context, bool(container), container))

    def body(self, statements: list[ast.stmt], scope: _Scope, globals_: frozenset[str]) -> None:
        # A stack of (statements, scope, global names declared in that def): iterative, as the other walks.
        stack: list[tuple[list[ast.stmt], _Scope, frozenset[str]]] = [(statements, scope, globals_)]
        while stack:
            block, scope, declared = stack.pop()
            for statement in block:
                self.statement(statement, scope, declared, stack)

    def statement(self, node: ast.stmt, scope: _Scope, declared: frozenset[str], stack: list) -> None:  # type: ignore[type-arg]
        kind = type(node)
        self.arguments(node, scope)
        if kind is ast.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                self.assign(target, node.value, None, scope, declared)  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign:
            self.assign(node.target, node.value, node.annotation, scope, declared)  # type: ignore[attr-defined]
        elif kind in (ast.For, ast.AsyncFor):
            path = expr_path(node.iter)  # type: ignore[attr-defined]
            if path is not None:
                self.bind(node.target, [(path + "[]", "")], scope, declared)  # type: ignore[attr-defined]
            stack.append((node.body + node.orelse, scope, declared))  # type: ignore[attr-defined]
        elif kind in (ast.With, ast.AsyncWith):
            for item in node.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, value_paths(item.context_expr), scope, declared)
            stack.append((node.body, scope, declared))  # type: ignore[attr-defined]
        elif kind is ast.Return:
            if scope.kind == "def" and not self._annotated_return.get(scope.qualname, False):
                paths = [(p, e) for p, e in value_paths(node.value) if p != "None"]  # type: ignore[attr-defined]
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

    _annotated_return: dict[str, bool]

    def arguments(self, node: ast.stmt, scope: _Scope) -> None:
        """Each call's arguments whose value has a path, in the statement's own
        expressions (nested statements and lambdas' bodies are not its own);
        a decorator is given the def or class it decorates."""
        if scope.kind == "class":
            return  # a class body's names are no def's locals nor globals
        context = scope.qualname if scope.kind == "def" else ""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and scope.kind == "module":
            for decorator in node.decorator_list:
                callee = expr_path(decorator)
                if callee is not None:
                    self.found.append(ValueFact("argument", callee, "0", node.name, context))
        stack = _expression_children(node)
        while stack:
            child = stack.pop()
            if type(child) is ast.Lambda:
                continue
            if isinstance(child, ast.Call):
                callee = expr_path(child.func)
                if callee is not None:
                    for position, argument in enumerate(child.args):
                        if isinstance(argument, ast.Starred):
                            break
                        self._argument(callee, str(position), argument, context)
                    for keyword in child.keywords:
                        if keyword.arg is not None:
                            self._argument(callee, keyword.arg, keyword.value, context)
            stack += _expression_children(child)

    def _argument(self, callee: str, name: str, argument: ast.expr, context: str) -> None:
        if isinstance(argument, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
            path = expr_path(argument)
            if path is not None:
                self.found.append(ValueFact("argument", callee, name, path, context))

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope, stack: list) -> None:  # type: ignore[type-arg]
        if scope.kind == "def":
            qual = f"{scope.qualname}.<locals>.{node.name}"
        else:
            qual = f"{scope.qualname}.{node.name}" if scope.qualname else node.name
        returns = annotation_paths(node.returns)
        self._annotated_return[qual] = bool(returns) or node.returns is not None
        self.emit("return", qual, "", returns, "")
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
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                for element, element_value in zip(target.elts, value.elts):
                    self.assign(element, element_value, None, scope, declared)
            return
        paths = annotation_paths(annotation) if annotation is not None else []
        if not paths:
            paths = value_paths(value)
        if paths:
            self.bind(target, paths, scope, declared)

    def bind(self, target: ast.expr, paths: list[tuple[str, str]], scope: _Scope, declared: frozenset[str]) -> None:
        if not paths:
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


def values_of(tree: ast.Module) -> tuple[ValueFact, ...]:
    """Every ValueFact of a module (CPython's tree of it)."""
    walk = _Walk()
    walk._annotated_return = {}
    walk.body(tree.body, _Scope("module", ""), frozenset())
    return tuple(dict.fromkeys(walk.found))


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
