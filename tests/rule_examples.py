"""Running a rule's documented example through the real engine, in a tmp dir
with a real mmlint.toml, so examples exercise discovery and configuration."""

from __future__ import annotations

import textwrap
from pathlib import Path

from mmlint.api import check
from mmlint.rules import Example

EXAMPLE_FILE = "example.py"


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"unsupported config value {value!r}")


def write_example(example: Example, directory: Path) -> Path:
    """Lay the example out as files; return the directory to check."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / EXAMPLE_FILE).write_text(example.code, encoding="utf-8")
    for relative, text in example.files.items():
        target = directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    lines = ['paths = ["."]']
    tables: list[str] = []
    for key, value in example.config.items():
        if isinstance(value, dict):
            tables.append(f"[{key}]")
            tables.extend(f"{k} = {_toml_value(v)}" for k, v in value.items())
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    (directory / "mmlint.toml").write_text("\n".join(lines + tables) + "\n", encoding="utf-8")
    return directory


def run_example(example: Example, directory: Path):
    write_example(example, directory)
    return check(cwd=directory)


def codes_in_example(report) -> list[str]:
    """Codes reported in the example file (and, for project rules, the config)."""
    return sorted(d.code for d in report.diagnostics if d.path in (EXAMPLE_FILE, "mmlint.toml"))
