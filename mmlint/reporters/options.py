"""What every reporter is told besides the Report: one frozen value, so every
``render`` has the one signature the registry (mmlint.reporters) names."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from mmlint.core.report import Report

__all__ = ["PLAIN", "RenderFields", "RenderOptions", "Reporter", "options_of"]


@dataclass(frozen=True)
class RenderOptions:
    """``color``: ANSI styles (a format a machine parses ignores it);
    ``quiet``: the findings alone, no summary line (text, concise);
    ``statistics``: counts per rule instead of the findings (text);
    ``width``: the terminal's, to wrap help text to; None (piped) never wraps (text)."""

    color: bool = False
    quiet: bool = False
    statistics: bool = False
    width: int | None = None


PLAIN = RenderOptions()


class RenderFields(TypedDict, total=False):
    """RenderOptions' fields as keywords: ``render(report, quiet=True)``."""

    color: bool
    quiet: bool
    statistics: bool
    width: int | None


def options_of(options: RenderOptions, overrides: RenderFields) -> RenderOptions:
    """``options`` with the fields named as keywords replaced."""
    return replace(options, **overrides) if overrides else options


# Every reporter's render, as the registry hands it out: render(report, options) -> str.
Reporter = Callable[["Report", RenderOptions], str]
