"""Reporters, keyed by `--format`. Each is a module exposing
`render(report, *, color=False) -> str`; they only format a Report."""

from __future__ import annotations

import importlib
from collections.abc import Callable

FORMATS = ("text", "concise", "json", "github", "sarif", "junit")


def get_reporter(name: str) -> Callable[..., str]:
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}; choose from {', '.join(FORMATS)}")
    module = importlib.import_module(f"{__name__}.{name}_report" if name == "json" else f"{__name__}.{name}")
    render: Callable[..., str] = module.render
    return render
