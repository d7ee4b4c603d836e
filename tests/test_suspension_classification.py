"""Unit tests of the suspension classification: snippets parsed with libcst,
facts collected, the analysis run, verdicts compared (every path / some / never)."""

from __future__ import annotations

import pickle
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from mmlint.analysis import ALWAYS, NEVER, SOME, SuspensionAnalysis, analyse_files
from mmlint.config.settings import DEFAULT_TWINS
from mmlint.facts.collect import collect_facts


def analyse(tmp_path: Path, files: dict[str, str]) -> SuspensionAnalysis:
    """Write ``files`` (relative path -> source) under tmp_path and analyse them."""
    facts = {}
    for relative, source in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    for relative in files:
        path = tmp_path / relative
        facts[relative] = collect_facts(
            cst.parse_module(path.read_text(encoding="utf-8")), path, relative, DEFAULT_TWINS
        )
    return analyse_files(facts)


def verdicts(analysis: SuspensionAnalysis) -> dict[str, str]:
    return {analysis.defs[key].qualname: verdict for key, verdict in analysis.verdicts.items()}


def verdict_of(tmp_path: Path, body: str, name: str = "f") -> str:
    source = "import asyncio\n\n" + textwrap.dedent(body)
    return verdicts(analyse(tmp_path, {"m.py": source}))[name]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param("async def f():\n    return 1\n", NEVER, id="no-await"),
        pytest.param("async def f():\n    await asyncio.sleep(0)\n", ALWAYS, id="plain-await"),
        pytest.param(
            "async def f(x):\n    if x:\n        return 0\n    await asyncio.sleep(0)\n", SOME, id="early-return"
        ),
        pytest.param(
            "async def f(x):\n    if x:\n        raise ValueError(x)\n    await asyncio.sleep(0)\n",
            SOME,
            id="early-raise-leaves-without-suspending",
        ),
        pytest.param("async def f(x):\n    raise NotImplementedError(x)\n", NEVER, id="only-raise"),
        pytest.param(
            "async def f(x):\n    await asyncio.sleep(0)\n    raise ValueError(x)\n", ALWAYS, id="raise-after-await"
        ),
        pytest.param(
            "async def f(x):\n    if x:\n        await asyncio.sleep(1)\n    else:\n        await asyncio.sleep(2)\n",
            ALWAYS,
            id="both-branches",
        ),
        pytest.param("async def f(x):\n    if x:\n        await asyncio.sleep(1)\n", SOME, id="one-branch"),
        pytest.param(
            "async def f(xs):\n    for x in xs:\n        await asyncio.sleep(x)\n", SOME, id="for-may-not-run"
        ),
        pytest.param(
            "async def f():\n    while True:\n        await asyncio.sleep(1)\n        break\n",
            ALWAYS,
            id="while-true-runs-once",
        ),
        pytest.param(
            "async def f():\n    while True:\n        if done():\n            break\n        await asyncio.sleep(1)\n",
            SOME,
            id="while-true-break-first",
        ),
        pytest.param("async def f(xs):\n    async for x in xs:\n        pass\n", ALWAYS, id="async-for"),
        pytest.param("async def f(lock):\n    async with lock:\n        return 1\n", ALWAYS, id="async-with"),
        pytest.param(
            "async def f(path):\n    with open(path) as fh:\n        return fh.read()\n", NEVER, id="sync-with"
        ),
        pytest.param(
            "async def f(path):\n    with open(path) as fh:\n        await asyncio.sleep(0)\n",
            ALWAYS,
            id="await-in-with",
        ),
        pytest.param(
            "async def f():\n    try:\n        return 1\n    finally:\n        await asyncio.sleep(0)\n",
            ALWAYS,
            id="finally-covers-return",
        ),
        pytest.param(
            "async def f():\n    try:\n        await asyncio.sleep(0)\n    except OSError:\n        return None\n",
            SOME,
            id="handler-may-run-before-the-await",
        ),
        pytest.param(
            "async def f():\n    try:\n        x = 1\n    except OSError:\n        await asyncio.sleep(0)\n",
            SOME,
            id="await-only-in-handler",
        ),
        pytest.param(
            "async def f():\n    try:\n        x = 1\n    except OSError:\n        await asyncio.sleep(1)\n    else:\n        await asyncio.sleep(0)\n",
            ALWAYS,
            id="else-or-handler",
        ),
        pytest.param(
            "async def f(cmd):\n    match cmd:\n        case 'a':\n            await asyncio.sleep(1)\n        case _:\n            await asyncio.sleep(2)\n",
            ALWAYS,
            id="match-exhaustive",
        ),
        pytest.param(
            "async def f(cmd):\n    match cmd:\n        case 'a':\n            await asyncio.sleep(1)\n",
            SOME,
            id="match-not-exhaustive",
        ),
        pytest.param("async def f(x):\n    return x or await asyncio.sleep(0)\n", SOME, id="short-circuit"),
        pytest.param(
            "async def f(x):\n    return await asyncio.sleep(0) if x else None\n", SOME, id="conditional-expression"
        ),
        pytest.param(
            "async def f(xs):\n    return [await asyncio.sleep(x) for x in xs]\n", SOME, id="comprehension-element"
        ),
        pytest.param("async def f():\n    return [x async for x in agen()]\n", ALWAYS, id="async-comprehension"),
        pytest.param(
            "async def f():\n    def inner():\n        return 1\n    g = lambda: 2\n    return inner() + g()\n",
            NEVER,
            id="nested-defs-do-not-count",
        ),
        pytest.param("async def f():\n    return 1\n    await asyncio.sleep(0)\n", NEVER, id="unreachable-await"),
        pytest.param("async def f(coro):\n    return await coro\n", ALWAYS, id="await-of-a-non-call-is-unknown"),
    ],
)
def test_verdict_of_one_function(tmp_path: Path, body: str, expected: str) -> None:
    assert verdict_of(tmp_path, body) == expected


