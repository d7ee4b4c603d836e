"""Property tests: generated modules with twin calls in random expression
positions and scopes. After `fix`: the output parses, a second fix is a no-op,
every MM001 left is one the fixer reported as not fixable, and undoing the edit
(drop the `await`s, the `_async` suffixes and the added parentheses) gives back
the input byte for byte."""

from __future__ import annotations

import ast
import tempfile
from pathlib import Path

import pytest
from fix_helpers import check_file, fix_path, mm001
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SYNC = "process_and_combine_mm_data"
ASYNC = "process_and_combine_mm_data_async"

# Statement templates; {c} is the twin call. `return` only where a function is.
STATEMENTS = {
    "statement": "{c}",
    "assign": "x = {c}",
    "unpack": "a, b, _ = {c}",
    "subscript": "x = {c}[0]",
    "attribute": "x = {c}.attr",
    "call_on_result": "x = {c}(1)",
    "argument": "x = g({c}, k=1)",
    "binop_left": "x = {c} + 1",
    "binop_right": "x = 1 + {c}",
    "power": "x = {c} ** 2",
    "unary": "x = -{c}",
    "not": "x = not {c}",
    "conditional": "x = {c} if flag else None",
    "fstring": 'x = f"{{{c}!r}}"',
    "walrus": "print(y := {c})",
}
RETURNS = {"return": "return {c}", "return_subscript": "return {c}[1:]"}
# Expression templates for scopes that take an expression only.
EXPRESSIONS = {
    "bare": "{c}",
    "subscript": "{c}[0]",
    "attribute": "{c}.attr",
    "argument": "g({c})",
    "binop": "{c} * 2",
    "conditional": "None if flag else {c}",
}


def _in_function(kind: str, body: str, index: int) -> str:
    return f"{kind} f{index}(self, out):\n    {body}\n"


SCOPES = {
    # name: (takes statements?, takes return?, wrapper(line, index) -> source)
    "async_def": (True, True, lambda s, i: _in_function("async def", s, i)),
    "async_method": (True, True, lambda s, i: f"class C{i}(Base):\n    async def run(self, out):\n        {s}\n"),
    "sync_def": (True, True, lambda s, i: _in_function("def", s, i)),
    "class_body": (True, False, lambda s, i: f"class C{i}:\n    {s}\n"),
    "module": (True, False, lambda s, i: f"{s}\n"),
    "nested_def_in_async": (
        True,
        True,
        lambda s, i: f"async def f{i}(self, out):\n    def inner():\n        {s}\n    return inner\n",
    ),
    "async_def_in_sync": (
        True,
        True,
        lambda s, i: f"def f{i}(self, out):\n    async def inner():\n        {s}\n    return inner\n",
    ),
    "lambda": (False, False, lambda e, i: f"h{i} = lambda self, out: {e}\n"),
    "listcomp_in_async": (
        False,
        False,
        lambda e, i: f"async def f{i}(self, outs):\n    return [{e} for out in outs]\n",
    ),
    "dictcomp_in_async": (
        False,
        False,
        lambda e, i: f"async def f{i}(self, outs):\n    return {{out: {e} for out in outs}}\n",
    ),
    "genexp_in_async": (
        False,
        False,
        lambda e, i: f"async def f{i}(self, outs):\n    return list({e} for out in outs)\n",
    ),
    "listcomp_in_sync": (False, False, lambda e, i: f"def f{i}(self, outs):\n    return [{e} for out in outs]\n"),
}

RECEIVERS = ("self.", "super().", "proc.", "self.helper.inner.", "")


@st.composite
def twin_call(draw) -> str:
    receiver = draw(st.sampled_from(RECEIVERS))
    if draw(st.booleans()):
        return f"{receiver}{SYNC}(out, 1)"
    # The real shape: arguments on their own lines, comments, a trailing comma.
    return f"{receiver}{SYNC}(  # appel combiné é\n        out,  # sortie\n        k=2,\n    )"


