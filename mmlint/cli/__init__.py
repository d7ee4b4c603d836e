"""The command line: a thin click layer over the engine. Each command lives in
its own module; this one builds the group and maps outcomes to exit codes."""

from __future__ import annotations

import importlib

import click

from mmlint import __version__

# Commands, each in mmlint/cli/<module>.py exposing a click command named `command`.
COMMAND_MODULES = ("check", "fix", "audit", "baseline", "rules")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="mmlint", message="%(prog)s %(version)s")
def cli() -> None:
    """Find multimodal preprocessing that bypasses the worker pool or never yields."""


for _name in COMMAND_MODULES:
    try:
        _module = importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as error:
        if error.name != f"{__name__}.{_name}":
            raise
        continue
    for _command in getattr(_module, "commands", None) or (_module.command,):
        cli.add_command(_command)


def main() -> None:
    cli(prog_name="mmlint")
