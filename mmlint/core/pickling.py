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
from typing import TypeVar

T = TypeVar("T", bound=type)


def pickles_by_fields(cls: T) -> T:
    """Make ``cls`` (a dataclass whose every field is set by ``__init__``, with
    no ``__post_init__``) pickle as ``cls(*field values)``."""
    fields = dataclasses.fields(cls)
    if any(not field.init for field in fields) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: only a class rebuilt exactly by its __init__ can pickle by fields")
    names = tuple(field.name for field in fields)
    if len(names) > 1:
        values = operator.attrgetter(*names)
    elif names:
        only = operator.attrgetter(names[0])

        def values(obj: object) -> tuple:
            return (only(obj),)

    else:

        def values(obj: object) -> tuple:
            return ()

    def __reduce__(self: object) -> tuple:
        return (cls, values(self))

    cls.__reduce__ = __reduce__
    return cls
