"""The command line: a thin click layer over the engine. Each command lives in
its own module; this one builds the group and maps outcomes to exit codes."""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType
from typing import Any

import click

from mmlint import __version__
from mmlint.core.gc_tuning import collect_less_often
from mmlint.reporters.escaping import visible

# Command name -> the module of mmlint/cli/ that defines it. A module is
# imported only when its command runs (or --help lists them), so
# `mmlint --version` and `mmlint rules` import neither libcst nor the engine.
COMMANDS = {
    "check": "check",
    "fix": "fix",
    "audit": "audit",
    "graph": "graph",
    "baseline": "baseline",
    "rules": "rules",
    "explain": "rules",
    "clean": "clean",
    "server": "server",
}


class MmlintGroup(click.Group):
    """Every error the command line reports reads ``mmlint: error: ...``,
    click's usage errors (a bad option, a missing argument) included.
    Commands are loaded on first use (see COMMANDS)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module = importlib.import_module(f"{__name__}.{COMMANDS[name]}")
        for command in getattr(module, "commands", None) or (module.command,):
            if isinstance(command, click.Command) and command.name == name:
                return command
        return None

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as error:
            click.echo(f"mmlint: error: {visible(error.format_message())}", err=True)
            if error.ctx is not None:
                help_option = error.ctx.help_option_names[0]
                click.echo(f"Try '{error.ctx.command_path} {help_option}' for help.", err=True)
            raise SystemExit(error.exit_code) from None
        except click.ClickException as error:
            click.echo(f"mmlint: error: {visible(error.format_message())}", err=True)
            raise SystemExit(error.exit_code) from None
        except click.Abort:
            click.echo("mmlint: interrupted", err=True)
            raise SystemExit(130) from None
        except MemoryError:
            click.echo(
                "mmlint: error: out of memory; check fewer files at a time (PATH ...), "
                "lower MMLINT_JOBS or give mmlint more memory",
                err=True,
            )
            raise SystemExit(2) from None
        except OSError as error:
            # A write that failed with no file named: standard output (emit says so
            # itself; this catches the other writes to it, such as fix --diff).
            if error.filename is not None or error.errno not in _OUTPUT_ERRNOS:
                raise
            drop_stdout()
            click.echo(f"mmlint: error: cannot write to standard output: {error.strerror or error}", err=True)
            raise SystemExit(2) from None
        if standalone_mode:
            raise SystemExit(result if isinstance(result, int) else 0)
        return result


# The errors of a write whose target cannot take it: a full disk or quota, a
# file too large, a closed pipe, a device error.
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EPIPE, errno.EIO})


def drop_stdout() -> None:
    """After a failed write to standard output: what it still holds is dropped
    (it now leads to the null device), so the interpreter's last flush at exit
    does not fail again with a traceback of its own."""
    stream = sys.stdout
    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)


@click.group(cls=MmlintGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="mmlint", message="%(prog)s %(version)s")
def cli() -> None:
    """Find multimodal preprocessing that bypasses the worker pool or never yields."""


class Stopped(BaseException):
    """A signal asked mmlint to stop. Not an Exception, so no `except Exception`
    on the way up swallows it, and not a KeyboardInterrupt, which click would
    turn into "Aborted!" and exit 1; every `finally` and the worker pool's
    clean-up run on the way to main()."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


# What main() prints for each signal it turns into Stopped; the exit code is
# 128 + the signal number, as shells report a process killed by it.
STOP_SIGNALS: dict[int, str] = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


def _raise_stopped(signum: int, _frame: FrameType | None) -> None:
    raise Stopped(signum)


def main() -> None:
    collect_less_often()
    for signum in STOP_SIGNALS:
        signal.signal(signum, _raise_stopped)
    try:
        cli(prog_name="mmlint")
    except Stopped as stop:
        click.echo(f"mmlint: {STOP_SIGNALS[stop.signum]}", err=True)
        raise SystemExit(128 + stop.signum) from None
    except Exception as error:  # a bug of ours: one line, exit 2, the traceback on request
        if os.environ.get("MMLINT_DEBUG"):
            raise
        click.echo(
            f"mmlint: internal error: {type(error).__name__}: {visible(str(error))} "
            "(set MMLINT_DEBUG=1 for the traceback, and please report it)",
            err=True,
        )
        raise SystemExit(2) from None
