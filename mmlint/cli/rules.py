"""`mmlint rules` and `mmlint explain CODE`: the rules' own documentation."""

from __future__ import annotations

import io

import click
from rich.console import Console
from rich.table import Table

from mmlint.cli.common import ToolError
from mmlint.cli.terminal import terminal_width
from mmlint.docs import render_rule_text
from mmlint.rules import all_rules, rule_by_code


@click.command("rules")
@click.option("--no-color", is_flag=True, help="Plain output, even on a terminal.")
def rules_command(no_color: bool) -> None:
    """List the rules: code, name, fixable, one-line summary."""
    table = Table(box=None, pad_edge=False, show_edge=False)
    for column in ("code", "name", "fixable", "summary"):
        table.add_column(column, no_wrap=column != "summary")
    for rule in all_rules():
        table.add_row(rule.code, rule.name, "yes" if rule.fixable else "no", rule.summary)
    width = terminal_width(None)
    if width is not None:  # a terminal (or COLUMNS): wrap the summaries to fit
        Console(no_color=no_color, highlight=False, soft_wrap=False).print(table)
        return
    # Piped: one rule a line, never wrapped, no padding after the last column (taken from the recording).
    console = Console(no_color=True, highlight=False, soft_wrap=False, width=10_000, record=True, file=io.StringIO())
    console.print(table)
    click.echo("".join(line.rstrip() + "\n" for line in console.export_text().splitlines()), nl=False)


@click.command("explain")
@click.argument("code")
def explain_command(code: str) -> None:
    """Print a rule's documentation with its bad and good examples."""
    rule = rule_by_code(code.strip().upper())
    if rule is None:
        known = ", ".join(r.code for r in all_rules())
        raise ToolError(f"unknown rule code {code!r}; known codes: {known}")
    click.echo(render_rule_text(rule), nl=False)


commands = (rules_command, explain_command)
