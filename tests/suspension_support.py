"""Writing a small project to a tmp dir and checking it, for the MM004-MM007 tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

from mmlint.api import check


def write_project(root: Path, files: dict[str, str], config: str = 'paths = ["."]\n') -> Path:
    """Write ``files`` (relative path -> source, dedented) and an mmlint.toml."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "mmlint.toml").write_text(config, encoding="utf-8")
    for relative, source in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return root


def findings(root: Path, code: str, paths: list[str] | None = None) -> list[tuple[str, int, int]]:
    """(path, line, column) of every ``code`` diagnostic when checking ``paths``."""
    report = check(paths, cwd=root, select=[code])
    return [(d.path, d.span.line, d.span.column) for d in report.diagnostics if d.code == code]
