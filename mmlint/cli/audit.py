"""`mmlint audit`: which processors really yield to the event loop, and which
bypass the worker pool, per file."""

from __future__ import annotations


import click

from mmlint.audit import AUDIT_FORMATS, build_audit, render
from mmlint.cli.common import emit, output_options, run_scan, scan_options, tool_errors, use_color


@click.command("audit")
@scan_options
@output_options(AUDIT_FORMATS)
@tool_errors
def command(paths, config_file, select, ignore, quiet, no_color, exit_zero, no_cache, output_format, output):
    """Inventory of twin call sites and suspension behaviour for PATH (default: the configured paths, else the cwd).

    One row per file with a twin call or an async def, worst first. An
    inventory, not a check: the exit code is 0 unless the tool cannot run (2).
    """
    report = run_scan(paths, config_file, select, ignore, quiet=quiet, no_cache=no_cache)
    audit = build_audit(report)
    emit(render(audit, output_format, color=use_color(no_color, output)), output)
    raise SystemExit(0)
