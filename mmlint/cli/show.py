"""`--show-settings` and `--show-files`, as in ruff: which configuration governs
a file and what it resolves to, and which files a run would check."""

from __future__ import annotations

import dataclasses
import enum
import json
import os
from pathlib import Path

import click

from mmlint.check.discovery import discover
from mmlint.config.resolve import ConfigResolver
from mmlint.core.paths import display_path
from mmlint.reporters.escaping import visible


def show_files(resolver: ConfigResolver, paths: list[Path], cwd: Path) -> None:
    """One line per file the run would read, in the order it reports them."""
    discovery = discover(paths or None, resolver, cwd)
    for path in discovery.files:
        click.echo(visible(display_path(path, cwd)))


def show_settings(resolver: ConfigResolver, paths: list[Path], cwd: Path) -> None:
    """The settings governing the first PATH (else the current directory), one
    `key = value` line each, values as JSON."""
    target = Path(os.path.abspath(cwd / paths[0])) if paths else cwd
    settings = resolver.settings_for_directory(target) if target.is_dir() else resolver.settings_for(target)
    click.echo(f"Resolved settings for: {visible(display_path(target, cwd))}")
    source = display_path(settings.config_file, cwd) if settings.config_file is not None else "(none: the defaults)"
    click.echo(f"Settings path: {visible(source)}")
    for field in dataclasses.fields(settings):
        if field.name in ("config_file", "config_digest", "key_lines"):
            continue
        value = json.dumps(_plain(getattr(settings, field.name)), ensure_ascii=False)
        click.echo(f"{field.name} = {visible(value)}")


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
