"""Outcomes travel back from the worker processes pickled: every class in them
pickles as a call of itself with its field values (mmlint.core.pickling), and
comes back equal."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from mmlint.check.per_file import analyse_file
from mmlint.config.settings import DEFAULT_TWINS
from mmlint.core.datacodec import reachable_dataclasses
from mmlint.core.pickling import pickles_by_fields
from mmlint.facts.outcome import FileOutcome

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.mark.parametrize("cls", sorted(reachable_dataclasses(FileOutcome), key=lambda c: c.__qualname__), ids=lambda c: c.__name__)
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
