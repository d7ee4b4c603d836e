"""`mmlint fix [PATH ...]`: rewrite the fixable sites in place (or show / list
what would change with --diff / --check). Thin: builds settings, runs the check
engine, hands its report to mmlint.fix, prints a summary, picks the exit code."""

from __future__ import annotations

import dataclasses
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mmlint.cli.common import (
    PathsCommand,
    EXIT_CLEAN,
    EXIT_FINDINGS,
    FILE_TYPE,
    ToolError,
    logical_cwd,
    read_stdin,
    run_scan,
    scan_options,
    stdin_filename_option,
    tool_errors,
)
from mmlint.cli.terminal import use_color
from mmlint.fix import FixRun, unified_diff
from mmlint.fix.pipeline import fix_kind_of
from mmlint.fix.run import MAX_FIX_ROUNDS, fix_in_rounds, named_links, remove_old_leftovers
from mmlint.reporters.escaping import visible, visible_path

if TYPE_CHECKING:
    from mmlint.api import StdinSource
    from mmlint.core.report import AnalysedReport


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def exit_code_for(run: FixRun, *, dry_run: bool, exit_zero: bool = False, exit_non_zero_on_fix: bool = False) -> int:
    """As ruff's: a dry run (--diff, --check) exits 1 when a file would change;
    a run that writes exits 1 when unfixable sites or unparsable files remain
    (not with --exit-zero, which leaves them to `check`), and, with
    --exit-non-zero-on-fix, when it changed a file. Either way 1 when the fix
    could not do its job for some file (refused by the verifier, not written,
    still changing after the last round): that is never hidden."""
    if run.errors or run.stopped_after:
        return EXIT_FINDINGS
    if dry_run:
        return EXIT_FINDINGS if run.changed else EXIT_CLEAN
    if exit_non_zero_on_fix and run.changed:
        return EXIT_FINDINGS
    if exit_zero:
        return EXIT_CLEAN
    return EXIT_CLEAN if run.clean else EXIT_FINDINGS


def render_summary(run: FixRun, *, mode: str, quiet: bool, suppressed: int = 0) -> list[tuple[str, str | None]]:
    """The summary as (line, colour) pairs; ``mode`` is "write", "diff" or "check"."""
    lines: list[tuple[str, str | None]] = []
    if mode == "check" and not quiet:
        for result in run.changed:
            lines.append((f"Would fix: {visible(result.path)} ({_plural(len(result.fixed), 'site')})", None))
    for result in run.errors:
        lines.append((f"{visible_path(result.path)}: error: {visible(str(result.error))}", "red"))
    if quiet:
        return lines
    verb = "Fixed" if mode == "write" else "Would fix"
    changed = run.changed
    if changed:
        lines.append((f"{verb} {_plural(run.sites_fixed, 'site')} in {_plural(len(changed), 'file')}.", "green"))
    else:
        lines.append(("Nothing to fix.", None))
    unfixed = run.unfixed
    if unfixed:
        lines.append((f"Not fixed, left as written ({_plural(len(unfixed), 'site')}):", "yellow"))
        for path, site in unfixed:
            lines.append(
                (
                    f"  {visible_path(path)}:{site.span.line}:{site.span.column}: {site.code} {visible(site.reason)}",
                    None,
                )
            )
    if suppressed:
        lines.append((f"Left alone because of a `# mmlint: ignore` comment: {_plural(suppressed, 'site')}.", None))
    if run.already_fixed:
        lines.append(
            (f"Already fixed by another run, nothing to write: {_plural(len(run.already_fixed), 'file')}.", None)
        )
    if run.replanned:
        count = _plural(len(run.replanned), "file")
        lines.append((f"Changed on disk while being fixed, so planned again from what they hold now: {count}.", None))
    untouched = run.untouched_by_errors
    if untouched:
        lines.append((f"{_plural(len(untouched), 'file')} left untouched because of errors.", "red"))
    if partly := len(run.errors) - len(untouched):
        lines.append((f"{_plural(partly, 'file')} fixed only in part because of errors.", "red"))
    return lines


