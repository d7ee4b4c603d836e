"""`--show-settings` and `--show-files`, as in ruff: which configuration governs
a file and what it resolves to, and which files a run would check."""

from __future__ import annotations

import dataclasses
import enum
import json
import os
from pathlib import Path

import click

from mmlint.api import discover_files
from mmlint.config.resolve import ConfigResolver
from mmlint.core.paths import display_path
from mmlint.reporters.escaping import visible


def show_files(resolver: ConfigResolver, paths: list[Path], cwd: Path) -> None:
    """One line per file the run would read, in the order it reports them."""
    for path in discover_files(paths or None, resolver, cwd):
        click.echo(visible(display_path(path, cwd)))


def show_settings(resolver: ConfigResolver, paths: list[Path], cwd: Path) -> None:
    """The settings governing the first PATH (else the current directory), one
    `key = value` line each, values as JSON; on a terminal (or with COLUMNS) a
    list or table too wide for it is spread one item a line, still JSON."""
    from mmlint.cli.terminal import terminal_width

    width = terminal_width(None)
    target = Path(os.path.abspath(cwd / paths[0])) if paths else cwd
    settings = resolver.settings_for_directory(target) if target.is_dir() else resolver.settings_for(target)
    click.echo(f"Resolved settings for: {visible(display_path(target, cwd))}")
    source = display_path(settings.config_file, cwd) if settings.config_file is not None else "(none: the defaults)"
    click.echo(f"Settings path: {visible(source)}")
    for field in dataclasses.fields(settings):
        if field.name in ("config_file", "config_digest", "key_lines"):
            continue
        value = json_lines(_plain(getattr(settings, field.name)), width, len(field.name) + 3)
        click.echo(f"{field.name} = " + "\n".join(visible(line) for line in value.split("\n")))


def json_lines(value: object, width: int | None, used: int = 0, indent: str = "") -> str:
    """``value`` as JSON on one line when it fits in ``width`` after ``used``
    columns (or ``width`` is None), else a list or object spread over lines,
    indented two spaces a level: a list of plain values as many to a line as
    fit, any other one item a line, each item spread the same way."""
    flat = json.dumps(value, ensure_ascii=False)
    if width is None or used + len(flat) <= width or not isinstance(value, list | dict) or not value:
        return flat
    inner = indent + "  "
    if isinstance(value, list) and not any(isinstance(item, list | dict) for item in value):
        return "[\n" + ",\n".join(_filled(value, width, inner)) + "\n" + indent + "]"
    if isinstance(value, list):
        items = [inner + json_lines(item, width, len(inner), inner) for item in value]
        opening, closing = "[", "]"
    else:
        items = []
        for key, item in value.items():
            head = f"{inner}{json.dumps(key, ensure_ascii=False)}: "
            items.append(head + json_lines(item, width, len(head), inner))
        opening, closing = "{", "}"
    return opening + "\n" + ",\n".join(items) + "\n" + indent + closing


def _filled(values: list[object], width: int, indent: str) -> list[str]:
    """Plain JSON values joined by ", " into lines of at most ``width`` (the
    commas that end the lines left to the caller)."""
    lines: list[str] = []
    line = ""
    for text in (json.dumps(value, ensure_ascii=False) for value in values):
        if line and len(indent) + len(line) + len(", ") + len(text) + len(",") > width:
            lines.append(indent + line)
            line = text
        else:
            line = f"{line}, {text}" if line else text
    return [*lines, indent + line]


def _plain(value: object) -> object:
    """A JSON-ready form of a settings value."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, frozenset | set):
        return sorted(_plain(item) for item in value)  # type: ignore[type-var]
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    return value
