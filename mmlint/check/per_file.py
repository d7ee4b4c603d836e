"""One file, from bytes to an outcome value: skipped by the prefilter, skipped by
`# mmlint: skip-file`, failed to parse, or parsed into facts. Never raises for
bad input, and takes and returns only plain data, so it can run in a worker
process and its result can be cached by content hash."""

from __future__ import annotations

import ast
import contextlib
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from mmlint.check.cost import estimate, is_risky, over_budget, over_size_budget
from mmlint.check.deep_stack import keep_one_thread, run_deep
from mmlint.check.limits import OVER_TIME_SIGNAL, enforced, prepare_process
from mmlint.config.settings import Budgets
from mmlint.core.diagnostics import Span
from mmlint.core.gc_tuning import collect_less_often
from mmlint.core.source import DecodeError, decode_source, indentation_view, round_trips
from mmlint.facts.anchors import Anchor, anchors_of, python_tree_of, statement_anchors
from mmlint.facts.lean import LeanView, lean_view
from mmlint.facts.light import LightFields, light_fields
from mmlint.facts.model import FileFacts
from mmlint.core.twins import TwinPair
from mmlint.facts.outcome import FileOutcome, Parsed, ParseFailure, Unparsed
from mmlint.facts.suppressions import parse_suppressions

if TYPE_CHECKING:
    import libcst as cst

    from mmlint.check.workers import WorkerDeath

_in_worker = False  # this process is a worker (prepare_worker ran): budgets are enforced on it
# libcst's trees of the last texts parsed, by text, most recent last (remember_parses); None: none kept.
_parses: dict[str, cst.Module] | None = None
_PARSES_KEPT = 8


class FileTask(NamedTuple):
    """analyse_file's arguments for one file: its bytes and what besides them decides its outcome."""

    data: bytes
    real_path: Path
    display_path: str
    twins: tuple[TwinPair, ...]
    budgets: Budgets


def analyse_file(
    data: bytes, real_path: Path, display_path: str, twins: tuple[TwinPair, ...], budgets: Budgets = Budgets()
) -> FileOutcome:
    """Parse a file that passed the prefilter (mmlint.check.prefilter) and collect its facts.
    Never raises: whatever goes wrong with one file becomes that file's outcome.
    Runs on a thread with a deep stack (mmlint.check.deep_stack); in a worker
    process, within the file's memory and time budgets (mmlint.check.limits)."""
    if len(data) > budgets.max_file_size:
        return ParseFailure(Span(1, 1, 1, 1), over_size_budget(len(data), budgets), kind="not analysed")
    cost = estimate(data)
    refusal = over_budget(cost, budgets)
    deep = _could_nest_deeply(data, budgets.max_nesting_depth, cost.max_depth)
    # A small file of deep brackets costs the square of its depth: the nesting
    # budget, CPython's cheap verdict on it, names the cause before the cost does.
    nests = cost.max_depth > _bracket_depth_sign(budgets.max_nesting_depth) and len(data) <= _SUSPICIOUS_SIZE
    if refusal is not None and not nests:
        return ParseFailure(Span(1, 1, 1, 1), refusal, kind="not analysed")

    def within_memory() -> FileOutcome:
        try:
            return _analyse(data, real_path, display_path, twins, budgets, deep, refusal)
        except MemoryError:  # the worker's memory budget (mmlint.check.limits), or the machine's
            return ParseFailure(Span(1, 1, 1, 1), _memory_message(budgets), kind=CRASHED)

    with enforced(budgets.max_file_memory, budgets.max_file_seconds) if _in_worker else contextlib.nullcontext():
        outcome = run_deep(within_memory)
    if outcome is None:  # the analysis raised past every handler: only an interpreter-level failure gets here
        return ParseFailure(Span(1, 1, 1, 1), "mmlint could not analyse this file (its analysis thread failed)")
    return outcome


def import_the_parser() -> None:
    """What analyse_file imports on its first call (libcst, the facts
    collector): mmlint.check.workers.run_all's ``preload``."""
    import libcst  # noqa: F401

    import mmlint.facts.collect  # noqa: F401


