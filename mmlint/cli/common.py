"""What every command shares: the options, building Settings from them, writing
the output, and mapping outcomes to exit codes 0 / 1 / 2 in one place."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar, overload

import click

from mmlint.config.load import ConfigError, parse_codes
from mmlint.config.resolve import ConfigResolver
from mmlint.core.write import write_report
from mmlint.core.report import AnalysedReport, Report
from mmlint.reporters.escaping import visible

if TYPE_CHECKING:
    from mmlint.api import StdinSource

P = ParamSpec("P")
R = TypeVar("R")
AnyReport = TypeVar("AnyReport", bound=Report)
Decorated = TypeVar("Decorated", bound=Callable[..., Any])

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class ToolError(click.ClickException):
    """The tool could not do its job (bad config, missing PATH): one line, exit 2."""

    exit_code = EXIT_ERROR

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"mmlint: error: {visible(self.format_message())}", err=True)


class PathsCommand(click.Command):
    """A command taking PATHs. After the ``--`` that ends its options every
    argument is a PATH, ``-`` too: there it names the file ``-`` (given on as
    its absolute path), never standard input. Hooks end their options so
    (pre-commit appends the staged files' names), and a file named like an
    option or ``-`` is then always a file."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        end = _end_of_options(self, ctx, args)
        if end is not None:
            cwd = str(logical_cwd())
            args = [*args[: end + 1], *(os.path.join(cwd, arg) if arg == "-" else arg for arg in args[end + 1 :])]
        return super().parse_args(ctx, args)


def _end_of_options(command: click.Command, ctx: click.Context, args: list[str]) -> int | None:
    """The index of the ``--`` that ends ``args``' options, or None. A ``--``
    given as an option's value (``--config --``) does not: the options before
    it then lack that value, which the parser says."""
    for index, arg in enumerate(args):
        if arg != "--":
            continue
        try:
            command.make_parser(ctx).parse_args(args[:index])
        except click.BadOptionUsage:
            continue
        except click.UsageError:
            pass  # the whole parse reports it
        return index
    return None


# Click does not check readability: mmlint does, when it reads, and says so in
# its own words ("mmlint: error: PATH: cannot read: Permission denied").
PATH_TYPE = click.Path(path_type=Path, readable=False)
FILE_TYPE = click.Path(path_type=Path, dir_okay=False, readable=False)

no_cache_option = click.option(
    "--no-cache",
    is_flag=True,
    help="Neither read nor write the cache of parsed files ($MMLINT_CACHE_DIR, else ~/.cache/mmlint): "
    "parse every file afresh. Also MMLINT_NO_CACHE=1.",
)


@overload
def run_scan(
    paths: Sequence[Path],
    config_file: Path | None,
    select: Sequence[str] | str | None,
    ignore: Sequence[str] | str | None,
    *,
    quiet: bool,
    no_cache: bool,
    stdin: StdinSource | None = None,
    findings_only: Literal[False] = False,
) -> AnalysedReport: ...


@overload
def run_scan(
    paths: Sequence[Path],
    config_file: Path | None,
    select: Sequence[str] | str | None,
    ignore: Sequence[str] | str | None,
    *,
    quiet: bool,
    no_cache: bool,
    stdin: StdinSource | None = None,
    findings_only: bool,
) -> Report: ...


def run_scan(
    paths: Sequence[Path],
    config_file: Path | None,
    select: Sequence[str] | str | None,
    ignore: Sequence[str] | str | None,
    *,
    quiet: bool,
    no_cache: bool,
    stdin: StdinSource | None = None,
    findings_only: bool = False,
) -> Report:
    """Build the configuration resolver from the options and run the check
    pipeline: what every scanning command (check, fix, audit, baseline) starts
    with. ``stdin``: an mmlint.api.StdinSource to check instead of PATHs;
    ``findings_only``: see mmlint.api.scan. The api is imported only here:
    a command that scans nothing never imports the engine."""
    from mmlint.api import scan
    from mmlint.core.paths import display_path

    resolver = build_resolver(config_file, select, ignore)
    cwd = logical_cwd()
    if not paths and resolver.for_cwd.config_file is None and not quiet:
        _point_at_configuration_below(cwd)
    report = scan(
        list(paths) or None,
        resolver,
        cwd,
        progress=show_progress(quiet),
        use_cache=not no_cache,
        stdin=stdin,
        findings_only=findings_only,
    )
    if report.cache_warning:  # even with --quiet: the user's cache is not safe to use
        warn_once(report.cache_warning)
    if quiet:  # diagnostics only, as ruff's --quiet (later fix rounds pass it too)
        return report
    for warning in report.discovery_warnings:
        warn(warning)
    if report.files_scanned:
        return report
    if paths and report.explicitly_excluded:
        count = len(report.explicitly_excluded)
        click.echo(
            f"mmlint: every input is excluded by the configuration ({count} file{'s' if count != 1 else ''})", err=True
        )
    else:
        scanned = [str(path) for path in paths] or [display_path(path, cwd) for path in resolver.for_cwd.paths] or ["."]
        warn(f"no Python files found under {' '.join(scanned)}")
    return report


def _point_at_configuration_below(cwd: Path) -> None:
    """No configuration governs a run with no PATH: say so when one lies a few
    levels below (sglang's python/pyproject.toml, seen from the checkout's root),
    with the two ways to use it."""
    from mmlint.api import configuration_below
    from mmlint.core.paths import display_path

    found = configuration_below(cwd)
    if found is None:
        return
    shown, directory = visible(display_path(found, cwd)), visible(display_path(found.parent, cwd))
    warn_once("no configuration here, so the whole tree below is scanned")
    click.echo(f"  {shown} holds [tool.mmlint]: run from {directory}/, or pass", err=True)
    click.echo(f"  --config {shown}", err=True)


def warn_once(message: str) -> None:
    """`mmlint: warning: ...` on stderr, once per command run (fix scans in rounds)."""
    context = click.get_current_context(silent=True)
    shown = context.find_root().meta.setdefault("mmlint.warnings", set()) if context else set()
    if message not in shown:
        shown.add(message)
        warn(message)


def warn(message: str) -> None:
    """`mmlint: warning: ...` on stderr; what comes from the repository (paths)
    is made visible, so no line can be split or forge a workflow command."""
    click.echo(f"mmlint: warning: {visible(message)}", err=True)


def scan_options(command: Callable[..., Any] | None = None, *, exit_zero: bool = True) -> Callable[..., Any]:
    """PATH arguments and the options that decide what is scanned and how.
    ``exit_zero=False`` leaves out --exit-zero, for a command that always exits 0.
    The options every scanning command treats alike (--extend-select, --exclude,
    --extend-exclude, --show-settings, --show-files) are taken here, so a
    command's own signature names only what it uses."""
    if command is None:
        return functools.partial(scan_options, exit_zero=exit_zero)

    @functools.wraps(command)
    def with_shared_options(*args: Any, extend_select: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
                            extend_exclude: tuple[str, ...] = (), force_paths: bool = False,
                            show_settings: bool = False, show_files: bool = False, **kwargs: Any) -> Any:  # fmt: skip
        context = click.get_current_context()
        context.meta[_OVERRIDES] = _GlobAndCodeOverrides(
            extend_select=_split_values(extend_select),
            exclude=_split_values(exclude) if exclude else None,
            extend_exclude=_split_values(extend_exclude),
            force_paths=force_paths,
        )
        if show_settings or show_files:
            from mmlint.cli.show import show_files as list_files, show_settings as describe

            paths, config_file = kwargs["paths"], kwargs["config_file"]
            resolver = build_resolver(config_file, kwargs.get("select"), kwargs.get("ignore"))
            (describe if show_settings else list_files)(resolver, list(paths), logical_cwd())
            raise SystemExit(EXIT_CLEAN)
        return command(*args, **kwargs)

    decorators = [
        click.argument("paths", nargs=-1, type=PATH_TYPE),
        click.option(
            "--config",
            "config_file",
            type=FILE_TYPE,
            help="Configuration file for every file (pyproject.toml [tool.mmlint], mmlint.toml); "
            "default: the closest one at or above each file.",
        ),
        click.option(
            "--select",
            multiple=True,
            help="Codes or prefixes to report, comma separated or repeated (replaces the configured select).",
        ),
        click.option(
            "--extend-select",
            multiple=True,
            help="Codes or prefixes to report besides the configured select, comma separated or repeated.",
        ),
        click.option(
            "--ignore",
            multiple=True,
            help="Codes or prefixes not to report, comma separated or repeated (added to the configured ignore).",
        ),
        click.option(
            "--exclude",
            multiple=True,
            help="Globs of files to leave out, relative to the current directory, comma separated or "
            "repeated (replaces the configured exclude; the default excludes stay).",
        ),
        click.option(
            "--extend-exclude",
            multiple=True,
            help="Globs of files to leave out besides the configured ones, comma separated or repeated.",
        ),
        click.option(
            "--force-paths",
            is_flag=True,
            help="Leave out files named explicitly that lie outside the configured paths, as the "
            "pre-commit hooks do (`exclude` always binds them; ruff's --force-exclude).",
        ),
        click.option(
            "--show-settings",
            is_flag=True,
            help="Print the settings that govern the first PATH (else the current directory) and exit.",
        ),
        click.option("--show-files", is_flag=True, help="Print the files that would be checked and exit."),
        click.option("--quiet", "-q", is_flag=True, help="Print diagnostics only: no summary."),
        click.option("--no-color", is_flag=True, help="Plain output, even on a terminal."),
        *(
            [click.option("--exit-zero", is_flag=True, help="Exit 0 even when diagnostics are found.")]
            if exit_zero
            else []
        ),
        no_cache_option,
    ]
    for decorator in reversed(decorators):
        with_shared_options = decorator(with_shared_options)
    return with_shared_options


_OVERRIDES = "mmlint.overrides"


@dataclasses.dataclass(frozen=True)
class _GlobAndCodeOverrides:
    """The command line's layer over every configuration, beside --select / --ignore."""

    extend_select: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None  # None: keep the configured exclude
    extend_exclude: tuple[str, ...] = ()
    force_paths: bool = False  # the configured `paths` bind files named explicitly


def _split_values(values: Iterable[str]) -> tuple[str, ...]:
    """Repeated options, each possibly comma separated, as one tuple of values."""
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


STDIN = Path("-")

stdin_filename_option = click.option(
    "--stdin-filename",
    type=PATH_TYPE,
    help="With PATH `-` (standard input): the path the source stands for, which need not exist; "
    "its configuration, exemptions and context apply, and reports name it.",
)


def read_stdin(paths: Sequence[Path], stdin_filename: Path | None) -> StdinSource | None:
    """The source on standard input when PATH is `-` (alone), else None."""
    from mmlint.api import StdinSource

    if STDIN not in paths:
        if stdin_filename is not None:
            raise click.UsageError("--stdin-filename needs PATH `-` (the source on standard input)")
        return None
    if len(paths) != 1:
        raise click.UsageError("`-` (standard input) cannot be combined with other PATHs")
    # Read no further than one byte past the size budget of the configuration
    # that governs the file standing for the input: a larger input is refused
    # (MM999) without being held whole. The command's own --config decides it.
    context = click.get_current_context(silent=True)
    config_file = context.params.get("config_file") if context is not None else None
    stands_for = Path(os.path.abspath(logical_cwd() / (stdin_filename or "-")))
    limit = build_resolver(config_file, (), ()).settings_for(stands_for).budgets.max_file_size
    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit:
        return StdinSource(data, stdin_filename, complete=False)
    return StdinSource(data, stdin_filename)


@contextlib.contextmanager
def stdin_on_disk(report: AnyReport, stdin: StdinSource | None) -> Iterator[AnyReport]:
    """``report`` with standard input's file backed by a scratch copy of its
    bytes while the block runs: reporters (snippets) and the fixer read files,
    and the file standing for the input may differ from it or not exist."""
    if stdin is None or not report.file_paths:
        yield report
        return
    with tempfile.TemporaryDirectory(prefix="mmlint-stdin-") as scratch_dir:
        ((shown, real),) = report.file_paths.items()
        scratch = Path(scratch_dir) / (real.name if real.name.endswith((".py", ".pyi")) else "stdin.py")
        scratch.write_bytes(stdin.data)
        yield dataclasses.replace(report, file_paths={shown: scratch})


def output_options(formats: tuple[str, ...]) -> Callable[[Decorated], Decorated]:
    """--format (one of ``formats``) and --output."""

    def decorate(command: Decorated) -> Decorated:
        command = click.option(
            "--output", "-o", "output", type=FILE_TYPE, help="Write the report to FILE instead of stdout."
        )(command)
        return click.option(
            "--format",
            "--output-format",
            "output_format",
            type=click.Choice(formats),
            default="text",
            show_default=True,
            help="Report format.",
        )(command)

    return decorate


def logical_cwd() -> Path:
    """The working directory as the shell names it ($PWD), so that paths reached
    through a symbolic link are shown relative to it, as the user typed them."""
    pwd = os.environ.get("PWD")
    try:
        if pwd and os.path.isabs(pwd) and os.path.samefile(pwd, os.curdir):
            return Path(pwd)
    except OSError:
        pass
    return Path.cwd()


def build_resolver(
    config_file: Path | None, select: Sequence[str] | str | None, ignore: Sequence[str] | str | None
) -> ConfigResolver:
    """Each file's configuration (``--config``: one for all), with the command
    line's ``select`` / ``ignore`` over each (repeated options accumulate), and
    the shared options of ``scan_options`` when a command took them."""
    cwd = logical_cwd()
    select = (select,) if isinstance(select, str) else tuple(select or ())
    ignore = (ignore,) if isinstance(ignore, str) else tuple(ignore or ())
    context = click.get_current_context(silent=True)
    overrides = context.meta.get(_OVERRIDES) if context is not None else None
    overrides = overrides if overrides is not None else _GlobAndCodeOverrides()
    try:
        return ConfigResolver(
            cwd,
            config_file,
            select=parse_codes(",".join(select), "--select") if select else None,
            ignore=parse_codes(",".join(ignore), "--ignore") if ignore else None,
            extend_select=parse_codes(",".join(overrides.extend_select), "--extend-select")
            if overrides.extend_select
            else None,
            exclude=overrides.exclude,
            extend_exclude=overrides.extend_exclude or None,
            force_paths=overrides.force_paths,
        )
    except ConfigError as error:
        raise ToolError(str(error)) from None


def _is_discovery_error(error: Exception) -> bool:
    """A PATH that does not exist or cannot be read (mmlint.api.DiscoveryError).
    The command line reaches discovery only through mmlint.api, imported only
    by a command that scans: when it was not imported, no such error was raised
    (so `--version` and `rules` import no engine to ask)."""
    api = sys.modules.get("mmlint.api")
    return api is not None and isinstance(error, api.DiscoveryError)


def tool_errors(function: Callable[P, R]) -> Callable[P, R]:
    """Turn bad input met while running (a PATH that vanished, an unreadable
    configuration) into a one-line message and exit code 2, never a traceback."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return function(*args, **kwargs)
        except ConfigError as error:
            raise ToolError(str(error)) from None
        except Exception as error:
            if _is_discovery_error(error):
                raise ToolError(str(error)) from None
            raise

    return wrapper


def refuse_output_over_input(output: Path | None, paths: Sequence[Path], report: Report) -> None:
    """``-o`` naming a file the run reads would replace a source with a report:
    a usage error before anything is written."""
    if output is None:
        return
    target = os.path.realpath(output)
    inputs = [*paths, *report.file_paths.values()]
    if report.settings.config_file is not None:
        inputs.append(report.settings.config_file)
    if any(os.path.realpath(path) == target for path in inputs):
        raise click.UsageError(f"--output {output} names one of the inputs; choose another file")


def show_progress(quiet: bool) -> bool:
    """Permission for a progress bar; mmlint.check.progress decides whether one fits
    (a terminal, not CI, a scan large enough to need one)."""
    return not quiet


def emit(text: str, output: Path | None) -> None:
    """Print to stdout, or write FILE atomically (never half-written). The text is
    printed as the reporter made it: whether it holds colour was decided once,
    by ``use_color`` (so FORCE_COLOR reaches a pipe, which click would strip)."""
    if output is None:
        try:
            click.echo(text, nl=False, color=True)
        except OSError as error:
            from mmlint.cli import drop_stdout

            drop_stdout()
            raise ToolError(
                f"cannot write the report to standard output: {error.strerror or error}; "
                "free some space or write it with --output FILE"
            ) from None
        return
    try:
        write_report(Path(os.path.abspath(output)), text.encode("utf-8"))
    except OSError as error:
        raise ToolError(f"cannot write {output}: {error.strerror or error}") from None


def exit_code(has_findings: bool, exit_zero: bool) -> int:
    return EXIT_FINDINGS if has_findings and not exit_zero else EXIT_CLEAN
