"""`mmlint audit`: which processors really yield to the event loop, and which
bypass the worker pool, per file."""

from __future__ import annotations

from pathlib import Path

import click

from mmlint.audit import AUDIT_FORMATS, build_audit, render, render_defs
from mmlint.cli.common import (
    PathsCommand,
    emit,
    output_options,
    refuse_output_over_input,
    run_scan,
    scan_options,
    tool_errors,
)
from mmlint.cli.terminal import terminal_width, use_color


@click.command("audit", cls=PathsCommand)
@scan_options(exit_zero=False)  # an inventory always exits 0: --exit-zero would mean nothing
@output_options(AUDIT_FORMATS)
@click.option(
    "--show-defs",
    is_flag=True,
    help="After the table, one line per async def: verdict, weight (heavy/light/stub) and why, and its blocking chains.",
)
@click.option(
    "--show-twins",
    is_flag=True,
    help="Every discovered twin pair (MM010) in full: where each member is defined, its arguments and calls "
    "(by default the text groups them).",
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
    show_defs: bool,
    show_twins: bool,
) -> None:
    """Inventory of twin call sites and suspension behaviour for PATH (default: the configured paths, else the cwd).

    One row per file with a twin call or an async def, worst first. An
    inventory, not a check: the exit code is 0 unless the tool cannot run (2).
    With -q only the table is printed, without the summary line.
    """
    report = run_scan(paths, config_file, select, ignore, quiet=quiet, no_cache=no_cache)
    refuse_output_over_input(output, paths, report)
    audit = build_audit(report)
    text = render(
        audit,
        output_format,
        color=use_color(no_color, output),
        width=terminal_width(output),
        quiet=quiet,
        show_twins=show_twins,
    )
    if show_defs and output_format != "json":  # JSON always holds "defs"
        text += "\n" + render_defs(audit)
    emit(text, output)
    raise SystemExit(0)
