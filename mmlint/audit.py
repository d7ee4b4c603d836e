"""`mmlint audit`: an inventory of twin call sites and suspension behaviour per
file, computed as plain values from a check Report and rendered as a rich
table, JSON or a Markdown table for a pull request."""

from __future__ import annotations

import io
import json
import textwrap
from collections import Counter
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Literal

from rich.text import Text

from mmlint.analysis import ALWAYS, NEVER, NOT_JUDGED, SOME, Judgement
from mmlint.analysis.twin_presence import MISSING
from mmlint.analysis.twins import Twin, TwinCall
from mmlint.analysis.weight import UNKNOWN_WEIGHT, Weight, WeightKind
from mmlint.core.report import AnalysedReport, twins_in_play
from mmlint.facts.outcome import ParseFailure
from mmlint.reporters.escaping import visible, visible_path
from mmlint.reporters.markup import styled
from mmlint.reporters.markup import text as markup_text

if TYPE_CHECKING:  # rich's console is imported when rendering
    from rich.console import Console, RenderableType

    from mmlint.analysis.project import Project
    from mmlint.facts.model import CallSite

AUDIT_FORMATS = ("text", "json", "markdown")


@dataclass(frozen=True)
class AuditRow:
    path: str
    sync_calls: int  # calls of a sync twin (the base-class delegation included)
    async_calls: int  # calls of an async twin
    unawaitable_calls: int  # twin calls in a scope that cannot await
    bypassing_calls: int  # sync twin calls that bypass the worker pool (delegation excluded)
    async_defs: int
    always: int  # async defs that suspend on every path
    some: int  # ... on some paths
    never: int  # ... never (the not-judged defs are not counted here)
    not_judged: int  # abstract methods, stub bodies and async generators
    hollow_awaits: int  # awaits of coroutines that never suspend (MM004)

    @property
    def severity(self) -> int:
        """How much is wrong here: what the worst-first order sorts by."""
        return self.bypassing_calls + self.unawaitable_calls + self.never + self.hollow_awaits


@dataclass(frozen=True)
class AuditTotals:
    files: int
    sync_calls: int
    async_calls: int
    unawaitable_calls: int
    bypassing_calls: int
    async_defs: int
    always: int
    some: int
    never: int
    not_judged: int
    hollow_awaits: int
    # Twins are configured beyond the default pair or called in the scan: only
    # then does the summary speak of the worker pool.
    twins_in_play: bool = True

    def summary(self) -> str:
        pool = (
            f"{self.bypassing_calls} call site{'s bypass' if self.bypassing_calls != 1 else ' bypasses'} the worker pool; "
            if self.twins_in_play
            else ""
        )
        return (
            f"{pool}{self.never} of {self.async_defs} async defs never suspend; "
            f"{self.hollow_awaits} hollow await{'s' if self.hollow_awaits != 1 else ''}"
        )


@dataclass(frozen=True)
class AuditDef:
    """One async def of a target file: its verdict, its weight when it never
    suspends, and the blocking chains its calls of scanned sync code start."""

    path: str
    line: int
    qualname: str
    verdict: Judgement
    weight: WeightKind | Literal[""]  # for a def that never suspends, else ""
    reason: str  # why heavy, else ""
    blocking: tuple[str, ...]  # "`wait_for_service` at b.py:3 → `requests.get`", one per call
    # For an unknown weight: why the first unknown callee's receiver could not
    # be typed ("`proc` is a parameter with no annotation"), "" when not said.
    unknown_because: str = ""

    def describe(self) -> list[str]:
        weight = f", {self.weight}" if self.weight else ""
        reason = f" ({self.reason})" if self.reason else ""
        lines = [f"{self.path}:{self.line} {self.qualname}: {self.verdict}{weight}{reason}"]
        if self.unknown_because:
            lines.append(f"    unknown because {self.unknown_because}")
        return lines + [f"    blocks: {chain}" for chain in self.blocking]


@dataclass(frozen=True)
class TwinCallRow:
    """A call of a discovered pair's sync member from async code."""

    path: str
    line: int
    column: int
    function: str  # qualname of the async def the call is in


@dataclass(frozen=True)
class TwinRow:
    """A discovered twin pair (MM010) and its contract."""

    sync: str
    async_: str
    sync_defined: str  # "path:line"
    async_defined: str
    accepts_same_arguments: bool
    arguments_problem: str | None
    suspends: Judgement
    calls: tuple[TwinCallRow, ...]  # from async defs in the target files


