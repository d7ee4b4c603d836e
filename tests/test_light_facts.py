"""The light facts tier (mmlint.facts.light, stdlib `ast`): the one source
of every field but the call sites and the async defs, for a file the reach
pulls in (light_facts) as for one the rules read (light_fields, through
mmlint.facts.collect). These pin what it reads of the shapes that fill each
field."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mmlint.facts.light import light_facts
from mmlint.core.diagnostics import Span
from mmlint.facts.model import STAR, FileFacts

REPO = Path(__file__).resolve().parent.parent
# Every field the light tier fills (call_sites and async_defs stay empty: no coroutine, no finding).
FILLED = tuple(f.name for f in dataclasses.fields(FileFacts) if f.name not in ("call_sites", "async_defs"))

SHAPES = '''\
import os, time as clock
from . import sibling
from .pkg.mod import helper as aid, other
from pkg import *
if os.environ.get("X"):
    from json import loads
(A, B), C = 1, 2, 3
D: int = 4
E = make_async(load, "x")
def load(path, /, mode=(1), *args, flag: "Optional[\\n    int]" = None, key=lambda v: v, **kw) -> int:
    """Doc."""
    global G
    for row in rows(path):
        clock.sleep(1)
        aid(row)[0].method(x=other(), *args)
    with open(path) as handle, ctx() as (p, q):
        handle.read()
    try:
        p()
    except clock.Error as error:
        error.log()
    except (f() or g()):
        pass
    else:
        q()
    match mode:
        case [x, *rest] if guard(x):
            x()
        case {"k": v, **more}:
            v()
    values = [z(y) for y in loads(path) if keep(y) for z in pick(y)]
    total = {k: conv(v) for k, v in os.environ.items()}
    nested = lambda: sibling.call()
    if (n := count()) > 1:
        n()
    def inner(d=clock.time()):
        return d
    class Local(Base):
        def method(self):
            self.go()
    return super().load(inner, Local, values, total, nested, {**kw, "a": first(), "b": second()})
class Base(os.PathLike, metaclass=Meta):
    X_async = to_thread(X)
    @staticmethod
    @functools.lru_cache(maxsize=None)
    def stub(a, b=[1, 2]):
        ...
    @abc.abstractmethod
    def todo(self):
        raise NotImplementedError()
    def loop(self):
        for i in range(10):
            helper(i)
        while self.ready():
            self.wait()
        for name in self.NAMES:
            app.add_event_handler("startup", name)
        app.exception_handler(Error)(handle)
    class Inner:
        def deep(cls):
            cls.make()
        def rows(self):
            for key in [
                k
                for k in self.items
            ]:
                key()
    handler_async = make_async(None)
def _private(x=(yield_ := 1)): return x
def chunks(path):
    def inner(): yield path
    with open(path) as f: yield from iter(f.read, "")
def consume(path):
    it = chunks(path)
    def later(): return next(chunks(path))
    for part in enumerate(zip(chunks(path), other())): pass
    return sorted(chunks(path)), "".join(map(str, chunks(path))), [c for c in chunks(path)], chunks(path), next(it)
'''

# The fields later merged work added: a literal `__all__`, star imports, twins
# assigned through a wrapper (at module level, on `self` in a method), and the
# calls of a sync def that are discarded, scheduled, and placed (a discarded
# call that may reach a scanned async def; `é` puts bytes and characters apart).
ALL_STARS_TWINS_AND_DROPS = '''\
"""Dé."""
from .wire import *
from pkg.api import *
from . import *
import asyncio, functools
from .engine import Engine
from .helpers import helper
__all__ = ["load", 'Loader', """x"""]
load_async = make_async(load, pool)
(loads_async) = asyncio.to_thread(loads)
none_async = make_async(None)
parted_async = functools.partial(asyncio.to_thread, parted)
(
    paren_async
) = make_async(paren)
def load(path):
    helper(path)
    (helper)(path)
    ( helper(path) )
    é = helper(path)
    "é"; helper(path)
    Engine.start()
    asyncio.run(main())
    asyncio.run(coro=main(), debug=False)
    loop.run_until_complete(*[main()])
    loop.run_until_complete(*coros())
    asyncio.gather(a(), b(), return_exceptions=True)
    create_task(
        Engine.spin(
            1,
        )
    )
    print("done")
    items.append(path)
    load_async(path)
    load(path)
    super().load()
    [helper(x) for x in path]
    if path: (helper(path))
    (\\
helper(path))
    lambda: helper(path)
class Loader(Engine):
    def __init__(self):
        self.read_async = make_async(self.read)
        self.other = to_thread(self.read)
        read2_async = make_async(self.read)
        self.start()
        super().start()
        cls.start()
        self.run(self.tick())
    def read(self):
        def inner():
            self.x_async = make_async(self.x)
            helper()
        inner()
    class Inner:
        def go(self):
            self.go_async = make_async(self.go)
def outer():
    class Local:
        def m(self):
            self.m_async = make_async(self.m)
            self.m()
'''


def assert_alike_whatever_ends_the_lines(data: bytes, path: Path, facts: FileFacts) -> None:
    for newline in ("\r\n", "\r"):
        changed = light_facts(data.replace(b"\n", newline.encode()), path, facts.path)
        assert changed == dataclasses.replace(facts, newline=newline)


def test_the_shapes_fill_every_field_they_hold(tmp_path: Path) -> None:
    path = tmp_path / "shapes.py"
    data = SHAPES.encode()
    path.write_bytes(data)
    facts = light_facts(data, path, "shapes.py")
    assert facts is not None and facts.imports and facts.sync_defs and facts.classes and facts.assigned_names
    load = next(sync for sync in facts.sync_defs if sync.name == "load")
    assert [p.kind for p in load.params][:3] == ["positional-only", "positional-or-keyword", "var-positional"]
    assert load.has_loop and {call.dotted for call in load.calls} >= {"time.sleep", ".pkg.mod.helper"}


def test_all_star_imports_twin_assignments_and_dropped_calls(tmp_path: Path) -> None:
    path = tmp_path / "pkg" / "mod.py"
    path.parent.mkdir()
    data = ALL_STARS_TWINS_AND_DROPS.encode()
    path.write_bytes(data)
    light = light_facts(data, path, "mod.py")
    assert light is not None
    # The shapes exercise every one of these fields (none is left at its default).
    assert light.all_names == ("load", "Loader", "x")
    assert [(i.target, bool(i.anchor)) for i in light.imports if i.local == STAR] == [
        ("wire", True),
        ("pkg.api", False),
        ("", True),
    ]
    assert [(t.async_, t.class_name, t.line) for t in light.twin_assignments] == [
        ("load_async", None, 9),
        ("loads_async", None, 10),
        ("none_async", None, 11),
        ("parted_async", None, 12),
        ("paren_async", None, 14),
        ("read_async", "Loader", 45),
        ("other", "Loader", 46),
        ("go_async", "Loader.Inner", 59),
    ]
    calls = [call for sync in light.sync_defs for call in sync.calls]
    assert sum(call.discarded for call in calls) > 20 and sum(call.scheduled for call in calls) == 7
    placed = [(call.dotted, call.span) for call in calls if call.span is not None]
    # libcst's positions leave out the parentheses around a call (its codegen keeps them).
    assert (".helpers.helper", Span(19, 7, 19, 19)) in placed
    assert (".helpers.helper", Span(39, 15, 39, 27)) in placed
    assert (".helpers.helper", Span(21, 10, 21, 22)) in placed  # columns in characters
    assert len(placed) == 16
    assert_alike_whatever_ends_the_lines(data, path, light)
    # Not literal: an implicit concatenation (libcst keeps its parts apart), a bytes literal.
    for value in (b'["a" "b"]', b'("a", b"c")', b'["a", *more]', b"names()"):
        changed = data.replace(b'["load", \'Loader\', """x"""]', value)
        assert light_facts(changed, path, "mod.py").all_names is None  # type: ignore[union-attr]


def test_a_coroutine_definition_is_no_file_for_the_light_tier(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    assert light_facts(b"async def f():\n    pass\n", path, "m.py") is None
    assert light_facts(b"def f(:\n", path, "m.py") is None  # does not parse
