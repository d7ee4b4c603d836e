"""`mmlint graph`: the resolved call graph of PATH, in PyCG's JSON format."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import click

from mmlint.cli.common import (
    PathsCommand,
    emit,
    logical_cwd,
    refuse_output_over_input,
    run_scan,
    scan_options,
    tool_errors,
)
from mmlint.facts.model import FileFacts

FORMATS = ("json",)


@click.command("graph", cls=PathsCommand)
@scan_options(exit_zero=False)  # informational: always exits 0 when it could run
@click.option(
    "--format",
    "--output-format",
    "output_format",
    type=click.Choice(FORMATS),
    default="json",
    show_default=True,
    help="Graph format (PyCG's).",
)
@click.option(
    "--output",
    "-o",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the graph to FILE instead of stdout.",
)
@tool_errors
def command(
    paths: tuple[Path, ...],
    config_file: Path | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    quiet: bool,
    no_color: bool,
    no_cache: bool,
    output_format: str,
    output: Path | None,
) -> None:
    """The resolved call graph of PATH (default: the configured paths, else the cwd) as JSON.

    One key per def and per module body (the module itself), named
    module-qualified relative to the scanned root, each with the defs its
    calls may run: {"pkg.mod.f": ["pkg.mod.g", ...], "pkg.mod": [...]}.
    Informational: the exit code is 0 unless the tool cannot run (2).
    """
    from mmlint.analysis.graph import call_graph

    report = run_scan(paths, config_file, select, ignore, quiet=quiet, no_cache=no_cache)
    refuse_output_over_input(output, paths, report)
    files = scanned_facts(report.file_paths, report.project.files)
    root = scanned_root(paths, logical_cwd())
    real = {shown: Path(os.path.abspath(report.file_paths[shown])) for shown in files}
    graph = call_graph(files, lambda facts: module_name(real[facts.path], root) or facts.module)
    emit(json.dumps(graph, indent=2, sort_keys=True) + "\n", output)
    raise SystemExit(0)


def scanned_facts(targets: Mapping[str, Path], analysed: Mapping[str, FileFacts]) -> dict[str, FileFacts]:
    """Every scanned file's facts: the analysed ones, and light-tier facts
    (mmlint.facts.light: complete for a file without a coroutine) for those
    the prefilter never parsed, or reached only in part."""
    from mmlint.facts.light import light_facts

    files: dict[str, FileFacts] = {}
    for shown, real in targets.items():
        facts = analysed.get(shown)
        if facts is None or not (facts.async_defs or facts.call_sites):
            try:
                facts = light_facts(Path(real).read_bytes(), Path(real), shown) or facts
            except OSError:
                pass
        if facts is not None:
            files[shown] = facts
    return files


def scanned_root(paths: Sequence[Path], cwd: Path) -> Path:
    """What names are relative to: the directory given (a file's directory), the
    common directory of several, else the working directory."""
    if not paths:
        return cwd
    folders = [os.path.abspath(p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p))) for p in paths]
    return Path(os.path.commonpath(folders))


def module_name(real: Path, root: Path) -> str:
    """``root/pkg/mod.py`` -> ``pkg.mod``; ``root/pkg/__init__.py`` -> ``pkg``."""
    try:
        parts = list(real.relative_to(root).with_suffix("").parts)
    except ValueError:
        return ""
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)
