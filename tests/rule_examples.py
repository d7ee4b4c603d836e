"""Running a rule's documented example through the real engine, in a tmp dir
with a real mmlint.toml, so examples exercise discovery and configuration."""

from __future__ import annotations

from pathlib import Path

from mmlint.api import check
from mmlint.docs import (
    EXAMPLE_CONFIG_FILE,
    EXAMPLE_FILE,
    example_config_toml,
    example_file_text,
)
from mmlint.rules import Example


def write_example(example: Example, directory: Path) -> Path:
    """Lay the example out as files (as `mmlint explain` shows them); return the directory to check."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / EXAMPLE_FILE).write_text(example.code, encoding="utf-8")
    for relative, text in example.files.items():
        target = directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(example_file_text(text), encoding="utf-8")
    config = example_config_toml(example.config, prefix=('paths = ["."]',))
    (directory / EXAMPLE_CONFIG_FILE).write_text(config, encoding="utf-8")
    return directory


def run_example(example: Example, directory: Path):
    write_example(example, directory)
    return check(cwd=directory)


def codes_in_example(report) -> list[str]:
    """Codes reported in the example file (and, for project rules, the config)."""
    return sorted(d.code for d in report.diagnostics if d.path in (EXAMPLE_FILE, EXAMPLE_CONFIG_FILE))
