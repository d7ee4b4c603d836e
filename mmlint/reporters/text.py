"""`--format text`: `path:line:col: CODE message`, the source line with the span
marked, the chain as `= note:` lines and the advice as `= help:` lines (ruff's
full format), and a summary. Colour through rich on a terminal; plain otherwise."""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console

from mmlint.reporters import markup

from mmlint.core.diagnostics import Diagnostic
from mmlint.core.report import twins_in_play
from mmlint.reporters.escaping import visible, visible_path
from mmlint.reporters.snippets import line_of
from mmlint.reporters.options import PLAIN, RenderFields, RenderOptions, options_of

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from mmlint.core.report import Report


def render(report: "Report", options: RenderOptions = PLAIN, /, **overrides: Unpack[RenderFields]) -> str:
    """``options.width``: the terminal's, to wrap the help text to; None (piped) never wraps."""
    options = options_of(options, overrides)
    color, quiet, statistics, width = options.color, options.quiet, options.statistics, options.width
    out = output(color)
    if statistics:
        _statistics(out, report)
    else:
        for diagnostic in report.diagnostics:
            out.print("\n".join(_diagnostic_lines(out, diagnostic, _real_path(report, diagnostic.path), width)))
    if not quiet:
        line = summary(report)
        out.print("\n".join(out.escape(part) for part in ([line] if width is None else wrap_words(line, width))))
    return out.text()


class _PlainOut:
    """Uncoloured output, written as it is: what rich prints for the same
    lines without colour (styles dropped, escapes undone), at a fraction of
    its cost per diagnostic (a warm check's report of a whole package)."""

    def __init__(self) -> None:
        self._parts: list[str] = []

    def style(self, text: str, style: str) -> str:
        return text

    def escape(self, text: str) -> str:
        return text

    def print(self, text: str) -> None:
        self._parts.append(text + "\n")

    def text(self) -> str:
        return "".join(self._parts)


class _RichOut:
    """Coloured output through rich's markup."""

    def __init__(self) -> None:
        self._buffer = io.StringIO()
        self._console = Console(
            file=self._buffer,
            force_terminal=True,
            highlight=False,
            soft_wrap=True,
            width=200,
            color_system="standard",
            emoji=False,
        )

    def style(self, text: str, style: str) -> str:
        return markup.styled(text, style)

    def escape(self, text: str) -> str:
        return markup.text(text)

    def print(self, text: str) -> None:
        # One print per diagnostic: rich's print costs far more per call than per line.
        self._console.print(text)

    def text(self) -> str:
        return self._buffer.getvalue()


_Out = _PlainOut | _RichOut


def output(color: bool) -> _Out:
    """Where a text-like reporter writes: through rich's markup with colour, else plain."""
    return _RichOut() if color else _PlainOut()


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def summary(report: "Report") -> str:
    scanned = _plural(report.files_scanned, "file") + " scanned"
    if twins_in_play(report):
        scanned += f", {_plural(report.call_sites, 'twin call site')}"
    count = len(report.diagnostics)
    if not count:
        return f"All checks passed ({scanned})."
    fixable = sum(d.fixable for d in report.diagnostics)
    fix_note = f", {fixable} fixable with `mmlint fix`" if fixable else ""
    return f"Found {_plural(count, 'diagnostic')}{fix_note} ({scanned})."


def _real_path(report: "Report", shown: str) -> Path | None:
    real = report.file_paths.get(shown)
    if real is not None:
        return real
    candidate = Path(shown)
    return candidate if candidate.is_file() else None


def _diagnostic_lines(out: _Out, d: Diagnostic, real: Path | None, width: int | None = None) -> list[str]:
    style, esc = out.style, out.escape
    heading = "\n".join(_heading_lines(out, d, width))
    notes = (
        _chain_notes(out, d, width)
        + _related_notes(out, d, width)
        + _help_lines(out, d, width)
        + _confirmation_lines(out, d)
    )
    source = line_of(real, d.span.line)
    if source is None:
        return [heading, *notes]
    gutter = len(str(d.span.line))
    source = source.expandtabs(1)  # one column per character, so the marks line up
    start = d.span.column - 1
    if d.span.end_line == d.span.line:
        end = d.span.end_column - 1
    else:  # the span goes on below: mark the callee through its "(", not a trailing comment
        paren = source.find("(", start)
        end = paren + 1 if paren >= 0 else len(source.rstrip())
    # Columns are code points; the terminal draws cells: a wide character (CJK,
    # most emoji) takes two, an escaped control character several.
    indent = cell_len(visible(source[:start]))
    marked = max(1, cell_len(visible(source[start : max(start, end)])))
    bar = style("|", "blue")
    return [
        heading,
        f"{' ' * gutter} {bar}",
        f"{style(f'{d.span.line} |', 'blue')} {esc(visible(source))}",
        f"{' ' * gutter} {bar} {' ' * indent}{style('^' * marked, 'bold red')}",
        *([f"{' ' * gutter} {bar}"] if notes else []),
        *notes,
        "",
    ]


