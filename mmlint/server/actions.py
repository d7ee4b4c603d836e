"""What the code actions change, as new text: the fix of one diagnostic and
of the whole file (mmlint.fix's pipeline, verified as `mmlint fix` verifies
it, in rounds as `mmlint fix` runs them), and an inline suppression. Nothing
here writes a file: the client applies the edits to its buffer."""

from __future__ import annotations

from collections.abc import Callable

from mmlint.fix.run import MAX_FIX_ROUNDS
from mmlint.core.diagnostics import Diagnostic
from mmlint.core.source import DecodeError, decode_keeping_format, decode_source, split_lines
from mmlint.facts.suppressions import parse_suppressions
from mmlint.fix import FileToFix, fix_file
from mmlint.rules import rule_by_code
from mmlint.server.analysis import DocumentResult


def fixed_bytes(result: DocumentResult, diagnostics: tuple[Diagnostic, ...]) -> bytes | None:
    """The document's bytes with ``diagnostics`` fixed, or None when the fixer
    changes nothing or refuses (its verification failed)."""
    file = FileToFix(result.shown, result.path, diagnostics, result.facts)
    fixed = fix_file(file, write=False, source=result.data)
    return fixed.new if fixed.changed and fixed.error is None else None


def fix_one(result: DocumentResult, diagnostic: Diagnostic) -> bytes | None:
    return fixed_bytes(result, (diagnostic,)) if diagnostic.fixable else None


def fix_all(result: DocumentResult, reanalyse: Callable[[bytes], DocumentResult]) -> bytes | None:
    """Every fixable diagnostic fixed, round after round on the new text
    (``reanalyse``) until nothing changes, as `mmlint fix` does: fixing a call
    can leave a suppression beside it unused, which the next round removes."""
    current, changed = result, False
    for _ in range(MAX_FIX_ROUNDS):
        if not any(d.fixable for d in current.diagnostics):
            break
        new = fixed_bytes(current, current.diagnostics)
        if new is None:
            break
        changed = True
        current = reanalyse(new)
    return current.data if changed else None


def can_suppress(diagnostic: Diagnostic) -> bool:
    rule = rule_by_code(diagnostic.code)
    return rule is not None and not rule.always_on


def suppressed_text(text: str, diagnostic: Diagnostic) -> str | None:
    """``text`` with ``# mmlint: ignore[CODE]`` on the diagnostic's first line
    (its code added to a directive already there), or None when no comment
    there would be a suppression (the line ends inside a string)."""
    if not can_suppress(diagnostic):
        return None
    line_number, code = diagnostic.span.line, diagnostic.code
    lines = split_lines(text, keepends=True)
    if not 1 <= line_number <= len(lines):
        return None
    before = parse_suppressions(text)
    existing = next((s for s in before.by_line if s.line == line_number), None)
    line = lines[line_number - 1]
    body = line.rstrip("\r\n")
    if existing is not None and existing.codes_span is not None:
        at = existing.codes_span.end_column - 1
        separator = ", " if existing.codes else ""
        body = body[:at] + separator + code + body[at:]
    elif existing is None:
        body = body.rstrip(" \t") + f"  # mmlint: ignore[{code}]"
    else:
        return None
    lines[line_number - 1] = body + line[len(line.rstrip("\r\n")):]
    new = "".join(lines)
    after = parse_suppressions(new)
    # Verified the way the linter will read it: a directive on that line now
    # covers the code, and nothing became malformed.
    if len(after.malformed) != len(before.malformed):
        return None
    if not any(s.line == line_number and s.covers(code) for s in after.by_line):
        return None
    return new


def text_of(data: bytes) -> str | None:
    """The text an editor shows for ``data``; None when it does not decode."""
    try:
        return decode_source(data)
    except DecodeError:
        return None


def encode_like(text: str) -> bytes:
    """An editor buffer's text as the file would hold it: in the encoding its
    cookie declares (UTF-8 without one). Text its cookie cannot encode is
    given as UTF-8, which the analysis then reports as MM999."""
    try:
        _, encode = decode_keeping_format(text.encode("utf-8", "surrogatepass"))
        return encode(text)
    except (SyntaxError, UnicodeError, LookupError):
        return text.encode("utf-8", "surrogatepass")