def remember_parses() -> None:
    """From now on, keep libcst's trees of the last few texts parsed in this
    process, by text: a server analysing a document again after an edit
    that leaves libcst's input as it was (a body the lean view blanks, a
    comment line between statements: mmlint.facts.lean) takes the tree it
    has. libcst's trees are immutable, so one serves every pass. Not for
    `check`, which parses each text once."""
    global _parses
    if _parses is None:
        _parses = {}


def _parse_module(text: str) -> cst.Module:
    import libcst as cst

    if _parses is None:
        return cst.parse_module(text)
    module = _parses.pop(text, None)
    if module is None:
        module = cst.parse_module(text)
    _parses[text] = module
    while len(_parses) > _PARSES_KEPT:
        del _parses[next(iter(_parses))]
    return module


def needs_own_process(task: FileTask) -> bool:
    """An analyse_file task that runs in a process of its own even in a run
    without a pool (mmlint.check.workers.run_all's ``isolate``): a file large
    or costly enough that a native crash or a budget could stop it."""
    return is_risky(task.data, task.budgets)


CRASHED = "analysis failed"  # the ParseFailure kind of a file whose analysis was stopped: never cached


def outcome_of_death(task: FileTask, death: WorkerDeath) -> ParseFailure:
    """The outcome of a file whose analysis ended its process: MM999 for that
    file alone, naming the budget that stopped it where one did."""
    budgets = task.budgets
    if OVER_TIME_SIGNAL is not None and death.exitcode == -OVER_TIME_SIGNAL:
        why = (
            f"stopped after {budgets.max_file_seconds:,} s of CPU time, over the time budget "
            f"(max-file-seconds = {budgets.max_file_seconds:,})"
        )
    elif "memory allocation of" in death.last_words or "MemoryError" in death.last_words:
        why = _memory_message(budgets)
    else:
        why = str(death)
    return ParseFailure(Span(1, 1, 1, 1), why, kind=CRASHED)


def _memory_message(budgets: Budgets) -> str:
    return f"stopped: out of memory (max-file-memory = {budgets.max_file_memory:,} MiB, or the machine's)"


def _analyse(
    data: bytes,
    real_path: Path,
    display_path: str,
    twins: tuple[TwinPair, ...],
    budgets: Budgets,
    deep: bool,
    refusal: str | None,
) -> FileOutcome:
    """``deep``: the file may nest past the nesting budget (CPython judges it
    first); ``refusal``: why it is past its cost budget, once it is not past
    the nesting budget. The stages: decode → CPython's verdicts → CPython's
    tree (_python_side) → libcst's (_libcst_module) → the facts (_facts)."""
    text = _decoded(data)
    if isinstance(text, ParseFailure):
        return text
    python_tree: ast.Module | None = None
    if deep:
        judged = _python_refuses(text, display_path, budgets.max_nesting_depth)
        if isinstance(judged, ParseFailure):
            return judged
        python_tree = judged
        del judged  # one reference to the tree: dropped before libcst parses
    if refusal is not None:
        return ParseFailure(Span(1, 1, 1, 1), refusal, kind="not analysed")
    suppressions = parse_suppressions(text)
    # libcst reads the decoded text (its own decoding misses a cookie line ended
    # by a lone CR), without the form feeds Python's indentation ignores.
    view, column_shift = indentation_view(text)
    side = _python_side(data, text, view, python_tree, real_path, display_path, twins)
    del python_tree
    parsed = _libcst_module(text, view, display_path, side, skip_file=suppressions.skip_file)
    if not isinstance(parsed, tuple):
        return parsed
    module, side = parsed
    facts = _facts(module, side, data, view, real_path, display_path, twins, column_shift)
    return facts if isinstance(facts, ParseFailure) else Parsed(facts, suppressions)