def test_awaits_of_in_package_coroutines_take_their_verdict(tmp_path: Path) -> None:
    analysis = analyse(
        tmp_path,
        {
            "m.py": """
                import asyncio

                async def cheap():
                    return 1

                async def sometimes(x):
                    if x:
                        return 0
                    await asyncio.sleep(0)

                async def calls_cheap():
                    return await cheap()

                async def calls_sometimes():
                    return await sometimes(1)

                async def calls_both():
                    await cheap()
                    await asyncio.sleep(0)
            """
        },
    )
    assert verdicts(analysis) == {
        "cheap": NEVER,
        "sometimes": SOME,
        "calls_cheap": NEVER,
        "calls_sometimes": SOME,
        "calls_both": ALWAYS,
    }
    hollow = analysis.hollow_awaits()
    assert [(h.span.line, [link.name for link in h.chain]) for h in hollow] == [(13, ["cheap"]), (19, ["cheap"])]


def test_mutual_recursion_reaches_a_fixed_point(tmp_path: Path) -> None:
    analysis = analyse(
        tmp_path,
        {
            "m.py": """
                import asyncio

                async def a(n):
                    if n:
                        return await b(n - 1)

                async def b(n):
                    return await a(n)

                async def c(n):
                    if n:
                        await d(n - 1)
                    else:
                        await asyncio.sleep(0)

                async def d(n):
                    await c(n)

                async def selfish(n):
                    return await selfish(n - 1)
            """
        },
    )
    assert verdicts(analysis) == {"a": NEVER, "b": NEVER, "c": SOME, "d": SOME, "selfish": NEVER}
    chains = {h.span.line: h for h in analysis.hollow_awaits()}
    assert chains[6].ends_in_cycle and [link.name for link in chains[6].chain] == ["b", "a", "b"]