@dataclass(frozen=True)
class Audit:
    rows: tuple[AuditRow, ...]  # worst first
    totals: AuditTotals
    # Target files that could hold a finding but did not parse (MM999): not in
    # the rows, and said so, so that the inventory never looks complete when it is not.
    unparsed: tuple[str, ...] = ()
    defs: tuple[AuditDef, ...] = ()  # every async def of the target files, in file order
    twins: tuple[TwinRow, ...] = ()  # discovered pairs (empty when auto-twins is off)
    # Twins defined by assignment through a `twin-wrappers` call:
    # (path, sync name, async name, wrapper), e.g. `X_async = make_async(X, ...)`.
    assigned_twins: tuple[tuple[str, str, str, str], ...] = ()
    # Configured pairs whose async twin does not exist where their sync twin
    # is called (MM001 stays silent there): (sync name, async name, calls).
    missing_twins: tuple[tuple[str, str, int], ...] = ()

    def missing_twin_notes(self) -> list[str]:
        return [
            f"note: {calls} call{'s' if calls != 1 else ''} of `{sync}` {'are' if calls != 1 else 'is'} made where no"
            f" `{async_}` exists (the scanned code defines the sync twin only): not MM001, nothing to rewrite to"
            for sync, async_, calls in self.missing_twins
        ]

    def unparsed_note(self) -> str | None:
        if not self.unparsed:
            return None
        count = len(self.unparsed)
        return (
            f"{count} file{'s' if count != 1 else ''} could not be parsed and "
            f"{'are' if count != 1 else 'is'} not in the table (see `mmlint check`): "
            + ", ".join(visible(path) for path in self.unparsed)
        )


def build_audit(report: AnalysedReport) -> Audit:
    """One row per target file with a twin call or an async def, worst first."""
    project = report.project
    analysis = project.suspension
    hollow = Counter(h.path for h in analysis.hollow_awaits(frozenset(project.targets)))
    rows = []
    for path in sorted(project.targets):
        facts = project.files.get(path)
        if facts is None:
            continue
        sites = facts.call_sites
        verdicts: Counter[str] = Counter()
        not_judged = 0
        async_defs = len(facts.async_defs)
        for key in analysis.defs_by_path.get(path, ()):
            verdict = analysis.classify(key)
            if verdict == NOT_JUDGED:
                not_judged += 1
            else:
                verdicts[verdict] += 1
        if not sites and not async_defs:
            continue
        rows.append(
            AuditRow(
                path=path,
                sync_calls=sum(1 for s in sites if not s.is_async_twin),
                async_calls=sum(1 for s in sites if s.is_async_twin),
                unawaitable_calls=sum(1 for s in sites if not s.awaitable),
                bypassing_calls=sum(
                    1 for s in sites if not s.is_async_twin and not s.delegation and not _no_twin(project, path, s)
                ),
                async_defs=async_defs,
                always=verdicts[ALWAYS],
                some=verdicts[SOME],
                never=verdicts[NEVER],
                not_judged=not_judged,
                hollow_awaits=hollow[path],
            )
        )
    rows.sort(key=lambda row: (-row.severity, row.path))
    totals = AuditTotals(
        files=len(rows),
        **{
            name: sum(getattr(row, name) for row in rows)
            for name in (
                "sync_calls",
                "async_calls",
                "unawaitable_calls",
                "bypassing_calls",
                "async_defs",
                "always",
                "some",
                "never",
                "not_judged",
                "hollow_awaits",
            )
        },
        twins_in_play=twins_in_play(report),
    )
    unparsed = tuple(sorted(path for path in report.file_paths if isinstance(report.outcomes.get(path), ParseFailure)))
    return Audit(
        tuple(rows),
        totals,
        unparsed,
        _audit_defs(report),
        _twin_rows(report),
        _assigned_twins(report),
        _missing_twins(report),
    )


def _no_twin(project: Project, path: str, site: CallSite) -> bool:
    """A sync-twin call on a receiver where the async twin does not exist: it bypasses no pool."""
    return (
        project.twin_presence.of_call(path, site.owner, site.receiver, site.pair.async_, site.pair.sync).state
        == MISSING
    )


