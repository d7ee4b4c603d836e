"""One file, from bytes to an outcome value: skipped by the prefilter, skipped by
`# mmlint: skip-file`, failed to parse, or parsed into facts. Never raises for
bad input, and takes and returns only plain data, so it can run in a worker
process and its result can be cached by content hash."""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from mmlint.diagnostics import Span
from mmlint.facts.model import FileFacts, TwinPair
from mmlint.source import DecodeError, decode_source
from mmlint.suppressions import FileSuppressions, parse_suppressions


@dataclass(frozen=True, slots=True)
class Parsed:
    """Parsed into facts. A `# mmlint: skip-file` file is parsed too: its call sites
    count (call_sites is taken before suppressions) and it is context for
    cross-file rules, but nothing is reported in it."""

    facts: FileFacts
    suppressions: FileSuppressions


@dataclass(frozen=True, slots=True)
class Unparsed:
    """Skipped unparsed: nothing in it can be a finding, or it says skip-file and does not parse."""

    reason: str  # "prefilter" or "skip-file"


@dataclass(frozen=True, slots=True)
class ParseFailure:
    span: Span
    message: str


FileOutcome = Parsed | Unparsed | ParseFailure


def analyse_file(data: bytes, real_path: Path, display_path: str, twins: tuple[TwinPair, ...]) -> FileOutcome:
    """Parse a file that passed the prefilter (mmlint.prefilter) and collect its facts.
    Never raises: whatever goes wrong with one file becomes that file's outcome.

    Runs on a thread of its own with a deep stack: libcst recurses a few frames
    per level of nesting (400 chained `+` exceed Python's default limit of 1,000),
    and its native parser overflows an ordinary 8 MiB stack — a segfault, not an
    exception — long before a raised recursion limit would stop it."""
    result: list[FileOutcome] = []
    with _DEEP_STACK_LOCK:
        previous_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(previous_limit, DEEP_RECURSION_LIMIT))
        previous_stack = threading.stack_size(DEEP_STACK_BYTES)
        try:
            worker = threading.Thread(
                target=lambda: result.append(_analyse(data, real_path, display_path, twins)), name="mmlint-analyse"
            )
            worker.start()
            threading.stack_size(previous_stack)
            worker.join()
        finally:
            threading.stack_size(previous_stack)
            sys.setrecursionlimit(previous_limit)
    if not result:  # the thread died without an outcome: only an interpreter-level failure gets here
        return ParseFailure(Span(1, 1, 1, 1), "mmlint could not analyse this file (its analysis thread failed)")
    return result[0]


def _analyse(data: bytes, real_path: Path, display_path: str, twins: tuple[TwinPair, ...]) -> FileOutcome:
    # Imported here, not at the top: a run whose files all come from the cache
    # (and `--version`, `rules`, `explain`) never pays for importing libcst.
    import libcst as cst

    from mmlint.facts.collect import collect_facts

    try:
        text = decode_source(data)
    except DecodeError as error:
        return ParseFailure(Span(error.line, error.column, error.line, error.column + 1), str(error))
    if "\x00" in text:  # libcst would parse it; Python refuses to
        line = text.count("\n", 0, text.index("\x00")) + 1
        return ParseFailure(Span(line, 1, line, 1), "source code cannot contain null bytes")
    suppressions = parse_suppressions(text)
    try:
        module = cst.parse_module(data)
    except cst.ParserSyntaxError as error:
        if suppressions.skip_file:  # not checked, so not even for syntax
            return Unparsed("skip-file")
        return _python_verdict(text, display_path) or ParseFailure(
            Span(1, 1, 1, 1), f"mmlint's parser (libcst) cannot read this file, though Python can: {_first_line(error.message)}"
        )
    except (RecursionError, UnicodeError, ValueError) as error:  # absurdly deep nesting, odd bytes
        return ParseFailure(Span(1, 1, 1, 1), f"could not parse: {type(error).__name__}: {_first_line(str(error))}")
    try:
        facts = collect_facts(module, real_path, display_path, twins)
    except RecursionError:
        return ParseFailure(Span(1, 1, 1, 1), "nested too deeply for mmlint to analyse (RecursionError)")
    except Exception as error:  # a bug of ours must not cost the other files their results
        return ParseFailure(
            Span(1, 1, 1, 1),
            f"mmlint could not analyse this file: internal error {type(error).__name__}: "
            f"{_first_line(str(error))} (please report it)",
        )
    return Parsed(facts, suppressions)


# Virtual memory: only the pages a deep file really touches are ever used.
DEEP_STACK_BYTES = 512 * 1024 * 1024
# Deep enough for any code a person writes (and 8,000 chained `+`), well
# inside DEEP_STACK_BYTES; past it, the file is MM999 "nested too deeply".
DEEP_RECURSION_LIMIT = 20_000
_DEEP_STACK_LOCK = threading.Lock()


def _python_verdict(text: str, display_path: str) -> ParseFailure | None:
    """CPython's own message and position for a file libcst rejected: clearer
    ("Perhaps you forgot a comma?") than the parser's list of expected tokens.
    Runs only for files that already failed, so good files are parsed once."""
    try:
        compile(text, display_path, "exec", flags=0x400, dont_inherit=True)  # 0x400: PyCF_ONLY_AST
    except SyntaxError as error:
        line = error.lineno or 1
        column = error.offset or 1
        end_line = error.end_lineno or line
        end_column = error.end_offset if error.end_offset and error.end_lineno else column
        return ParseFailure(Span(line, column, end_line, max(end_column, column)), _first_line(error.msg))
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "syntax error"
