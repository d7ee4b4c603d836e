"""`mmlint check`: report diagnostics."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mmlint.cli.common import (
    PathsCommand,
    FILE_TYPE,
    ToolError,
    emit,
    exit_code,
    output_options,
    read_stdin,
    refuse_output_over_input,
    run_scan,
    scan_options,
    stdin_filename_option,
    stdin_on_disk,
    tool_errors,
)
from mmlint.cli.terminal import terminal_width, use_color
from mmlint.reporters import FORMATS, get_reporter
from mmlint.reporters.options import RenderOptions

if TYPE_CHECKING:
    from mmlint.core.confirmation import Confirmation

# --statistics replaces the list of diagnostics with counts per rule: text and
# JSON can say that; the CI formats are one entry per finding by definition.
STATISTICS_FORMATS = ("text", "json")


def _read_confirmations(path: Path | None) -> dict[str, Confirmation] | None:
    """Read before the scan: a bad file costs no analysis."""
    if path is None:
        return None
    from mmlint.core.confirmed import ConfirmedFileError, load_confirmations

    try:
        return load_confirmations(path)
    except ConfirmedFileError as error:
        raise ToolError(str(error)) from None


def _refuse_fix(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        raise click.UsageError("`check` does not rewrite files; use `mmlint fix`", ctx=ctx)


@click.command("check", cls=PathsCommand)
@scan_options
@output_options(FORMATS)
@click.option("--statistics", is_flag=True, help="Show counts per rule instead of each diagnostic.")
@click.option(
    "--baseline",
    "baseline_file",
    type=FILE_TYPE,
    help="Report only diagnostics not recorded in this baseline file (see `mmlint baseline`).",
)
@click.option(
    "--confirmed",
    "confirmed_file",
    type=FILE_TYPE,
    help="Mark findings with what `pytest --mmlint-confirm` measured (its mmlint-confirm.json): "
    "confirmed ones with the measurement, refuted ones as refuted.",
)
@click.option(
    "--drop-refuted",
    is_flag=True,
    help="With --confirmed: leave out the findings the confirm run refuted (ran on the loop, never blocked it).",
)
@stdin_filename_option
@click.option("--fix", is_flag=True, hidden=True, expose_value=False, callback=_refuse_fix)
@tool_errors
def command(
    paths: tuple[Path, ...],
    config_file: Path | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    quiet: bool,
    no_color: bool,
    exit_zero: bool,
    no_cache: bool,
    statistics: bool,
    baseline_file: Path | None,
    output_format: str,
    output: Path | None,
    stdin_filename: Path | None,
    confirmed_file: Path | None,
    drop_refuted: bool,
) -> None:
    """Report diagnostics for PATH (files or directories; default: the configured paths, else the cwd;
    `-`: the source on standard input)."""
    if statistics and output_format not in STATISTICS_FORMATS:
        raise click.UsageError(
            f"--statistics works with --format {' or '.join(STATISTICS_FORMATS)}, not {output_format}"
        )
    if drop_refuted and confirmed_file is None:
        raise click.UsageError("--drop-refuted needs --confirmed FILE")
    confirmations = _read_confirmations(confirmed_file)
    stdin = read_stdin(paths, stdin_filename)
    report = run_scan(
        paths, config_file, select, ignore, quiet=quiet, no_cache=no_cache, stdin=stdin, findings_only=True
    )
    refuse_output_over_input(output, paths, report)
    notes = []
    if baseline_file is not None:
        # Imported here: it imports the rules, which a run the results cache answers does not need.
        from mmlint.baseline import BaselineError, apply_baseline

        try:
            outcome = apply_baseline(report, baseline_file)
        except BaselineError as error:
            raise ToolError(str(error)) from None
        report = outcome.report
        notes.append(f"mmlint: {outcome.summary()}")
    if confirmations is not None:
        from mmlint.core.confirmed import apply_confirmations

        report = dataclasses.replace(
            report, diagnostics=apply_confirmations(report.diagnostics, confirmations, drop_refuted=drop_refuted)
        )
    render = get_reporter(output_format)
    # Only the terminal formats colour; asking rich costs a machine format's run its import.
    colored = output_format in ("text", "concise") and use_color(no_color, output)
    options = RenderOptions(color=colored, quiet=quiet, statistics=statistics)
    if output_format == "text":
        with stdin_on_disk(report, stdin) as shown_report:  # snippets of the input, not of a file on disk
            text = render(shown_report, dataclasses.replace(options, width=terminal_width(output)))
    elif output_format == "concise":
        text = render(report, dataclasses.replace(options, statistics=False))
    elif statistics:
        from mmlint.reporters.json_report import render_statistics

        text = render_statistics(report)
    else:
        text = render(report, RenderOptions(color=options.color))
    emit(text, output)
    if not quiet:
        for note in notes:
            click.echo(note, err=True)
    raise SystemExit(exit_code(bool(report.diagnostics), exit_zero))