def _missing_twins(report: AnalysedReport) -> tuple[tuple[str, str, int], ...]:
    """Calls of a configured sync twin, in the target files, on a receiver where
    the async twin does not exist, counted per pair."""
    project = report.project
    counts: Counter[tuple[str, str]] = Counter()
    for path in sorted(project.targets):
        facts = project.files.get(path)
        for site in facts.call_sites if facts is not None else ():
            if not site.is_async_twin and not site.delegation and _no_twin(project, path, site):
                counts[(site.pair.sync, site.pair.async_)] += 1
    return tuple((sync, async_, calls) for (sync, async_), calls in sorted(counts.items()))


def _audit_defs(report: AnalysedReport) -> tuple[AuditDef, ...]:
    """Verdict, weight and blocking chains of every async def of the targets:
    the same classification MM003, MM004 and MM005 read."""
    project = report.project
    analysis = project.suspension
    weights = project.weight(report.settings.heavy_calls)
    found = []
    for path in sorted(project.targets):
        for key in analysis.defs_by_path.get(path, ()):
            info = analysis.defs[key]
            weight = weights.weight(key)
            found.append(
                AuditDef(
                    path=path,
                    line=info.line,
                    qualname=info.qualname,
                    verdict=analysis.classify(key),
                    weight="" if weight is None else weight.kind,
                    reason=""
                    if weight is None
                    else unknown_reason(weight)
                    if weight.kind == UNKNOWN_WEIGHT
                    else weight.reason,
                    blocking=tuple(chain.describe() for _, chain in weights.chains_of(key)),
                    unknown_because=weight.why if weight is not None and weight.kind == UNKNOWN_WEIGHT else "",
                )
            )
    return tuple(found)


def render_defs(audit: Audit) -> str:
    """`audit --show-defs`: one line per async def (verdict, weight and why),
    then a line per blocking chain its calls start."""
    return "".join(visible(line) + "\n" for entry in audit.defs for line in entry.describe())


def _twin_rows(report: AnalysedReport) -> tuple[TwinRow, ...]:
    """Each discovered pair defined or called in the target files, with its
    calls from async code there and whether the async twin fits."""
    settings = report.settings
    if not settings.auto_twins:
        return ()
    project = report.project
    excluded = frozenset(name for pair in settings.twins for name in (pair.sync, pair.async_))
    analysis = project.twins(tuple(settings.twin_patterns), excluded, tuple(settings.twin_wrappers))
    calls: dict[Twin, list[TwinCall]] = {}
    for path in sorted(project.targets):
        if path in project.files:
            for twin_call in analysis.calls_in(path):
                calls.setdefault(twin_call.twin, []).append(twin_call)
    rows = []
    for twin in analysis.pairs():
        if twin not in calls and twin.sync[0] not in project.targets and twin.async_[0] not in project.targets:
            continue
        contract = analysis.contract(twin)
        rows.append(
            TwinRow(
                sync=twin.sync_name,
                async_=twin.async_name,
                sync_defined=f"{twin.sync[0]}:{analysis.sync_def(twin).line}",
                async_defined=f"{twin.async_[0]}:{analysis.async_line(twin)}",
                accepts_same_arguments=contract.arguments_problem is None,
                arguments_problem=contract.arguments_problem,
                suspends=contract.verdict,
                calls=tuple(
                    TwinCallRow(
                        c.path, c.call.span.line, c.call.span.column, analysis.suspension.defs[c.enclosing].qualname
                    )
                    for c in calls.get(twin, ())
                ),
            )
        )
    return tuple(rows)


def _twin_json(row: TwinRow) -> dict[str, object]:
    data = asdict(row)
    data["async"] = data.pop("async_")
    return data


# ---------------------------------------------------------------- rendering

# "not judged": abstract methods, stub bodies and async generators, so that
# always + some + never + not judged = async defs.
_HEADERS = (
    "file",
    "sync",
    "async",
    "unawaitable",
    "async defs",
    "always",
    "some",
    "never",
    "not judged",
    "hollow awaits",
)


def _cells(row: AuditRow | AuditTotals, label: str) -> tuple[str, ...]:
    return (
        label,
        str(row.sync_calls),
        str(row.async_calls),
        str(row.unawaitable_calls),
        str(row.async_defs),
        str(row.always),
        str(row.some),
        str(row.never),
        str(row.not_judged),
        str(row.hollow_awaits),
    )


# Wide enough that no row of an inventory ever wraps (rich needs a number).
_UNBOUNDED_WIDTH = 100_000

# Version 2: the per-file and total key "stubs" became "not_judged", the
# table's own words.
AUDIT_JSON_VERSION = 2