_HEADING_INDENT = "    "


def _heading_lines(out: _Out, d: Diagnostic, width: int | None) -> list[str]:
    """`path:line:col: CODE [*] message` (the fix mark where ruff puts it);
    past ``width`` the message goes on below, indented, broken between words
    (never inside a name or a path)."""
    style, esc = out.style, out.escape
    location = f"{visible_path(d.path)}:{d.span.line}:{d.span.column}:"
    head = f"{style(esc(location), 'bold')} {style(d.code, 'bold red')}"
    plain_head = f"{location} {d.code}"
    if d.fixable:
        head += " " + style(esc("[*]"), "bold cyan")
        plain_head += " [*]"
    message = visible(d.message)
    if width is None or len(plain_head) + 1 + len(message) <= width:
        return [f"{head} {esc(message)}"]
    first: list[str] = []
    words = _WORD.findall(message)
    used = len(plain_head)
    while words and used + 1 + len(words[0]) <= width:
        used += 1 + len(words[0])
        first.append(words.pop(0))
    lines = [f"{head} {esc(' '.join(first))}" if first else head]
    if words:
        rest = wrap_words(" ".join(words), max(width - len(_HEADING_INDENT), 20))
        lines.extend(_HEADING_INDENT + esc(line) for line in rest)
    return lines


def _chain_notes(out: _Out, d: Diagnostic, width: int | None = None) -> list[str]:
    """The chain to the costliest call, one step a line; a step too long for
    ``width`` goes on below, broken between words (before its `at path:line`)."""
    if len(d.chain) < 2:
        return []
    lines: list[str] = []
    for index, step in enumerate(d.chain):
        lead = f"  {out.style('= note', 'cyan')}: " if index == 0 else f"{_HELP_INDENT}→ "
        room = None if width is None else max(width - len(_HELP_PREFIX) - (0 if index == 0 else 2), 20)
        first, *rest = [visible(step)] if room is None else wrap_words(visible(step), room)
        lines.append(lead + out.escape(first))
        lines.extend(_HELP_INDENT + ("" if index == 0 else "  ") + out.escape(part) for part in rest)
    return lines


def _confirmation_lines(out: _Out, d: Diagnostic) -> list[str]:
    """What a confirm run measured (`check --confirmed`)."""
    if d.confirmation is None:
        return []
    status, _, rest = d.confirmation.describe().partition(": ")
    return [f"  {out.style(f'= {status}', 'bold magenta')}: {out.escape(visible(rest))}"]


def _related_notes(out: _Out, d: Diagnostic, width: int | None = None) -> list[str]:
    """Each related location (the coroutine a finding's call runs in, the
    awaits of it) as a `= note:` line: where, then what; past ``width`` the
    rest goes on below, broken between words."""
    lines: list[str] = []
    for r in d.related:
        text = f"{visible(visible_path(r.path))}:{r.span.line}:{r.span.column}: {visible(r.message)}"
        room = None if width is None else max(width - len(_HELP_PREFIX), 20)
        first, *rest = [text] if room is None else wrap_words(text, room)
        lines.append(f"  {out.style('= note', 'cyan')}: {out.escape(first)}")
        lines.extend(_HELP_INDENT + out.escape(part) for part in rest)
    return lines


_HELP_PREFIX = "  = help: "
_HELP_INDENT = " " * len(_HELP_PREFIX)


def _help_lines(out: _Out, d: Diagnostic, width: int | None) -> list[str]:
    """The help text after `= help:`, wrapped between words to ``width`` (a path
    or a quoted name is never broken); on one line when ``width`` is None."""
    if not d.help:
        return []
    text = visible(d.help)
    lines = [text] if width is None else wrap_words(text, max(width - len(_HELP_PREFIX), 20))
    first, *rest = (out.escape(line) for line in lines)
    return [f"  {out.style('= help', 'cyan')}: {first}", *(f"{_HELP_INDENT}{line}" for line in rest)]


# A word: a run of characters other than blanks, where `quoted code` counts
# as one character, so a quoted call is never broken across lines.
_WORD = re.compile(r"(?:`[^`]*`|[^\s`]|`)+")


def wrap_words(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken only between
    words; a word longer than ``width`` (a path, a long quoted call) has a line
    of its own."""
    lines: list[str] = []
    line = ""
    for word in _WORD.findall(text):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines or [""]


def _statistics(out: _Out, report: "Report") -> None:
    counts = Counter((d.code, d.name) for d in report.diagnostics)
    fixable = Counter(d.code for d in report.diagnostics if d.fixable)
    for (code, name), count in sorted(counts.items()):
        mark = " [*]" if fixable[code] else ""
        out.print(f"{count:>6}  {code}  {name}{out.escape(mark)}")
