"""`mmlint fix [PATH ...]`: rewrite the fixable sites in place (or show / list
what would change with --diff / --check). Thin: builds settings, runs the check
engine, hands its report to mmlint.fix, prints a summary, picks the exit code."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mmlint.fix import FixRun, fix_report, unified_diff

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _run_engine(paths: tuple[Path, ...], config: Path | None, select: str | None, ignore: str | None):
    """Settings and the check report, exactly as `check` builds them; a usage or
    configuration problem becomes a one-line click error with exit code 2."""
    from mmlint.config import ConfigError, load_settings, parse_codes
    from mmlint.discovery import DiscoveryError
    from mmlint.engine import run_check

    cwd = Path.cwd()
    try:
        settings = load_settings(
            cwd,
            config,
            select=parse_codes(select, "--select") if select is not None else None,
            ignore=parse_codes(ignore, "--ignore") if ignore is not None else None,
        )
        return run_check(list(paths) or None, settings, cwd)
    except (ConfigError, DiscoveryError) as error:
        raise _UsageProblem(str(error)) from None


class _UsageProblem(click.ClickException):
    exit_code = EXIT_ERROR

    def show(self, file=None) -> None:
        click.echo(f"mmlint: error: {self.format_message()}", err=True)


def exit_code_for(run: FixRun, *, dry_run: bool) -> int:
    """0 when everything fixable was (or, dry, would be nothing to) fix and nothing
    is left; 1 when a dry run would change a file, or sites, unparsable files or
    refused files remain."""
    if not run.clean:
        return EXIT_FOUND
    if dry_run and run.changed:
        return EXIT_FOUND
    return EXIT_OK


def render_summary(run: FixRun, *, mode: str, quiet: bool) -> list[tuple[str, str | None]]:
    """The summary as (line, colour) pairs; ``mode`` is "write", "diff" or "check"."""
    lines: list[tuple[str, str | None]] = []
    if mode == "check" and not quiet:
        for result in run.changed:
            lines.append((f"Would fix: {result.path} ({_plural(len(result.fixed), 'site')})", None))
    for result in run.errors:
        lines.append((f"{result.path}: error: {result.error}", "red"))
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
        lines.append((f"Left {_plural(len(unfixed), 'site')} as they are:", "yellow"))
        for path, site in unfixed:
            lines.append((f"  {path}:{site.span.line}:{site.span.column}: {site.code} {site.reason}", None))
    if run.errors:
        lines.append((f"{_plural(len(run.errors), 'file')} left untouched because of errors.", "red"))
    return lines


@click.command("fix")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--config", "config", type=click.Path(path_type=Path), help="Configuration file to use.")
@click.option("--select", help="Comma separated codes or prefixes to enable (replaces the configured select).")
@click.option("--ignore", help="Comma separated codes or prefixes to disable.")
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of the fixes; write nothing.")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; list the files that would change.")
@click.option("--quiet", "-q", is_flag=True, help="Print only errors (and the diff with --diff).")
@click.option("--no-color", is_flag=True, help="Plain output without colours.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when sites are left or files would change.")
def command(
    paths: tuple[Path, ...],
    config: Path | None,
    select: str | None,
    ignore: str | None,
    show_diff: bool,
    check_only: bool,
    quiet: bool,
    no_color: bool,
    exit_zero: bool,
) -> None:
    """Rewrite sync-twin calls in async defs to `await <receiver>.<async twin>(...)`."""
    report = _run_engine(paths, config, select, ignore)
    dry_run = show_diff or check_only
    run = fix_report(report, write=not dry_run)
    color = False if no_color else None

    if show_diff:
        for result in run.changed:
            click.echo(unified_diff(result), nl=False, color=False)
    mode = "diff" if show_diff else "check" if check_only else "write"
    for text, colour in render_summary(run, mode=mode, quiet=quiet):
        styled = click.style(text, fg=colour) if colour else text
        # With --diff, stdout is the patch alone; the summary goes to stderr.
        click.echo(styled, err=show_diff, color=color)
    code = EXIT_OK if exit_zero else exit_code_for(run, dry_run=dry_run)
    sys.stdout.flush()
    raise SystemExit(code)
