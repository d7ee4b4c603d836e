"""Positions placed statement by statement (mmlint.facts.positions) are exactly
libcst's PositionProvider's: on shapes chosen to trip the anchoring up, on
every fixture, and on generated modules. Each test places every call, await,
attribute and name, not only those a rule needs today."""

from __future__ import annotations

import sys
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from libcst.metadata import MetadataWrapper, PositionProvider
from python_sources import python_modules_from_nodes

from mmlint.core.source import indentation_view
from mmlint.facts import positions
from mmlint.facts.anchors import statement_anchors
from mmlint.facts.positions import locate

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

_PLACED_TYPES = (cst.Call, cst.Await, cst.Attribute, cst.Name)


def _every_node(module: cst.Module) -> tuple[list, list]:
    """(placed, definitions): every call, await, attribute and name with its
    ancestor chain; every def and class."""
    placed, definitions = [], []
    stack = [(module, None)]
    while stack:
        node, parent = stack.pop()
        link = (node, parent)
        if isinstance(node, _PLACED_TYPES):
            placed.append((node, link))
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            definitions.append(node)
        stack.extend((child, link) for child in node.children)
    return placed, definitions


def _provider_positions(module: cst.Module, placed: list, definitions: list) -> positions.Positions:
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)

    def as_tuple(node: cst.CSTNode) -> tuple[int, int, int, int]:
        code_range = theirs[node]
        return (code_range.start.line, code_range.start.column, code_range.end.line, code_range.end.column)

    ranges = {id(node): as_tuple(node) for node, _ in placed}
    ranges.update({id(definition.name): as_tuple(definition.name) for definition in definitions})
    starts = {id(definition): as_tuple(definition)[:2] for definition in definitions}
    return positions.Positions(ranges, starts)


def _agree(ours: positions.Positions, expected: positions.Positions) -> bool:
    """Every asked-for position is the same (either may hold more: ranges of
    the children a hoisted range was taken from)."""
    return all(ours.ranges.get(key) == value for key, value in expected.ranges.items()) and all(
        ours.starts.get(key) == value for key, value in expected.starts.items()
    )


def _assert_exact(source: str, *, anchored: bool = True) -> int:
    """Positions of every node of ``source`` equal PositionProvider's; with
    ``anchored``, placed statement by statement (no whole-module fallback)."""
    module = cst.parse_module(source)
    placed, definitions = _every_node(module)
    anchors = statement_anchors(source)
    if anchored:
        assert anchors is not None, "CPython could not parse the source"
        ours = positions._by_statement(module, placed, anchors)  # raises where it would fall back
    else:
        ours = locate(module, placed, definitions, anchors)
    expected = _provider_positions(module, placed, definitions)
    for node, _ in placed:
        assert ours.ranges[id(node)] == expected.ranges[id(node)], (
            type(node).__name__,
            cst.Module([]).code_for_node(node),
        )
    for definition in definitions:
        assert ours.starts[id(definition)] == expected.starts[id(definition)], definition.name.value
        assert ours.ranges[id(definition.name)] == expected.ranges[id(definition.name)], definition.name.value
    return len(placed)


SHAPES = {
    "elif chain": """
if a(1):
    b()
elif c(2):
    d()
# a comment before the elif
elif  e(3) and f(
    4,
):
    g()
else:
    h()
""",
    "decorated defs": """
import functools

# leading comment
@functools.lru_cache(maxsize=f(1))
# between decorators
@ decorator . attr (x=g())

# after the decorators
async  def  fetch(a=default(), *, b: ann() = 2) -> result_type():
    return await get(a)


class Outer(base(1), metaclass=meta()):
    @property
    def x(self): return compute(self)

    class Inner(object): y = make()
""",
    "continuations": """
class \\
        Continued(Base):
    async \\
    def \\
        name(self):
        x = 1; y = call(x); await z(y)
        value = (yield_from(a)
                 + \\
                 other(b))
        return value


def \\
  plain(): pass
""",
    "one-line blocks": """
async def f(x):
    if x: return g(x)
    else: await h(x)
    for i in y(): z(i)
    while w(): v()
    with a() as b: c(b)
    try: d()
    except E(): e()
    finally: f()
""",
    "try and match": """
async def f(subject):
    try:
        await risky()
    except (ValueError, make_error()) as error:
        log(error)
    else:
        fine()
    finally:
        await cleanup()
    match compute(subject):
        case {"key": value} if guard(value):
            await handle(value)
        case [first, *rest]:
            handle_list(first, rest)
        case Point(x=0):
            origin()
        case _:
            pass
""",
    "async loops and comprehensions": """
async def f(source):
    async for item in stream(source):
        async with lock(item) as held:
            await held.use([await g(x) for x in item if check(x)])
    else:
        done()
    result = {k(a): v(b) for a, b in pairs()}
    return (await last()) if cond() else fallback()
""",
    "strings and comments": '''
async def f():
    """A docstring with code: call(x)
    and lines."""
    text = f"{call(1)} and {other(2)!r:>{width()}}"
    more = """
    triple
    """ + tail()  # a comment with call()
    return await g(text, more)
''',
    "non-ascii text": """
async def f():
    naïve = "héllo wörld"; result = call(naïve)
    emoji = "🎉🎉"; await other(emoji, x="ü")
    return résumé(émigré())
""",
    "names python normalises": "class Aㄱ:\n    async def ﬁnd(self):\n        return await ﬀ()\n",
    "tabs and odd indentation": "async def f():\n\tif x():\n\t\tawait y()\n\telse:\n\t  z()\n",
    "crlf newlines": "async def f():\r\n    x = g(\r\n        1)\r\n    await h(x)\r\n",
    "lone cr newlines": "async def f():\r    x = g(\r        1)\r    await h(x)\r",
    "no trailing newline": "async def f():\n    return await g()",
    "module level": "import x\nx.run(main())\nif __name__ == '__main__':\n    asyncio.run(main(sys.argv()))\n",
    "nested blocks": """
class A:
    async def f(self):
        def helper():
            async def inner():
                return await deep(call())
            return inner
        while True:
            if a():
                for b in c():
                    with d():
                        try:
                            await e()
                        except Exception:
                            continue
""",
}
if sys.version_info >= (3, 11):  # CPython before 3.11 cannot parse except*, so gives no anchors
    SHAPES["except star"] = """
async def f():
    try:
        pass
    except* (OSError, group_of()):
        await recover()
"""


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_positions_equal_position_providers(name: str) -> None:
    assert _assert_exact(SHAPES[name]) > 0