def render_json(audit: Audit) -> str:
    data = {
        "version": AUDIT_JSON_VERSION,
        "files": [asdict(row) for row in audit.rows],
        "totals": asdict(audit.totals),
        "summary": audit.totals.summary(),
        "unparsed": list(audit.unparsed),
        "defs": [asdict(entry) for entry in audit.defs],
        "twins": [_twin_json(row) for row in audit.twins],
        "assigned_twins": [
            {"path": path, "sync": sync, "async": async_, "wrapper": wrapper}
            for path, sync, async_, wrapper in audit.assigned_twins
        ],
        "missing_twins": [
            {"sync": sync, "async": async_, "calls": calls} for sync, async_, calls in audit.missing_twins
        ],
    }
    return json.dumps(data, indent=2) + "\n"


def _markdown_code(path: str) -> str:
    """A path as inline code in a table cell: visible, and with the cell
    separator and backticks unable to end the cell or the code span."""
    shown = visible(path).replace("|", "\\|")
    return f"`` {shown} ``" if "`" in shown else f"`{shown}`"


def render_markdown(audit: Audit, *, quiet: bool = False) -> str:
    """A GitHub-flavoured Markdown table, ready to paste into a pull request."""
    lines = [
        "| " + " | ".join(_HEADERS) + " |",
        "|" + "|".join([" --- "] + [" ---: "] * (len(_HEADERS) - 1)) + "|",
    ]
    for row in audit.rows:
        cells = _cells(row, _markdown_code(row.path))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("| " + " | ".join(f"**{cell}**" for cell in _cells(audit.totals, "total")) + " |")
    if audit.twins:
        lines += [
            "",
            "| " + " | ".join(_TWIN_HEADERS) + " |",
            "|" + "|".join([" --- "] * (len(_TWIN_HEADERS) - 1) + [" ---: "]) + "|",
        ]
        for twin in audit.twins:
            twin_cells = [_markdown_code(cell) if index < 4 else cell for index, cell in enumerate(_twin_cells(twin))]
            lines.append("| " + " | ".join(twin_cells) + " |")
    if not quiet:
        lines += ["", audit.totals.summary()]
    lines += [line for twin_note in audit.missing_twin_notes() for line in ("", twin_note)]
    if note := audit.unparsed_note():
        lines += ["", note]
    return "\n".join(lines) + "\n"


# The discovered twin pairs (MM010), one row each.
_TWIN_HEADERS = ("sync twin", "defined", "async twin", "defined", "same arguments", "suspends", "calls from async code")


def _twin_cells(twin: TwinRow) -> tuple[str, ...]:
    return (
        twin.sync,
        twin.sync_defined,
        twin.async_,
        twin.async_defined,
        "yes" if twin.accepts_same_arguments else f"no: {twin.arguments_problem}",
        twin.suspends,
        str(len(twin.calls)),
    )


def twin_groups(twins: tuple[TwinRow, ...], width: int | None = None) -> list[str]:
    """The discovered pairs grouped by what distinguishes them (whether the
    async one suspends, whether it takes the same arguments), one line per
    group with its sync calls from async code: `audit`'s default, so that a
    package's forty near-identical pairs take a few lines. The sync members
    called from async code (MM010's findings) are named, wrapped to ``width``."""
    groups: dict[tuple[str, bool], list[TwinRow]] = {}
    for twin in twins:
        groups.setdefault((twin.suspends, twin.accepts_same_arguments), []).append(twin)
    count = len(twins)
    lines = [f"{count} twin pair{'s' if count != 1 else ''} (MM010) by their async member; --show-twins lists each"]
    for (suspends, same), rows in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
        calls = sum(len(row.calls) for row in rows)
        verdict = {"some": "suspend on some paths", "never": "never suspend", "always": "suspend always"}
        arguments = "same arguments" if same else "other arguments"
        lines.append(
            f"  {len(rows):>3} {verdict.get(suspends, 'not judged')}, {arguments}: "
            f"{calls} sync call{'s' if calls != 1 else ''} from async code"
        )
    called = sorted((twin for twin in twins if twin.calls), key=lambda row: (-len(row.calls), row.sync))
    if called:
        names = ", ".join(
            visible(twin.sync) + (f" ×{len(twin.calls)}" if len(twin.calls) > 1 else "") for twin in called
        )
        text = f"sync members called from async code: {names}"
        lines.extend(
            textwrap.wrap(
                text,
                (width or _UNBOUNDED_WIDTH) - 2,
                initial_indent="  ",
                subsequent_indent="    ",
                break_long_words=False,
                break_on_hyphens=False,
            )  # fmt: skip
        )
    return lines


