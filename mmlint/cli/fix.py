"""`mmlint fix [PATH ...]`: rewrite the fixable sites in place (or show / list
what would change with --diff / --check). Thin: builds settings, runs the check
engine, hands its report to mmlint.fix, prints a summary, picks the exit code."""

from __future__ import annotations

import dataclasses
import shutil
import sys
from pathlib import Path

import click

from mmlint.cli.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    read_stdin,
    run_scan,
    scan_options,
    stdin_filename_option,
    stdin_on_disk,
    tool_errors,
    use_color,
)
from mmlint.fix import FixRun, fix_report, unified_diff
from mmlint.fix.pipeline import fix_kind_of
from mmlint.fix.run import merge_rounds
from mmlint.reporters.escaping import visible, visible_path

MAX_FIX_ROUNDS = 5


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def exit_code_for(run: FixRun, *, dry_run: bool) -> int:
    """0 when everything fixable was (or, dry, would be nothing to) fix and nothing
    is left; 1 when a dry run would change a file, or sites, unparsable files or
    refused files remain."""
    if not run.clean:
        return EXIT_FINDINGS
    if dry_run and run.changed:
        return EXIT_FINDINGS
    return EXIT_CLEAN


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
            lines.append((f"  {visible_path(path)}:{site.span.line}:{site.span.column}: {site.code} {visible(site.reason)}", None))
    if suppressed:
        lines.append((f"Left alone because of a `# mmlint: ignore` comment: {_plural(suppressed, 'site')}.", None))
    untouched = run.untouched_by_errors
    if untouched:
        lines.append((f"{_plural(len(untouched), 'file')} left untouched because of errors.", "red"))
    if partly := len(run.errors) - len(untouched):
        lines.append((f"{_plural(partly, 'file')} fixed only in part because of errors.", "red"))
    return lines


@click.command("fix")
@scan_options
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of the fixes; write nothing.")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; list the files that would change.")
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
    stdin_filename: Path | None,
) -> None:
    """Rewrite sync-twin calls in async defs to `await <receiver>.<async twin>(...)`.

    Sites that cannot be fixed are listed with the reason and left as they are.
    With PATH `-`, the source on standard input is fixed to standard output.
    """
    stdin = read_stdin(paths, stdin_filename)
    if stdin is not None:
        _fix_stdin(stdin, paths, config_file, select, ignore, quiet=quiet, no_color=no_color, exit_zero=exit_zero,
                   no_cache=no_cache, show_diff=show_diff, check_only=check_only)
    report = run_scan(paths, config_file, select, ignore, quiet=quiet, no_cache=no_cache)
    dry_run = show_diff or check_only
    run = fix_report(report, write=not dry_run)
    if not dry_run:
        # A fix can leave something newly fixable (a suppression whose finding it
        # removed is now unused): go again until nothing changes, so that a second
        # `mmlint fix` is a no-op.
        rounds = [run]
        while rounds[-1].changed and len(rounds) < MAX_FIX_ROUNDS:
            report = run_scan(paths, config_file, select, ignore, quiet=True, no_cache=no_cache)
            rounds.append(fix_report(report, write=True))
        run = merge_rounds(rounds)

    if show_diff:
        for result in run.changed:
            click.echo(unified_diff(result), nl=False, color=False)
    mode = "diff" if show_diff else "check" if check_only else "write"
    color = use_color(no_color, None)
    suppressed = sum(1 for d in report.suppressed if fix_kind_of(d.code) == "call-rewrite")
    for text, colour in render_summary(run, mode=mode, quiet=quiet, suppressed=suppressed):
        # With --diff, stdout is the patch alone; the summary goes to stderr.
        click.echo(click.style(text, fg=colour) if colour and color else text, err=show_diff, color=color)
    raise SystemExit(EXIT_CLEAN if exit_zero else exit_code_for(run, dry_run=dry_run))


def _fix_stdin(stdin, paths, config_file, select, ignore, *, quiet: bool, no_color: bool, exit_zero: bool,
               no_cache: bool, show_diff: bool, check_only: bool) -> None:
    """`mmlint fix -`: the fixed source (or, with --diff, the patch; with --check,
    nothing) on stdout, and nothing else there: the summary goes to stderr.
    Rounds as for files, each on the previous round's output; nothing is written
    to disk, not even the file --stdin-filename names."""
    dry_run = show_diff or check_only
    source = stdin.data
    rounds = []
    while len(rounds) < (1 if dry_run else MAX_FIX_ROUNDS):
        current = dataclasses.replace(stdin, data=source)
        report = run_scan(paths, config_file, select, ignore, quiet=quiet or bool(rounds), no_cache=no_cache, stdin=current)
        with stdin_on_disk(report, current) as on_disk:
            rounds.append(fix_report(on_disk, write=False))
        if not rounds[-1].changed:
            break
        source = rounds[-1].changed[0].new
    run = merge_rounds(rounds)
    if show_diff:
        for result in run.changed:
            click.echo(unified_diff(result), nl=False, color=False)
    elif not check_only:
        sys.stdout.flush()
        sys.stdout.buffer.write(source)
        if not stdin.complete:  # refused, read only up to its size budget: the rest passes through as it comes
            shutil.copyfileobj(sys.stdin.buffer, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    mode = "diff" if show_diff else "check" if check_only else "write"
    color = use_color(no_color, None) and sys.stderr.isatty()
    suppressed = sum(1 for d in report.suppressed if fix_kind_of(d.code) == "call-rewrite")
    for text, colour in render_summary(run, mode=mode, quiet=quiet, suppressed=suppressed):
        click.echo(click.style(text, fg=colour) if colour and color else text, err=True, color=color)
    raise SystemExit(EXIT_CLEAN if exit_zero else exit_code_for(run, dry_run=dry_run))
