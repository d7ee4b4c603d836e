"""The light facts tier (mmlint.facts.light, stdlib `ast`) agrees with the
libcst collector on every field it fills, for every file without a
coroutine definition: the fixtures here, sglang 0.5.23's whole package in
the ecosystem run."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mmlint.check.per_file import analyse_file
from mmlint.check.prefilter import _defines_coroutine
from mmlint.config.settings import DEFAULT_TWINS
from mmlint.facts.light import light_facts
from mmlint.facts.model import FileFacts
from mmlint.facts.outcome import Parsed

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
'''


def compare(data: bytes, path: Path, shown: str) -> list[str]:
    full = analyse_file(data, path, shown, DEFAULT_TWINS)
    light = light_facts(data, path, shown)
    if not isinstance(full, Parsed):
        return [] if light is None else [f"{shown}: libcst gave no facts, the light tier did"]
    if light is None:
        return [f"{shown}: no light facts"]
    return [f"{shown}: {name}" for name in FILLED if getattr(full.facts, name) != getattr(light, name)]


def test_the_shapes_agree(tmp_path: Path) -> None:
    path = tmp_path / "shapes.py"
    data = SHAPES.encode()
    path.write_bytes(data)
    assert light_facts(data, path, "shapes.py") is not None
    assert compare(data, path, "shapes.py") == []
    for newline in (b"\r\n", b"\r"):
        assert compare(data.replace(b"\n", newline), path, "shapes.py") == []


def test_every_fixture_without_a_coroutine_agrees() -> None:
    compared = 0
    problems: list[str] = []
    for path in sorted((REPO / "fixtures").rglob("*.py")):
        data = path.read_bytes()
        if _defines_coroutine(data):
            continue
        compared += 1
        found = compare(data, path, path.relative_to(REPO).as_posix())
        problems += found
    assert compared >= 15 and problems == []


def test_a_coroutine_definition_is_no_file_for_the_light_tier(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    assert light_facts(b"async def f():\n    pass\n", path, "m.py") is None
    assert light_facts(b"def f(:\n", path, "m.py") is None  # does not parse
