"""The suspension collector tracks scopes and ancestors itself (no ScopeProvider,
no ParentNodeProvider). These snippets pin the scoping rules it follows: what
makes an awaited callee's head name a local (UNKNOWN) rather than a module-level
reference (NAME / DOTTED), and which awaits are conditional."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from mmlint.config.settings import DEFAULT_TWINS
from mmlint.facts.collect import collect_facts
from mmlint.facts.ir import AwaitPoint, Branch, Seq
from mmlint.facts.model import DOTTED, NAME, UNKNOWN, FileFacts


def collect(tmp_path: Path, source: str) -> FileFacts:
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return collect_facts(cst.parse_module(path.read_text(encoding="utf-8")), path, "m.py", DEFAULT_TWINS)


def callee_kinds(tmp_path: Path, source: str, qualname: str) -> dict[str, str]:
    """Awaited callee text -> kind, for the async def ``qualname``."""
    facts = collect(tmp_path, source)
    (info,) = [d for d in facts.async_defs if d.qualname == qualname]
    return {a.callee.text: a.callee.kind for a in info.awaits if a.callee is not None}


def test_a_local_bound_after_the_await_is_local(tmp_path: Path) -> None:
    kinds = callee_kinds(
        tmp_path,
        """
        async def f():
            await fetch()
            await loader.load()
            await helper()
            fetch = make_fetcher()
            for loader in loaders:
                pass
        """,
        "f",
    )
    assert kinds == {"fetch": UNKNOWN, "loader.load": UNKNOWN, "helper": NAME}


@pytest.mark.parametrize(
    "binding",
    [
        "with open(p) as handle: pass",
        "try:\n        pass\n    except OSError as handle:\n        pass",
        "import handle",
        "from pkg import handle",
        "(handle := 1)",
        "handle += 1",
        "handle: int",
        "def handle(): pass",
        "class handle: pass",
    ],
)
def test_every_kind_of_binding_makes_a_local(tmp_path: Path, binding: str) -> None:
    source = "async def f():\n    await handle()\n    " + binding + "\n"
    assert callee_kinds(tmp_path, source, "f") == {"handle": UNKNOWN}


def test_del_and_match_captures_do_not_bind(tmp_path: Path) -> None:
    # As in libcst's scope analysis, which this collector follows.
    kinds = callee_kinds(
        tmp_path,
        """
        async def f(subject):
            await gone()
            await captured()
            del gone
            match subject:
                case captured:
                    pass
        """,
        "f",
    )
    assert kinds == {"gone": NAME, "captured": NAME}


def test_nested_def_sees_an_outer_local_bound_later(tmp_path: Path) -> None:
    source = """
        def outer():
            async def inner():
                await callback()
                await module_level()
            callback = make()
            return inner
        """
    assert callee_kinds(tmp_path, source, "outer.<locals>.inner") == {"callback": UNKNOWN, "module_level": NAME}


def test_global_declaration_sends_bindings_to_the_module(tmp_path: Path) -> None:
    source = """
        async def f():
            global client
            await client()
            client = connect()
        """
    assert callee_kinds(tmp_path, source, "f") == {"client": NAME}


def test_nonlocal_declaration_keeps_the_name_in_the_enclosing_function(tmp_path: Path) -> None:
    source = """
        def outer():
            client = None
            async def inner():
                nonlocal client
                await client()
            return inner
        """
    assert callee_kinds(tmp_path, source, "outer.<locals>.inner") == {"client": UNKNOWN}


def test_class_body_names_are_invisible_to_methods(tmp_path: Path) -> None:
    source = """
        class Processor:
            convert = staticmethod(to_tensor)

            async def process(self):
                await convert()
                await Processor.convert()
        """
    assert callee_kinds(tmp_path, source, "Processor.process") == {"convert": NAME, "Processor.convert": DOTTED}


def test_comprehension_variables_are_local_but_the_first_iterable_is_not(tmp_path: Path) -> None:
    source = """
        async def f(items):
            results = [await step() for step in items]
            firsts = [x for x in await source()]
            keyed = {k: await v() for k, v in items}
        """
    assert callee_kinds(tmp_path, source, "f") == {"step": UNKNOWN, "source": NAME, "v": UNKNOWN}


def test_parameters_are_local_and_builtins_are_not_module_definitions(tmp_path: Path) -> None:
    source = """
        import asyncio

        async def f(reader, *, timeout=1):
            await reader.read()
            await anext(reader)
            await asyncio.sleep(timeout)
        """
    assert callee_kinds(tmp_path, source, "f") == {"reader.read": UNKNOWN, "anext": UNKNOWN, "asyncio.sleep": DOTTED}


def test_awaits_under_a_conditional_operand_are_optional(tmp_path: Path) -> None:
    facts = collect(
        tmp_path,
        """
        async def f(ready):
            value = ready and await load()
            other = await first() if ready else await second()
            total = [await part(p) for p in await parts()]
        """,
    )
    (info,) = facts.async_defs
    assert [a.text for a in info.awaits] == ["load()", "first()", "second()", "part(...)", "parts()"]

    def optional(index: int) -> Branch:
        return Branch((AwaitPoint(index), Seq(())))

    assert [statement.items[0] for statement in info.body.items] == [
        Seq((optional(0),)),
        Seq((optional(1), optional(2))),
        # The element runs once per item, zero or more times; the first iterable once.
        Seq((optional(3), AwaitPoint(4))),
    ]


def test_a_module_level_nonlocal_does_not_stop_collection(tmp_path: Path) -> None:
    # CPython rejects it, libcst parses it; the facts of the rest still come out.
    facts = collect(tmp_path, "nonlocal x\n\nasync def f():\n    await g()\n")
    assert [a.callee.kind for a in facts.async_defs[0].awaits] == [NAME]
