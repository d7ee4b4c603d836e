"""`--format concise`: one line per finding, `path:line:col: CODE message`
(ruff's concise format), then the summary line of the text format. Never
wrapped: one finding, one line, for grep and editors' error parsers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mmlint.reporters.escaping import visible, visible_path
from mmlint.reporters.text import output, summary
from mmlint.reporters.options import PLAIN, RenderFields, RenderOptions, options_of

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from mmlint.core.report import Report


def render(report: "Report", options: RenderOptions = PLAIN, /, **overrides: Unpack[RenderFields]) -> str:
    options = options_of(options, overrides)
    color, quiet = options.color, options.quiet
    out = output(color)
    style, esc = out.style, out.escape
    for d in report.diagnostics:
        location = f"{visible_path(d.path)}:{d.span.line}:{d.span.column}:"
        measured = f" ({visible(d.confirmation.describe())})" if d.confirmation is not None else ""
        out.print(f"{style(esc(location), 'bold')} {style(d.code, 'bold red')} {esc(visible(d.message) + measured)}")
    if not quiet:
        out.print(esc(summary(report)))
    return out.text()
