"""`mmlint baseline [PATH ...] -o FILE`: record today's diagnostics so that
`mmlint check --baseline FILE` reports only new ones."""

from __future__ import annotations

from pathlib import Path

import click

from mmlint.baseline import is_baselinable, render_baseline
from mmlint.cli.common import (
    PathsCommand,
    FILE_TYPE,
    PATH_TYPE,
    emit,
    logical_cwd,
    no_cache_option,
    refuse_output_over_input,
    run_scan,
    tool_errors,
)
from mmlint.reporters.escaping import visible


@click.command("baseline", cls=PathsCommand)
@click.argument("paths", nargs=-1, type=PATH_TYPE)
@click.option(
    "--output",
    "-o",
    "output",
    required=True,
    type=FILE_TYPE,
    help="The baseline file to write (JSON); commit it, and pass it to `check --baseline`.",
)
@click.option(
    "--config",
    "config_file",
    type=FILE_TYPE,
    help="Configuration file (pyproject.toml [tool.mmlint], mmlint.toml); default: discovered upward.",
)
@click.option(
    "--select",
    multiple=True,
    help="Codes or prefixes to record, comma separated or repeated (replaces the configured select).",
)
@click.option(
    "--ignore",
    multiple=True,
    help="Codes or prefixes not to record, comma separated or repeated (added to the configured ignore).",
)
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on success.")
@no_cache_option
@tool_errors
def command(
    paths: tuple[Path, ...],
    output: Path,
    config_file: Path | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    quiet: bool,
    no_cache: bool,
) -> None:
    """Record the current diagnostics of PATH (default: the configured paths) in FILE.

    Entries hold the path, the code and the flagged source line, so later edits
    that move code up or down keep matching. Syntax errors (MM999) are never
    recorded."""
    cwd = logical_cwd()
    report = run_scan(paths, config_file, select, ignore, quiet=quiet, no_cache=no_cache)
    refuse_output_over_input(output, paths, report)
    emit(render_baseline(report, output, cwd=cwd), output)
    if not quiet:
        recorded = sum(1 for d in report.diagnostics if is_baselinable(d.code))
        skipped = len(report.diagnostics) - recorded
        line = f"recorded {recorded} diagnostic{'' if recorded == 1 else 's'} in {visible(str(output))}"
        if skipped:
            line += f" ({skipped} syntax error{'' if skipped == 1 else 's'} not recorded)"
        click.echo(line, err=True)