def render_text(
    audit: Audit, *, color: bool, width: int | None = None, quiet: bool = False, show_twins: bool = False
) -> str:
    """The inventory for a person: ``width`` is the terminal's, or None when the
    output is not a terminal.

    Piped, the tables are plain aligned columns at their natural width, no box
    and no padding after the last column, so a file or `less -S` holds them
    whole. On a terminal the boxed table is drawn when it fits; when it cannot
    fit without breaking a path, each file is stacked instead: its path on a
    line of its own, its numbers on short labelled lines beneath. A path is
    never broken or cut."""
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=color, no_color=not color, width=width or _UNBOUNDED_WIDTH, highlight=False
    )
    shown = audit if show_twins else replace(audit, twins=())
    if width is None:
        _print_plain_tables(console, shown)
    elif not _print_boxed_table(console, shown, width):
        _print_stacked(console, shown, width)
    if audit.twins and not show_twins:
        for line in twin_groups(audit.twins, width):
            console.print(markup_text(line), soft_wrap=width is None)
    if not quiet:
        console.print(audit.totals.summary(), soft_wrap=width is None)
    for twin_note in audit.missing_twin_notes():
        console.print(markup_text(twin_note), soft_wrap=width is None)
    if note := audit.unparsed_note():
        console.print(markup_text(note), style="bold red", soft_wrap=width is None)
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


# Where a non-zero count is a problem (highlighted): sync calls (bypassing
# the pool), unawaitable calls, defs that never suspend, hollow awaits.
_PROBLEM_COLUMNS = (1, 3, 7, 9)


def _row_cells(audit: Audit) -> list[tuple[AuditRow | AuditTotals, list[str]]]:

    rows: list[tuple[AuditRow | AuditTotals, list[str]]] = [
        (row, list(_cells(row, markup_text(visible_path(row.path))))) for row in audit.rows
    ]
    rows.append((audit.totals, list(_cells(audit.totals, "total"))))
    return rows


def _highlighted(row: AuditRow | AuditTotals, cells: list[str]) -> list[str]:
    values = (row.bypassing_calls, row.unawaitable_calls, row.never, row.hollow_awaits)
    for index, value in zip(_PROBLEM_COLUMNS, values):
        if value and not isinstance(row, AuditTotals):
            cells[index] = styled(cells[index], "bold red")
    return cells


def _print_plain_tables(console: Console, audit: Audit) -> None:
    from rich.table import Table

    table = Table(box=None, pad_edge=False, show_edge=False, title="mmlint audit", title_justify="left")
    for index, header in enumerate(_HEADERS):
        table.add_column(header, no_wrap=True, justify="left" if index == 0 else "right")
    for row, cells in _row_cells(audit):
        table.add_row(*_highlighted(row, cells), style="bold" if isinstance(row, AuditTotals) else None)
    console.print(table, crop=False)
    if audit.twins:
        pairs = Table(box=None, pad_edge=False, show_edge=False, title="twin pairs (MM010)", title_justify="left")
        for index, header in enumerate(_TWIN_HEADERS):
            pairs.add_column(header, no_wrap=True, justify="right" if index == len(_TWIN_HEADERS) - 1 else "left")
        for twin in audit.twins:
            pairs.add_row(*[markup_text(visible(cell)) for cell in _twin_cells(twin)])
        console.print(pairs, crop=False)


