"""`mmlint audit`: which processors really yield to the event loop, and which
bypass the worker pool, per file."""

from __future__ import annotations

from pathlib import Path

import click

from mmlint.audit import AUDIT_FORMATS, build_audit, render
from mmlint.cli.common import build_settings, emit, output_options, scan_options, show_progress, tool_errors, use_color
from mmlint.engine import run_check


@click.command("audit")
@scan_options
@output_options(AUDIT_FORMATS)
@tool_errors
def command(paths, config_file, select, ignore, quiet, no_color, exit_zero, output_format, output):
    """Inventory of twin call sites and suspension behaviour for PATH (default: the configured paths, else the cwd).

    One row per file with a twin call or an async def, worst first. An
    inventory, not a check: the exit code is 0 unless the tool cannot run (2).
    """
    settings = build_settings(config_file, select, ignore)
    report = run_check(list(paths) or None, settings, Path.cwd(), progress=show_progress(quiet))
    audit = build_audit(report)
    emit(render(audit, output_format, color=use_color(no_color, output)), output)
    raise SystemExit(0)
