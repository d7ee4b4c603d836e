"""GitHub Actions workflow commands: one ``::error`` line per diagnostic, which
the runner turns into an annotation on the pull request's diff."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mmlint.core.diagnostics import Diagnostic
from mmlint.reporters.escaping import visible
from mmlint.reporters.levels import level_of
from mmlint.reporters.options import PLAIN, RenderFields, RenderOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from mmlint.core.report import Report

# GitHub's own escaping (actions/toolkit, command.ts): the message may hold any
# text except the three characters that would end or corrupt the command;
# property values also must not hold the separators of the property list.
_MESSAGE_ESCAPES = (("%", "%25"), ("\r", "%0D"), ("\n", "%0A"))
_PROPERTY_ESCAPES = _MESSAGE_ESCAPES + ((":", "%3A"), (",", "%2C"))


def escape_message(text: str) -> str:
    """Escape the data part of a workflow command (after ``::``)."""
    for raw, escaped in _MESSAGE_ESCAPES:  # "%" first, so later escapes stay intact
        text = text.replace(raw, escaped)
    # CR and LF round-trip through GitHub's own escapes; any other control
    # character (an ANSI sequence would recolour the log) is made visible.
    return visible(text)


def escape_property(text: str) -> str:
    """Escape a property value of a workflow command (``file=...``, ``title=...``)."""
    for raw, escaped in _PROPERTY_ESCAPES:
        text = text.replace(raw, escaped)
    return visible(text)


def format_command(diagnostic: Diagnostic) -> str:
    """The workflow command that annotates one diagnostic."""
    span = diagnostic.span
    properties = (
        ("file", diagnostic.path),
        ("line", str(span.line)),
        ("col", str(span.column)),
        ("endLine", str(span.end_line)),
        ("endColumn", str(span.end_column)),
        ("title", f"{diagnostic.code} {diagnostic.name}"),
    )
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    # The annotation shows the message first, the advice on a line below it.
    text = diagnostic.message + (f"\nhelp: {diagnostic.help}" if diagnostic.help else "")
    if diagnostic.confirmation is not None:
        text += f"\n{diagnostic.confirmation.describe()}"
    return f"::{level_of(diagnostic.code)} {joined}::{escape_message(text)}"


def render(report: "Report", options: RenderOptions = PLAIN, /, **overrides: Unpack[RenderFields]) -> str:
    """All diagnostics of ``report`` as workflow commands, one per line.

    ``color`` is ignored: the runner parses these lines, it does not show them."""
    return "".join(format_command(diagnostic) + "\n" for diagnostic in report.diagnostics)