@pytest.mark.slow
def test_every_fixture() -> None:
    compared = 0
    for path in sorted(FIXTURES.rglob("*.py")):
        view, _shift = indentation_view(path.read_text(encoding="utf-8"))
        try:
            cst.parse_module(view)
        except cst.ParserSyntaxError:
            continue  # the syntax-error fixtures
        compared += _assert_exact(view)
    assert compared > 1000


def test_without_anchors_the_whole_module_is_generated() -> None:
    source = SHAPES["nested blocks"]
    module = cst.parse_module(source)
    placed, definitions = _every_node(module)
    expected = _provider_positions(module, placed, definitions)
    ours = locate(module, placed, definitions, None)
    assert _agree(ours, expected)


@pytest.mark.parametrize(
    "other",
    [
        SHAPES["decorated defs"] + "x = 1\n",
        SHAPES["decorated defs"].replace("class Inner", "class Renamed"),
        SHAPES["decorated defs"].replace("async  def  fetch", "def  fetch"),
        SHAPES["decorated defs"].replace("    class Inner", "    if True: x = 1\n    class Inner"),
        SHAPES["decorated defs"].replace("import functools", "if True:\n  import functools"),
    ],
)
def test_anchors_that_disagree_with_the_tree_are_caught(other: str) -> None:
    """The anchors always come from the text libcst parsed; should the two
    parsers ever disagree on a statement's kind, a name, a column or the
    count, the whole module is generated instead."""
    module = cst.parse_module(SHAPES["decorated defs"])
    placed, definitions = _every_node(module)
    anchors = statement_anchors(other)
    with pytest.raises(positions._Misaligned):
        positions._by_statement(module, placed, anchors)
    assert _agree(locate(module, placed, definitions, anchors), _provider_positions(module, placed, definitions))


def test_source_cpython_cannot_parse_has_no_anchors() -> None:
    assert statement_anchors("def f(:\n") is None
    assert statement_anchors("x = '\\d'\n") is not None  # a warning is not a failure
    assert statement_anchors("(" * 1000 + ")" * 1000) is None


def test_a_form_feed_view_is_shifted_back() -> None:
    text = "async def f():\n\f    await g()\n"
    view, shift = indentation_view(text)
    module = cst.parse_module(view)
    placed, definitions = _every_node(module)
    ours = locate(module, placed, definitions, statement_anchors(view), shift)
    await_node = next(node for node, _ in placed if isinstance(node, cst.Await))
    assert ours.ranges[id(await_node)] == (2, 5, 2, 14)


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(python_modules_from_nodes())
def test_generated_modules(source: str) -> None:
    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError:
        return
    _assert_exact(source, anchored=statement_anchors(source) is not None)


def test_a_file_checked_for_nesting_is_not_parsed_by_cpython_again(tmp_path, monkeypatch) -> None:
    """A file that may nest deeply (or is large) is compiled by CPython for the
    nesting budget first; its anchors come from that tree."""
    from mmlint.check import per_file
    from mmlint.config.settings import DEFAULT_TWINS

    source = SHAPES["decorated defs"] + SHAPES["try and match"]
    path = tmp_path / "m.py"
    path.write_text(source)
    expected = per_file.analyse_file(source.encode(), path, "m.py", DEFAULT_TWINS)
    monkeypatch.setattr(per_file, "_could_nest_deeply", lambda data, depth, bracket_depth: True)
    monkeypatch.setattr(per_file, "statement_anchors", lambda view: pytest.fail("parsed by CPython twice"))
    assert per_file.analyse_file(source.encode(), path, "m.py", DEFAULT_TWINS) == expected