@click.command("fix", cls=PathsCommand)
@scan_options
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of the fixes; write nothing.")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; list the files that would change.")
@click.option(
    "--exit-non-zero-on-fix",
    is_flag=True,
    help="Exit 1 when a file was changed, even if nothing is left to report (as ruff).",
)
@click.option(
    "--baseline",
    "baseline_file",
    type=FILE_TYPE,
    help="Leave the sites recorded in this baseline file (see `mmlint baseline`) as they are.",
)
@stdin_filename_option
@tool_errors
def command(
    paths: tuple[Path, ...],
    config_file: Path | None,
    select: str | None,
    ignore: str | None,
    quiet: bool,
    no_color: bool,
    exit_zero: bool,
    no_cache: bool,
    show_diff: bool,
    check_only: bool,
    exit_non_zero_on_fix: bool,
    baseline_file: Path | None,
    stdin_filename: Path | None,
) -> None:
    """Rewrite sync-twin calls in async defs to `await <receiver>.<async twin>(...)`.

    Sites that cannot be fixed are listed with the reason and left as they are.
    With PATH `-`, the source on standard input is fixed to standard output.
    Exits 1 when unfixable sites remain (0 with --exit-zero, as the pre-commit
    hook runs it: they are `check`'s to report).
    """
    stdin = read_stdin(paths, stdin_filename)
    exits = {"exit_zero": exit_zero, "exit_non_zero_on_fix": exit_non_zero_on_fix}
    links = named_links(paths, logical_cwd()) if stdin is None else {}  # before the walk: links named now

    def scan(buffers: Mapping[str, bytes], *, quiet: bool) -> AnalysedReport:
        # Standard input is scanned as what the rounds so far made of it.
        source = stdin if stdin is None else dataclasses.replace(stdin, data=next(iter(buffers.values()), stdin.data))
        report: AnalysedReport = run_scan(
            paths, config_file, select, ignore, quiet=quiet, no_cache=no_cache, stdin=source
        )
        return _without_baselined(report, baseline_file)

    report = scan({}, quiet=quiet)
    dry_run = show_diff or check_only
    if not dry_run and stdin is None:
        for leftover in remove_old_leftovers(report, links):
            click.echo(
                f"mmlint: warning: removed {visible_path(leftover)}, a temporary file an interrupted "
                "`mmlint fix` left behind",
                err=True,
            )
    # Standard input is fixed from its bytes, never written: its rounds go on over the fixed buffer.
    buffers = {path: stdin.data for path in report.file_paths} if stdin is not None else {}
    run, report = fix_in_rounds(
        report,
        lambda now: scan(now, quiet=True),
        write=not dry_run,
        links=links,
        max_rounds=MAX_FIX_ROUNDS,
        buffers=buffers,
    )
    if show_diff:
        for result in run.changed:
            click.echo(unified_diff(result), nl=False, color=False)
    elif stdin is not None and not check_only:
        _echo_fixed_stdin(stdin, run)
    mode = "diff" if show_diff else "check" if check_only else "write"
    # With --diff, stdout is the patch alone, and with `-` the fixed source: the summary goes to stderr.
    to_stderr = show_diff or stdin is not None
    color = use_color(no_color, None) and (stdin is None or sys.stderr.isatty())
    suppressed = sum(1 for d in report.suppressed if fix_kind_of(d) == "call-rewrite")
    for text, colour in render_summary(run, mode=mode, quiet=quiet, suppressed=suppressed):
        click.echo(click.style(text, fg=colour) if colour and color else text, err=to_stderr, color=color)
    _say_if_stopped(run)
    raise SystemExit(exit_code_for(run, dry_run=dry_run, **exits))


def _echo_fixed_stdin(stdin: StdinSource, run: FixRun) -> None:
    """`mmlint fix -`: the fixed source on stdout, and nothing else there; nothing
    is written to disk, not even the file --stdin-filename names."""
    sys.stdout.flush()
    sys.stdout.buffer.write(run.changed[0].new if run.changed else stdin.data)
    if not stdin.complete:  # refused, read only up to its size budget: the rest passes through as it comes
        shutil.copyfileobj(sys.stdin.buffer, sys.stdout.buffer)
    sys.stdout.buffer.flush()


def _without_baselined(report: AnalysedReport, baseline_file: Path | None) -> AnalysedReport:
    """``report`` less the diagnostics the baseline records: the fixer leaves them."""
    if baseline_file is None:
        return report
    from mmlint.baseline import BaselineError, apply_baseline

    try:
        return apply_baseline(report, baseline_file).report
    except BaselineError as error:
        raise ToolError(str(error)) from None


def _say_if_stopped(run: FixRun) -> None:
    if run.stopped_after:
        click.echo(
            f"mmlint: error: fix stopped after {run.stopped_after} rounds with files still changing; "
            "run it again to go on",
            err=True,
        )