def _decoded(data: bytes) -> str | ParseFailure:
    """The file's text, or why Python could not read it."""
    try:
        text = decode_source(data)
    except DecodeError as error:
        return ParseFailure(Span(error.line, error.column, error.line, error.column + 1), str(error))
    if "\x00" in text:  # libcst would parse it; Python refuses to
        line = text.count("\n", 0, text.index("\x00")) + 1
        return ParseFailure(Span(line, 1, line, 1), "source code cannot contain null bytes")
    return text


class _PythonSide(NamedTuple):
    """What CPython's tree gives before libcst's exists: the statement anchors
    (mmlint.facts.anchors), every field but the call sites and the async defs
    (mmlint.facts.light.light_fields, None when CPython cannot parse the
    file: libcst's collector then reads them all), and the lean view where
    most sync bodies need no libcst (mmlint.facts.lean)."""

    lean: LeanView | None
    light: LightFields | None
    anchors: Sequence[Anchor] | None


def _python_side(
    data: bytes,
    text: str,
    view: str,
    python_tree: ast.Module | None,
    real_path: Path,
    display_path: str,
    twins: tuple[TwinPair, ...],
) -> _PythonSide:
    """All taken before libcst's tree exists, so the two trees never take memory at once."""
    tree = python_tree if python_tree is not None else python_tree_of(text)
    if tree is None:
        return _PythonSide(None, None, statement_anchors(view) if view is not text else None)
    light = light_fields(text, tree, real_path, display_path, round_trip=True)  # _facts judges the bytes
    if view is not text:
        return _PythonSide(None, light, statement_anchors(view))
    lean = lean_view(text, tree, twins)
    return _PythonSide(lean, light, lean.anchors if lean is not None else anchors_of(tree))


def _libcst_module(
    text: str, view: str, display_path: str, side: _PythonSide, *, skip_file: bool
) -> tuple[cst.Module, _PythonSide] | FileOutcome:
    """libcst's tree of the lean view (else of the whole file), with what
    CPython's side becomes when libcst must read the whole of it; or the outcome
    of a file libcst cannot read."""
    # Imported here, not at the top: a run whose files all come from the cache
    # (and `--version`, `rules`, `explain`) never pays for importing libcst.
    import libcst as cst

    lean, light, anchors = side
    try:
        try:
            module = _parse_module(lean.text if lean is not None else view)
        except cst.ParserSyntaxError:
            if lean is None:
                raise
            lean = None  # what libcst says of the file is said of the whole of it
            anchors = statement_anchors(view)
            module = _parse_module(view)
    except cst.ParserSyntaxError as error:
        if skip_file:  # not checked, so not even for syntax
            return Unparsed("skip-file")
        return _python_verdict(text, display_path) or ParseFailure(
            Span(1, 1, 1, 1),
            f"mmlint's parser (libcst) cannot read this file, though Python can: {_first_line(error.message)}",
        )
    except (RecursionError, UnicodeError, ValueError) as error:  # absurdly deep nesting, odd bytes
        return ParseFailure(Span(1, 1, 1, 1), f"could not parse: {type(error).__name__}: {_first_line(str(error))}")
    return module, _PythonSide(lean, light, anchors)


def _facts(
    module: cst.Module,
    side: _PythonSide,
    data: bytes,
    view: str,
    real_path: Path,
    display_path: str,
    twins: tuple[TwinPair, ...],
    column_shift: Mapping[int, int],
) -> FileFacts | ParseFailure:
    """The file's facts from libcst's tree and CPython's side; a failure of
    ours becomes the file's outcome, never the run's."""
    from mmlint.facts.collect import collect_facts

    lean, light, anchors = side
    try:
        facts = collect_facts(
            module,
            real_path,
            display_path,
            twins,
            column_shift,
            anchors,
            lean.text if lean is not None else view,
            light,
        )
        return facts if round_trips(data) else replace(facts, round_trips=False)
    except RecursionError:
        return ParseFailure(Span(1, 1, 1, 1), "nested too deeply for mmlint to analyse (RecursionError)")
    except MemoryError:
        raise  # not a bug: _analyse_in_memory says so
    except Exception as error:  # a bug of ours must not cost the other files their results
        return ParseFailure(
            Span(1, 1, 1, 1),
            f"mmlint could not analyse this file: internal error {type(error).__name__}: "
            f"{_first_line(str(error))} (please report it)",
        )