@st.composite
def block(draw, index: int) -> str:
    scope = draw(st.sampled_from(sorted(SCOPES)))
    takes_statements, takes_return, wrap = SCOPES[scope]
    call = draw(twin_call())
    if takes_statements:
        templates = {**STATEMENTS, **(RETURNS if takes_return else {})}
    else:
        templates = EXPRESSIONS
    template = templates[draw(st.sampled_from(sorted(templates)))]
    if "\n" in call and 'f"' in template:
        call = call.split("(", 1)[0] + "(out, 1)"  # no newlines inside an f-string before 3.12
    return wrap(template.format(c=call), index)


@st.composite
def module(draw) -> str:
    header = "from .combine import " + SYNC
    if draw(st.booleans()):
        header += ", " + ASYNC
    count = draw(st.integers(min_value=1, max_value=5))
    blocks = [draw(block(index)) for index in range(count)]
    return header + "\n\nproc = flag = g = Base = None\n\n\n" + "\n\n".join(blocks)


def undo_fix(fixed: str) -> str:
    """Drop every `await `, the parentheses around it where the grammar needed
    them, and turn the async twin's name back into the sync one. Valid because
    the generated input has no `await` and never parenthesises a twin call."""
    data = fixed.encode("utf-8")
    line_starts = [0]
    for line in data.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))

    def offset(line: int, column: int) -> int:  # ast columns are UTF-8 byte offsets
        return line_starts[line - 1] + column

    replacements: list[tuple[int, int, bytes]] = []
    tree = ast.parse(data)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Await):
            start = offset(node.lineno, node.col_offset)
            end = offset(node.end_lineno, node.end_col_offset)
            assert data[start : start + 6] == b"await "
            replacements.append((start, start + 6, b""))
            parent = parents[node]
            if (
                isinstance(parent, (ast.Attribute, ast.Subscript))
                and parent.value is node
                or isinstance(parent, ast.Call)
                and parent.func is node
            ):
                assert data[start - 1 : start] == b"(" and data[end : end + 1] == b")"
                replacements.append((start - 1, start, b""))
                replacements.append((end, end + 1, b""))
        elif isinstance(node, ast.Attribute) and node.attr == ASYNC:
            end = offset(node.end_lineno, node.end_col_offset)
            replacements.append((end - len(ASYNC), end, SYNC.encode()))
        elif isinstance(node, ast.Name) and node.id == ASYNC:
            start = offset(node.lineno, node.col_offset)
            replacements.append((start, start + len(ASYNC), SYNC.encode()))
    for start, end, new in sorted(replacements, reverse=True):
        data = data[:start] + new + data[end:]
    return data.decode("utf-8")


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module())
def test_fix_properties(source: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        target = Path(directory) / "generated.py"
        target.write_text(source, encoding="utf-8")
        before = mm001(check_file(target))

        run = fix_path(target)
        assert not run.errors, [r.error for r in run.errors]
        fixed = target.read_text(encoding="utf-8")
        ast.parse(fixed)

        # Every site is either fixed or listed with a reason.
        fixed_sites = [site for result in run.results for site in result.fixed]
        unfixed_sites = [site for _, site in run.unfixed]
        assert len(fixed_sites) + len(unfixed_sites) == len(before)
        assert all(site.reason for site in unfixed_sites)

        # What remains is exactly what the fixer said it could not fix (lines do
        # not move: the fix never adds or removes a line).
        after = mm001(check_file(target))
        assert sorted(d.span.line for d in after) == sorted(site.span.line for site in unfixed_sites)
        # ...and none of it is still called fixable (f-string sites included).
        assert not [d for d in after if d.fixable]

        # A second run is a no-op.
        assert not fix_path(target).changed
        assert target.read_text(encoding="utf-8") == fixed

        # Undoing the edit gives the input back, byte for byte.
        assert undo_fix(fixed) == source
        assert (fixed == source) == (not fixed_sites)
