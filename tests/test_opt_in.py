"""Opt-in flags (mmlint.facts.once_ast): a module-level name read from the
environment that is false when the variable is unset, and the calls of a
sync def that run only when it is on."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mmlint.facts.light import light_facts
from mmlint.facts.once_ast import is_opt_in_flag


@pytest.mark.parametrize(
    "source",
    [
        'os.environ.get("X") == "1"',
        'os.getenv("X", "0") == "1"',
        'os.environ.get("X", "").lower() in ("1", "true")',
        'bool(int(os.getenv("X", "0")))',
        'os.environ.get("X")',
        'bool(os.environ.get("X", ""))',
    ],
)
def test_off_unless_set(source: str) -> None:
    assert is_opt_in_flag(ast.parse(source, mode="eval").body)


@pytest.mark.parametrize(
    "source",
    [
        'os.environ.get("X", "1") == "1"',  # on unless turned off
        'os.getenv("X", "true").lower() in ("1", "true")',
        'bool(int(os.getenv("X", "1")))',
        'os.environ.get("X", DEFAULT) == "1"',  # a default not written here
        'settings.get("X") == "1"',  # not the environment
        'os.environ.get("X") != "0"',
        "True",
    ],
)
def test_on_by_default_or_not_from_the_environment(source: str) -> None:
    assert not is_opt_in_flag(ast.parse(source, mode="eval").body)


def _calls(source: str, tmp_path: Path) -> dict[str, list[tuple[str, bool]]]:
    path = tmp_path / "mod.py"
    path.write_text(source, encoding="utf-8")
    facts = light_facts(source.encode(), path, "mod.py")
    assert facts is not None
    return {info.qualname: [(call.dotted, call.opt_in) for call in info.calls] for info in facts.sync_defs}


def test_calls_behind_the_flag_are_opt_in(tmp_path: Path) -> None:
    calls = _calls(
        """import os
_ON = os.environ.get("X") == "1"

def early(x):
    if not _ON:
        return x
    dump(x)

def inside(x):
    if _ON and x:
        dump(x)
    work(x)

def rebound(x):
    _ON = True
    if _ON:
        dump(x)
""",
        tmp_path,
    )
    assert calls["early"] == [("dump", True)]
    assert calls["inside"] == [("dump", True), ("work", False)]
    assert calls["rebound"] == [("dump", False)]
