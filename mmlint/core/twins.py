"""A twin pair: a sync body and its executor-backed async twin."""

from __future__ import annotations

from dataclasses import dataclass

from mmlint.core.pickling import pickles_by_fields


@pickles_by_fields
@dataclass(frozen=True, slots=True)
class TwinPair:
    sync: str
    async_: str
