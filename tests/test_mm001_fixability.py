"""Which MM001 sites `check` calls fixable, and the reason given when not: the
one decision `check` and `fix` share."""

from __future__ import annotations

import textwrap

import pytest

from mmlint.api import check

CASES = [
    ("return self.process_and_combine_mm_data(x)", None),
    ("return [self.process_and_combine_mm_data(y) for y in xs for z in y]", None),
    ("return [x for x in [self.process_and_combine_mm_data(y) for y in xs]]", None),  # first iterable: outer scope
    ("return [[self.process_and_combine_mm_data(y) for y in z] for z in xs]", "nested in another"),
    ("return sum(self.process_and_combine_mm_data(y) for y in xs)", "generator expression"),
    ('return f"{self.process_and_combine_mm_data(x)}"', "f-string"),
    ("def inner(a: self.process_and_combine_mm_data(x)): pass", "annotation"),
    ("return (self.process_and_combine_mm_data)(x)", "parentheses"),
    ("return lambda: self.process_and_combine_mm_data(x)", "cannot await (MM002)"),
    ("return process_and_combine_mm_data(x)", "not defined or imported"),
]


@pytest.mark.parametrize(("statement", "reason"), CASES)
def test_fixability(tmp_path, statement, reason):
    source = f"class P:\n    async def go(self, x, xs):\n        await other()\n        {statement}\n"
    (tmp_path / "p.py").write_text(source)
    [site] = [d for d in check(cwd=tmp_path, select=["MM001"]).diagnostics]
    if reason is None:
        assert site.fixable and "not auto-fixable" not in site.help
    else:
        assert not site.fixable and "(not auto-fixable: " in site.help and reason in site.help


def test_the_delegation_is_never_flagged_even_through_a_lambda(tmp_path):
    (tmp_path / "base.py").write_text(
        textwrap.dedent(
            """\
        import asyncio

        class Base:
            def process_and_combine_mm_data(self, b, t):
                return b

            async def process_and_combine_mm_data_async(self, b, t):
                loop = asyncio.get_running_loop()
                return await loop.run_in_executor(None, lambda: self.process_and_combine_mm_data(b, t))
        """
        )
    )
    assert check(cwd=tmp_path).diagnostics == ()
