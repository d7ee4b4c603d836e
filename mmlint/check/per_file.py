"""One file, from bytes to an outcome value: skipped by the prefilter, skipped by
`# mmlint: skip-file`, failed to parse, or parsed into facts. Never raises for
bad input, and takes and returns only plain data, so it can run in a worker
process and its result can be cached by content hash."""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import replace
from pathlib import Path

from mmlint.check.deep_stack import keep_one_thread, run_deep
from mmlint.config.settings import Budgets
from mmlint.core.diagnostics import Span
from mmlint.core.gc_tuning import collect_less_often
from mmlint.core.source import DecodeError, decode_source, indentation_view, round_trips
from mmlint.facts.anchors import anchors_of, statement_anchors
from mmlint.facts.model import TwinPair
from mmlint.facts.outcome import FileOutcome, Parsed, ParseFailure, Unparsed
from mmlint.facts.suppressions import parse_suppressions


def analyse_file(
    data: bytes, real_path: Path, display_path: str, twins: tuple[TwinPair, ...], budgets: Budgets = Budgets()
) -> FileOutcome:
    """Parse a file that passed the prefilter (mmlint.check.prefilter) and collect its facts.
    Never raises: whatever goes wrong with one file becomes that file's outcome.
    Runs on a thread with a deep stack (mmlint.check.deep_stack)."""
    outcome = run_deep(lambda: _analyse(data, real_path, display_path, twins, budgets))
    if outcome is None:  # the analysis raised past every handler: only an interpreter-level failure gets here
        return ParseFailure(Span(1, 1, 1, 1), "mmlint could not analyse this file (its analysis thread failed)")
    return outcome


def _analyse(
    data: bytes, real_path: Path, display_path: str, twins: tuple[TwinPair, ...], budgets: Budgets
) -> FileOutcome:
    # Imported here, not at the top: a run whose files all come from the cache
    # (and `--version`, `rules`, `explain`) never pays for importing libcst.
    import libcst as cst

    from mmlint.facts.collect import collect_facts

    if len(data) > budgets.max_file_size:
        return ParseFailure(
            Span(1, 1, 1, 1),
            f"{len(data):,} bytes, over the size budget (max-file-size = {budgets.max_file_size:,})",
            kind="not analysed",
        )
    try:
        text = decode_source(data)
    except DecodeError as error:
        return ParseFailure(Span(error.line, error.column, error.line, error.column + 1), str(error))
    if "\x00" in text:  # libcst would parse it; Python refuses to
        line = text.count("\n", 0, text.index("\x00")) + 1
        return ParseFailure(Span(line, 1, line, 1), "source code cannot contain null bytes")
    python_tree = None
    if _could_nest_deeply(data, budgets.max_nesting_depth):
        python_tree = _python_refuses(text, display_path, budgets.max_nesting_depth)
        if isinstance(python_tree, ParseFailure):
            return python_tree
    suppressions = parse_suppressions(text)
    # libcst reads the decoded text (its own decoding misses a cookie line ended
    # by a lone CR), without the form feeds Python's indentation ignores.
    view, column_shift = indentation_view(text)
    # CPython's statement anchors (mmlint.facts.anchors), from the tree just
    # checked when it is of the same text; taken before libcst's tree exists,
    # so the two trees never take memory at once.
    anchors = anchors_of(python_tree) if python_tree is not None and view is text else statement_anchors(view)
    del python_tree
    try:
        module = cst.parse_module(view)
    except cst.ParserSyntaxError as error:
        if suppressions.skip_file:  # not checked, so not even for syntax
            return Unparsed("skip-file")
        return _python_verdict(text, display_path) or ParseFailure(
            Span(1, 1, 1, 1), f"mmlint's parser (libcst) cannot read this file, though Python can: {_first_line(error.message)}"
        )
    except (RecursionError, UnicodeError, ValueError) as error:  # absurdly deep nesting, odd bytes
        return ParseFailure(Span(1, 1, 1, 1), f"could not parse: {type(error).__name__}: {_first_line(str(error))}")
    try:
        facts = collect_facts(module, real_path, display_path, twins, column_shift, anchors)
        if not round_trips(data):
            facts = replace(facts, round_trips=False)
    except RecursionError:
        return ParseFailure(Span(1, 1, 1, 1), "nested too deeply for mmlint to analyse (RecursionError)")
    except Exception as error:  # a bug of ours must not cost the other files their results
        return ParseFailure(
            Span(1, 1, 1, 1),
            f"mmlint could not analyse this file: internal error {type(error).__name__}: "
            f"{_first_line(str(error))} (please report it)",
        )
    return Parsed(facts, suppressions)


def prepare_worker() -> None:
    """Runs first in each worker process of the per-file pass (the pool's
    initializer): a worker builds libcst nodes only by parsing, so it trusts
    them (skip_node_validation); its garbage collector runs less often
    (mmlint.core.gc_tuning); and it analyses every file on one kept deep-stack
    thread (mmlint.check.deep_stack). The parent, which may rewrite trees
    (`fix`), fork a pool or be a host using libcst itself, is left as it is."""
    from mmlint.facts.libcst_internals import skip_node_validation

    skip_node_validation()
    collect_less_often()
    keep_one_thread()


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
# Deep nesting needs a long line, deep brackets or many line continuations;
# the thresholds shrink with a smaller budget so that no file can pass one unseen.
_BRACKETS = bytes(range(256)).translate(None, b"()[]{}")
_SUSPICIOUS_SIZE = 1024 * 1024


def _could_nest_deeply(data: bytes, max_depth: int) -> bool:
    line_length = min(2000, 2 * max_depth)
    if len(data) > _SUSPICIOUS_SIZE or data.count(b"\\\n") > min(200, max_depth // 2):
        return True
    if re.search(rb"[^\n]{%d}" % line_length, data):
        return True
    depth, limit = 0, min(50, max_depth // 2)
    for byte in data.translate(None, _BRACKETS):
        depth += 1 if byte in b"([{" else -1
        if depth > limit:
            return True
    return False


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