def test_methods_resolve_along_the_mro_across_files(tmp_path: Path) -> None:
    analysis = analyse(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": """
                import asyncio

                class Base:
                    async def load(self):
                        return 1

                    async def run(self):
                        return await self.load()

                class Mixin:
                    async def load(self):
                        await asyncio.sleep(0)
            """,
            "pkg/impl.py": """
                from . import base as b
                from .base import Mixin

                class Plain(b.Base):
                    async def go(self):
                        return await self.load()

                class Mixed(Mixin, b.Base):
                    async def go(self):
                        first = await self.load()
                        return first, await super(). load()

                class Unknown(SomethingElse, b.Base):
                    async def go(self):
                        return await self.load()
            """,
        },
    )
    found = verdicts(analysis)
    # Base.run may dispatch to Mixed's Mixin.load (suspends) or Base.load (does not).
    assert found["Base.run"] == SOME
    assert found["Plain.go"] == NEVER
    assert found["Mixed.go"] == ALWAYS
    # An external base comes first in Unknown's MRO: passed over, the scanned
    # b.Base.load is what Python most likely finds (issue 39).
    assert found["Unknown.go"] == NEVER


def test_unresolved_and_external_callees_suspend(tmp_path: Path) -> None:
    analysis = analyse(
        tmp_path,
        {
            "m.py": """
                import httpx
                from elsewhere import helper

                def sync_factory():
                    return helper()

                async def f(client, make):
                    await httpx.get("x")
                    await helper()
                    await client.fetch()
                    await make()
                    await sync_factory()
            """
        },
    )
    key = next(iter(analysis.defs))
    assert analysis.verdict(key) == ALWAYS
    assert [analysis.resolution(key, i).unresolved for i in range(5)] == [True] * 5
    assert analysis.hollow_awaits() == []


def test_abstract_and_stub_targets_are_not_trusted(tmp_path: Path) -> None:
    analysis = analyse(
        tmp_path,
        {
            "m.py": """
                from abc import ABC, abstractmethod

                class Base(ABC):
                    @abstractmethod
                    async def step(self):
                        pass

                    async def todo(self):
                        raise NotImplementedError

                    async def run(self):
                        await self.step()
                        await self.todo()
            """
        },
    )
    assert verdicts(analysis)["Base.run"] == ALWAYS
    assert analysis.hollow_awaits() == []


def test_wait_for_and_timeout_blocks(tmp_path: Path) -> None:
    analysis = analyse(
        tmp_path,
        {
            "m.py": """
                import asyncio
                from asyncio import wait_for as wf

                async def cheap():
                    return 1

                async def real():
                    await asyncio.sleep(1)

                async def f():
                    await wf(cheap(), 1)
                    await asyncio.wait_for(real(), 1)
                    async with asyncio.timeout(1):
                        x = await cheap()
                    async with asyncio.timeout(1):
                        await real()
            """
        },
    )
    found = analysis.ineffective_timeouts()
    assert [(t.timeout.kind, t.timeout.span.line) for t in found] == [("wait_for", 12), ("timeout", 14)]


def test_facts_are_picklable_plain_data(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("import asyncio\nasync def f(x):\n    if x:\n        await asyncio.sleep(0)\n", encoding="utf-8")
    facts = collect_facts(cst.parse_module(source.read_text()), source, "m.py", DEFAULT_TWINS)
    assert pickle.loads(pickle.dumps(facts)) == facts
    assert facts.module == "m" and not facts.is_package


def test_module_names_follow_init_files_and_relative_imports(tmp_path: Path) -> None:
    analysis = analyse(
        tmp_path,
        {
            "top/__init__.py": "from .inner.leaf import work as exported\n",
            "top/inner/__init__.py": "",
            "top/inner/leaf.py": "async def work():\n    return 1\n",
            "user.py": """
                import top
                import top.inner.leaf as leaf
                from top import exported

                async def f():
                    await top.exported()
                    await leaf.work()
                    await exported()
            """,
        },
    )
    assert analysis.files["top/inner/leaf.py"].module == "top.inner.leaf"
    assert analysis.files["top/__init__.py"].module == "top"
    assert [h.span.line for h in analysis.hollow_awaits(frozenset({"user.py"}))] == [7, 8, 9]


def test_decorated_coroutines_are_not_trusted(tmp_path: Path) -> None:
    analysis = analyse(
        tmp_path,
        {
            "m.py": """
                import functools

                def offload(fn):
                    return fn

                @offload
                async def wrapped():
                    return 1

                class C:
                    @staticmethod
                    async def plain():
                        return 1

                    async def run(self):
                        await wrapped()
                        await C.plain()
            """
        },
    )
    assert [(h.text, h.span.line) for h in analysis.hollow_awaits()] == [("C.plain()", 18)]


def test_imports_inside_functions_bind_locals_only(tmp_path: Path) -> None:
    analysis = analyse(
        tmp_path,
        {
            "helpers.py": "async def cheap():\n    return 1\n",
            "m.py": """
                async def local_import():
                    from helpers import cheap
                    return await cheap()

                async def uses_global():
                    return await cheap()
            """,
        },
    )
    # Inside local_import the name is a local binding (not resolved: assumed to
    # suspend); uses_global's `cheap` is not bound at module level at all.
    assert analysis.hollow_awaits(frozenset({"m.py"})) == []
