"""Reporters, keyed by `--format`. Each is a module exposing
`render(report, options=PLAIN, /, **fields) -> str` (mmlint.reporters.options:
one frozen RenderOptions, whose fields may also be named as keywords); they
only format a Report."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from mmlint.reporters.options import Reporter

FORMATS = ("text", "concise", "json", "github", "sarif", "junit")


def get_reporter(name: str) -> Reporter:
    """The render of the format ``name``: render(report, options) -> str."""
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}; choose from {', '.join(FORMATS)}")
    module = importlib.import_module(f"{__name__}.{name}_report" if name == "json" else f"{__name__}.{name}")
    render: Reporter = module.render
    return render


if TYPE_CHECKING:
    # mypy holds every reporter to the one signature.
    from mmlint.reporters import concise, github, json_report, junit, sarif, text

    _EVERY_RENDER: tuple[Reporter, ...] = (
        text.render,
        concise.render,
        json_report.render,
        github.render,
        sarif.render,
        junit.render,
    )