def prepare_worker() -> None:
    """Runs first in each worker process of the per-file pass (the pool's
    initializer): a worker builds libcst nodes only by parsing, so it trusts
    them (skip_node_validation); its garbage collector runs less often
    (mmlint.core.gc_tuning); and it analyses every file on one kept deep-stack
    thread (mmlint.check.deep_stack), within each file's memory and time
    budgets (mmlint.check.limits). The parent, which may rewrite trees
    (`fix`), fork a pool or be a host using libcst itself, is left as it is."""
    global _in_worker
    from mmlint.facts.libcst_internals import skip_node_validation

    skip_node_validation()
    collect_less_often()
    keep_one_thread()
    prepare_process()
    _in_worker = True


def _python_verdict(text: str, display_path: str) -> ParseFailure | None:
    """CPython's own message and position for a file libcst rejected: clearer
    ("Perhaps you forgot a comma?") than the parser's list of expected tokens.
    Runs only for files that already failed, so good files are parsed once."""
    try:
        compile(text, display_path, "exec", flags=0x400, dont_inherit=True)  # 0x400: PyCF_ONLY_AST
    except SyntaxError as error:
        return _failure_from(error)
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


# Cheap signs that a file may nest deeply (libcst's time and memory grow with
# the square of the depth): only such files pay for CPython's own parse first.
# Deep nesting needs a long line, deep brackets (``bracket_depth``, the
# deepest, mmlint.check.cost) or many line continuations; the thresholds
# shrink with a smaller budget so that no file can pass one unseen.
_SUSPICIOUS_SIZE = 1024 * 1024


def _could_nest_deeply(data: bytes, max_depth: int, bracket_depth: int) -> bool:
    line_length = min(2000, 2 * max_depth)
    if len(data) > _SUSPICIOUS_SIZE or data.count(b"\\\n") > min(200, max_depth // 2):
        return True
    if re.search(rb"[^\n]{%d}" % line_length, data):
        return True
    return bracket_depth > _bracket_depth_sign(max_depth)


def _bracket_depth_sign(max_depth: int) -> int:
    return min(50, max_depth // 2)


def _python_refuses(text: str, display_path: str, max_depth: int) -> ParseFailure | ast.Module:
    """Python's own verdict, before libcst sees a file that may nest deeply: a
    file CPython cannot compile is MM999 with CPython's message, and one whose
    syntax tree is deeper than the budget is not analysed; else the tree."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not ours to report
            tree = compile(text, display_path, "exec", flags=0x400, dont_inherit=True)  # 0x400: PyCF_ONLY_AST
    except SyntaxError as error:
        return _failure_from(error)
    except (RecursionError, MemoryError) as error:
        return ParseFailure(Span(1, 1, 1, 1), f"nested too deeply for Python to compile ({type(error).__name__})")
    except ValueError as error:
        return ParseFailure(Span(1, 1, 1, 1), f"Python cannot compile it: {_first_line(str(error))}")
    depth = _tree_depth(tree, max_depth)
    if depth > max_depth:
        return ParseFailure(
            Span(1, 1, 1, 1),
            f"syntax tree nested more than {max_depth:,} levels deep, over the budget (max-nesting-depth = {max_depth:,})",
            kind="not analysed",
        )
    assert isinstance(tree, ast.Module)  # "exec" mode parses a module
    return tree


def _tree_depth(tree: ast.AST, limit: int) -> int:
    """The depth of ``tree``, or the first depth found past ``limit``."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return deepest
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _failure_from(error: SyntaxError) -> ParseFailure:
    line = error.lineno or 1
    column = error.offset or 1
    end_line = error.end_lineno or line
    end_column = error.end_offset if error.end_offset and error.end_lineno else column
    return ParseFailure(Span(line, column, end_line, max(end_column, column)), _first_line(error.msg))


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "syntax error"
