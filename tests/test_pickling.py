"""Outcomes travel back from the worker processes pickled, and the facts cache
keeps them pickled: every class in them pickles as a call of itself with its
field values (mmlint.core.pickling), and comes back equal."""

from __future__ import annotations

import dataclasses
import pickle
import sys
import typing
from pathlib import Path

import pytest

from mmlint.check.per_file import analyse_file
from mmlint.config.settings import DEFAULT_TWINS
from mmlint.core.pickling import pickles_by_fields
from mmlint.facts.outcome import FileOutcome

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def reachable_dataclasses(*roots: object) -> set[type]:
    """Every dataclass a value of these hints can hold, by the classes' type
    hints (a name Python 3.10 leaves as a string inside ``tuple[...]`` is
    looked up in its class's module)."""
    found: set[type] = set()
    pending: list[tuple[object, dict[str, object]]] = [(root, {}) for root in roots]
    while pending:
        hint, namespace = pending.pop()
        if isinstance(hint, str):
            hint = eval(hint, namespace)  # noqa: S307  # a name in mmlint's own annotations
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            if hint not in found:
                found.add(hint)
                module = vars(sys.modules[hint.__module__])
                pending.extend((field, module) for field in typing.get_type_hints(hint).values())
        elif typing.get_origin(hint) is not typing.Literal:  # whose strings are values, not names
            pending.extend((arg, namespace) for arg in typing.get_args(hint) if arg is not Ellipsis)
    return found


def test_the_walk_reaches_the_facts_and_the_ir() -> None:
    from mmlint.facts import ir
    from mmlint.facts.model import SyncDef

    names = {cls.__name__ for cls in reachable_dataclasses(FileOutcome)}
    assert {"Parsed", "Unparsed", "ParseFailure", "FileFacts", "Span"} <= names
    assert SyncDef in reachable_dataclasses(FileOutcome) and ir.Seq in reachable_dataclasses(FileOutcome)


@pytest.mark.parametrize(
    "cls", sorted(reachable_dataclasses(FileOutcome), key=lambda c: c.__qualname__), ids=lambda c: c.__name__
)
def test_every_class_in_an_outcome_pickles_by_fields(cls: type) -> None:
    assert "__reduce__" in vars(cls), f"{cls.__name__} lacks @pickles_by_fields"


@pytest.mark.slow
def test_outcomes_of_every_fixture_come_back_equal() -> None:
    compared = 0
    for path in sorted(FIXTURES.rglob("*.py")):
        outcome = analyse_file(path.read_bytes(), path, str(path), DEFAULT_TWINS)
        assert pickle.loads(pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)) == outcome, path
        compared += 1
    assert compared > 50


def test_a_class_its_init_does_not_rebuild_is_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class Derived:
        value: int
        twice: int = dataclasses.field(init=False, default=0)

    with pytest.raises(TypeError, match="rebuilt exactly"):
        pickles_by_fields(Derived)


def test_classes_of_one_and_no_fields() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class One:
        value: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Empty:
        pass

    pickles_by_fields(One)
    pickles_by_fields(Empty)
    assert One.__reduce__(One(3)) == (One, (3,))
    assert Empty.__reduce__(Empty()) == (Empty, ())
