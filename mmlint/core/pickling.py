"""Frozen dataclasses that pickle as a call of themselves.

A frozen dataclass with slots pickles through the __getstate__/__setstate__
that `dataclasses` gives it: Python functions that look the fields up again
for every object. Facts travel back from every worker process pickled,
thousands of small objects a file, and that way costs about three times a
plain constructor call (benchmarks/scan.py, srt/multimodal).
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T", bound=type)


def pickles_by_fields(cls: T) -> T:
    """Make ``cls`` (a dataclass whose every field is set by ``__init__``, with
    no ``__post_init__``) pickle as ``cls(*field values)``."""
    fields = dataclasses.fields(cls)
    if any(not field.init for field in fields) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: only a class rebuilt exactly by its __init__ can pickle by fields")
    names = tuple(field.name for field in fields)
    values: Callable[[object], tuple[object, ...]]
    if len(names) > 1:
        values = operator.attrgetter(*names)
    elif names:
        only = operator.attrgetter(names[0])

        def values_of_one(obj: object) -> tuple[object, ...]:
            return (only(obj),)

        values = values_of_one

    else:

        def no_values(obj: object) -> tuple[object, ...]:
            return ()

        values = no_values

    def __reduce__(self: object) -> tuple[object, ...]:
        return (cls, values(self))

    # Set by name: the type checker sees type's own __reduce__ (no argument) on every class.
    setattr(cls, "__reduce__", __reduce__)  # noqa: B010
    return cls