def _print_boxed_table(console: Console, audit: Audit, width: int) -> bool:
    """The boxed table, when it fits ``width`` without breaking a path (headers may
    wrap between words); False, printing nothing, when it cannot."""
    from rich.cells import cell_len
    from rich.table import Table

    rows = _row_cells(audit)
    table = Table(title="mmlint audit", show_footer=False)
    minimum = 1  # the left border; each column adds its width, padding and right border
    for index, header in enumerate(_HEADERS):
        column = [Text.from_markup(cells[index]).cell_len for _, cells in rows]
        narrowest = max(column + [max(len(word) for word in header.split())])
        minimum += narrowest + 3
        table.add_column(header, no_wrap=index == 0, justify="left" if index == 0 else "right", min_width=narrowest)
    if minimum > width:
        return False
    for row, cells in rows:
        if isinstance(row, AuditTotals):
            table.add_section()
        table.add_row(*_highlighted(row, cells), style="bold" if isinstance(row, AuditTotals) else None)
    console.width = width
    # rich can overshoot its width by a cell or two when it honours the minimum
    # widths: narrow the layout until the table fits.
    for _ in range(4):
        widest = max((cell_len(line) for line in _plain_lines(console, table)), default=0)
        if widest <= width or console.width <= minimum:
            break
        console.width = max(minimum, console.width - (widest - width))
    console.print(table, crop=False)
    console.width = width
    if audit.twins:
        pairs = Table(title="twin pairs (MM010)")
        for index, header in enumerate(_TWIN_HEADERS):
            pairs.add_column(header, justify="right" if index == len(_TWIN_HEADERS) - 1 else "left")
        for twin in audit.twins:
            pairs.add_row(*[markup_text(visible(cell)) for cell in _twin_cells(twin)])
        console.print(pairs, crop=False)
    return True


def _print_stacked(console: Console, audit: Audit, width: int) -> None:
    """Each file as its path on a line of its own and labelled lines beneath,
    wrapped to ``width`` between words (a path is never broken: it has a line
    to itself, or is one word of its own)."""
    from rich.table import Table

    def details(rows: list[tuple[str, str]]) -> Table:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True)
        grid.add_column(overflow="fold")
        for label, value in rows:
            grid.add_row(f"  {label}", value)
        return grid

    console.width = width
    console.print("[bold]mmlint audit[/]")
    for row, cells in _row_cells(audit):
        cells = _highlighted(row, cells)
        hollow = f"{cells[9]} hollow await{'' if row.hollow_awaits == 1 else 's'}"
        console.print()
        console.print(styled(cells[0], "bold"), soft_wrap=True)
        console.print(details([
            ("twin calls", f"{cells[1]} sync, {cells[2]} async, {cells[3]} unawaitable"),
            ("async defs", f"{cells[4]}: {cells[5]} always, {cells[6]} some, {cells[7]} never, {cells[8]} not judged; {hollow}"),
        ]))  # fmt: skip
    for twin in audit.twins:
        sync, sync_at, async_, async_at, _, suspends, calls = (markup_text(visible(cell)) for cell in _twin_cells(twin))
        arguments = (
            "the same" if twin.accepts_same_arguments else markup_text(visible(f"differ: {twin.arguments_problem}"))
        )
        console.print()
        console.print(f"[bold]twin pair[/] {sync} / {async_}: the async one suspends {suspends}; "
                      f"{calls} sync call{'' if calls == '1' else 's'} from async code")  # fmt: skip
        console.print(details([("sync", sync_at), ("async", async_at), ("arguments", arguments)]))
    console.print()


def _plain_lines(console: Console, renderable: RenderableType) -> list[str]:
    """The lines ``renderable`` takes at the console's width, uncropped, unstyled."""
    with console.capture() as captured:
        console.print(renderable, crop=False, style=None)
    return Text.from_ansi(captured.get()).plain.splitlines()


def render(
    audit: Audit,
    output_format: str,
    *,
    color: bool = False,
    width: int | None = None,
    quiet: bool = False,
    show_twins: bool = False,
) -> str:
    """``quiet`` leaves out the summary line (the table, or the data, stays);
    ``show_twins``: every discovered pair in full in the text format (else grouped;
    JSON and Markdown always hold each)."""
    if output_format == "json":
        return render_json(audit)
    if output_format == "markdown":
        return render_markdown(audit, quiet=quiet)
    return render_text(audit, color=color, width=width, quiet=quiet, show_twins=show_twins)


def unknown_reason(weight: Weight) -> str:
    """Why a coroutine's weight is unknown: the callee mmlint cannot see into
    (AuditDef.unknown_because says why, when the resolver does)."""
    return f"calls `{weight.reason}(...)`, which mmlint cannot resolve, so not judged heavy"


def _assigned_twins(report: AnalysedReport) -> tuple[tuple[str, str, str, str], ...]:
    """Twins the target files define by assignment through a configured wrapper."""
    wrappers = set(report.settings.twin_wrappers)
    return tuple(
        (path, sync, async_, wrapper)
        for path in sorted(report.project.targets)
        if path in report.project.files
        for sync, async_, wrapper in report.project.files[path].assigned_twins
        if wrapper in wrappers
    )
