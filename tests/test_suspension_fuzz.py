"""No-crash property: any valid Python yields suspension facts and an analysis."""

from __future__ import annotations

import pickle
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from python_sources import python_modules

from mmlint.analysis import analyse_files
from mmlint.config.settings import DEFAULT_TWINS
from mmlint.facts.collect import collect_facts

ASYNC_SHAPES = """
import asyncio
async def f(xs, lock):
    async with lock:
        for x in xs:
            try:
                if x and await g(x):
                    continue
                match x:
                    case 1:
                        break
                    case _:
                        return [await h(y) async for y in x if y]
            except Exception:
                raise
            finally:
                await asyncio.sleep(0)
        else:
            while True:
                await self.x()
"""


def _analyse(source: str) -> None:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return  # the grammar strategy can produce code libcst rejects; not ours
    facts = collect_facts(module, Path("fuzz.py"), "fuzz.py", DEFAULT_TWINS)
    pickle.dumps(facts)
    analysis = analyse_files({"fuzz.py": facts})
    analysis.hollow_awaits()
    analysis.ineffective_timeouts()


def test_a_dense_async_function_is_analysed() -> None:
    _analyse(ASYNC_SHAPES)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(python_modules())
def test_any_module_is_analysed_without_crashing(source: str) -> None:
    _analyse(source)
