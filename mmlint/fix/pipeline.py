"""The fix pipeline for one file: plan, transform, verify, write atomically.

Fixers form a small registry keyed by the kind of fix a rule declares
(``Rule.fix_kind``), one stage per kind. Each fixer is a stage that
takes the file's bytes and its diagnostics and returns new bytes plus what it
fixed and what it left; every stage verifies its own output. Stages run in
order, the spans of later stages mapped through the text edits of earlier
ones, and the file is written once, only if every stage succeeded and the
bytes changed, and only over the bytes the plan was made on, in the regular
file that was read (mmlint.core.write.SourceFile). Any failure leaves the file
untouched and becomes the file's ``error``: processing a file never raises."""

from __future__ import annotations

import dataclasses
import hashlib
import tokenize
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from mmlint.core.codes import FIX_KINDS, FixKind
from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.core.source import decode_keeping_format
from mmlint.core.write import ChangedMeanwhile, NotTheFileRead, SourceFile
from mmlint.facts.model import FileFacts
from mmlint.fix.call_rewrite import CannotRewrite, rewrite_calls
from mmlint.fix.model import CallFix, FileFixResult, FixedSite, UnfixedSite
from mmlint.fix.text_edits import EditConflict, PositionMap
from mmlint.fix.verify import (
    VerificationFailed,
    verify_call_rewrite,
    verify_comment_edit,
    verify_only_edits_changed,
)

SYNTAX_ERROR_CODE = "MM999"  # a file that did not parse is left alone (mmlint.core.codes)


@dataclass(frozen=True)
class FileToFix:
    """One target file with everything its fixers need."""

    path: str  # display path
    abs_path: Path
    diagnostics: tuple[Diagnostic, ...]  # every diagnostic reported on the file
    facts: FileFacts | None
    # sha256 of the bytes the diagnostics and facts were found in (None: not checked).
    digest: bytes | None = None
    # Where the bytes are, when not at ``abs_path``: the target of a symbolic
    # link named on the command line, as it was when the run started.
    real_path: Path | None = None


@dataclass(frozen=True)
class StageResult:
    new: bytes
    fixed: tuple[FixedSite, ...] = ()
    unfixed: tuple[UnfixedSite, ...] = ()
    # How positions of the stage's input move in its output (None: they do not).
    positions: PositionMap | None = None


class Fixer(ABC):
    """One stage of the pipeline; ``order`` decides when it runs."""

    order: ClassVar[int]

    @abstractmethod
    def run(
        self, source: bytes, diagnostics: Sequence[Diagnostic], file: FileToFix, original: Mapping[Span, Span]
    ) -> StageResult:
        """Fix ``diagnostics`` (this fixer's, spans in ``source``'s coordinates;
        ``original`` maps each back to its span in the file as read, where the
        facts are); raise ``VerificationFailed`` or ``EditConflict`` when it
        cannot be done safely."""


class CommentEditFixer(Fixer):
    """Applies the plain text edits of a diagnostic that only touches comments
    (MM009: a dead suppression comment, or dead codes inside one)."""

    order = 0

    def run(
        self, source: bytes, diagnostics: Sequence[Diagnostic], file: FileToFix, original: Mapping[Span, Span]
    ) -> StageResult:
        edits = [edit for diagnostic in diagnostics for edit in diagnostic.edits]
        if not edits:
            return StageResult(source)
        text, encode = decode_keeping_format(source)
        positions = PositionMap(text, edits)
        new = encode(positions.new_text)
        verify_comment_edit(source, new)
        fixed = tuple(FixedSite(d.span, d.code) for d in diagnostics if d.edits)
        return StageResult(new, fixed, positions=positions)


class CallRewriteFixer(Fixer):
    """``recv.sync(...)`` becomes ``await recv.async_(...)`` (text edits) for every
    rule whose fix kind is "call-rewrite" (MM001, MM010): the names come from
    the diagnostic's AwaitRewrite, the positions from the tokens; a site the
    rule found not fixable is listed with the rule's reason."""

    order = 10

    def run(
        self, source: bytes, diagnostics: Sequence[Diagnostic], file: FileToFix, original: Mapping[Span, Span]
    ) -> StageResult:
        fixes: list[CallFix] = []
        unfixed: list[UnfixedSite] = []
        for diagnostic in diagnostics:
            rewrite = diagnostic.rewrite
            if not diagnostic.fixable:
                reason = diagnostic.unfixable_reason or "not fixable: " + diagnostic.message
                unfixed.append(UnfixedSite(diagnostic.span, diagnostic.code, reason))
            elif rewrite is None:
                unfixed.append(
                    UnfixedSite(diagnostic.span, diagnostic.code, "no twin call was collected at this position")
                )
            else:
                fixes.append(CallFix(diagnostic.span, rewrite.sync, rewrite.async_, diagnostic.code))
        return _rewrite_verified(source, fixes, unfixed)


def _rewrite_verified(source: bytes, fixes: list[CallFix], unfixed: list[UnfixedSite]) -> StageResult:
    """The planned call rewrites applied, then checked twice: every character
    outside the edits, and the tokens and trees (mmlint.fix.verify)."""
    if not fixes:
        return StageResult(source, unfixed=tuple(unfixed))
    rewrite = rewrite_calls(source, fixes)
    if rewrite.fixed:
        text, _ = decode_keeping_format(source)
        new_text, _ = decode_keeping_format(rewrite.new)
        verify_only_edits_changed(text, new_text, rewrite.edits)
        verify_call_rewrite(source, rewrite.new, fixes, rewrite.fixed)
    return StageResult(rewrite.new, rewrite.fixed, tuple(unfixed) + rewrite.unfixed)


# The stage for each kind of fix a diagnostic carries (its rule's: mmlint.rules.base.Rule.fix_kind).
STAGES: dict[FixKind, Fixer] = {
    "call-rewrite": CallRewriteFixer(),
    "text-edits": CommentEditFixer(),
}


def fix_kind_of(diagnostic: Diagnostic) -> FixKind | None:
    """The kind of fix the diagnostic's rule declares, as the diagnostic
    carries it (built without one, by hand: its code's in the catalogue)."""
    return diagnostic.fix_kind or FIX_KINDS.get(diagnostic.code)


def _remap(span: Span, positions: PositionMap) -> Span | None:
    start = positions.shift(span.line, span.column)
    end = positions.shift(span.end_line, span.end_column)
    if start is None or end is None:
        return None
    return Span(*start, *end)


def _stage_work(file: FileToFix) -> list[tuple[Fixer, list[Diagnostic]]]:
    """The diagnostics each fixer handles, fixers in order. Call-rewrite sites
    that are not fixable still go to their stage, which reports them with a reason."""
    work: dict[int, tuple[Fixer, list[Diagnostic]]] = {}
    for diagnostic in file.diagnostics:
        kind = fix_kind_of(diagnostic)
        if kind is None or (kind == "text-edits" and not (diagnostic.fixable and diagnostic.edits)):
            continue
        fixer = STAGES[kind]
        work.setdefault(id(fixer), (fixer, []))[1].append(diagnostic)
    return sorted(work.values(), key=lambda item: item[0].order)


def fix_file(file: FileToFix, *, write: bool, source: bytes | None = None) -> FileFixResult:
    """Plan, transform, verify and (when ``write`` and the bytes changed)
    write one file. Never raises for bad input. ``source``: the file's bytes
    when they are not the disk's (an editor's unsaved buffer): planned and
    verified on them, never written.

    The plan holds only for the bytes it was made on: a file that holds other
    bytes than were analysed (``file.digest``), or other bytes than were read
    when its turn to be written comes, is not written but marked ``stale``, to
    be planned again from what it holds now (mmlint.fix.run.fix_in_rounds)."""
    syntax_errors = [d for d in file.diagnostics if d.code == SYNTAX_ERROR_CODE]
    if syntax_errors:
        failure = syntax_errors[0]
        message = f"line {failure.span.line}: {failure.message} (MM999)"
        return FileFixResult(file.path, file.abs_path, error=message, diagnostics=file.diagnostics)
    if source is not None:
        return _transformed(file, source)
    try:
        with SourceFile(file.real_path or file.abs_path) as on_disk:
            return _fix_source(file, on_disk, write=write)
    except OSError as error:  # its directory could not be opened
        return FileFixResult(file.path, file.abs_path, error=f"could not read: {error.strerror or error}")


def _not_written(error: NotTheFileRead) -> str:
    return f"not written: {error} (fix writes only the regular file it read, never through a link)"


def _fix_source(file: FileToFix, source: SourceFile, *, write: bool) -> FileFixResult:
    try:
        old = source.read()
    except NotTheFileRead as error:  # swapped for a link since the walk
        return FileFixResult(file.path, file.abs_path, error=_not_written(error), diagnostics=file.diagnostics)
    except OSError as error:
        return FileFixResult(file.path, file.abs_path, error=f"could not read: {error.strerror or error}")
    if file.digest is not None and hashlib.sha256(old).digest() != file.digest:
        return FileFixResult(file.path, file.abs_path, old=old, new=old, diagnostics=file.diagnostics, stale=True)
    result = _transformed(file, old)
    if not (write and result.changed):
        return result
    try:
        source.replace(result.new)
    except ChangedMeanwhile as changed:
        if changed.current == result.new:  # another run wrote this very fix first
            return dataclasses.replace(result, already_fixed=True)
        current = old if changed.current is None else changed.current
        return dataclasses.replace(result, fixed=(), unfixed=(), old=current, new=current, stale=True)
    except NotTheFileRead as error:
        return dataclasses.replace(result, error=_not_written(error), new=old)
    except OSError as error:
        return dataclasses.replace(result, error=f"could not write: {error.strerror or error}", new=old)
    return result


def _transformed(file: FileToFix, old: bytes) -> FileFixResult:
    """``old`` with every stage's fixes applied and verified (nothing written)."""
    current = old
    fixed: list[FixedSite] = []
    unfixed: list[UnfixedSite] = []
    maps: list[PositionMap] = []
    try:
        for fixer, diagnostics in _stage_work(file):
            original_span: dict[Span, Span] = {}
            moved: list[Diagnostic] = []
            for diagnostic in diagnostics:
                span: Span | None = diagnostic.span
                for positions in maps:
                    span = _remap(span, positions) if span is not None else None
                if span is None:
                    unfixed.append(UnfixedSite(diagnostic.span, diagnostic.code, "an earlier fix removed this text"))
                    continue
                original_span[span] = diagnostic.span
                moved.append(dataclasses.replace(diagnostic, span=span))
            stage = fixer.run(current, moved, file, original_span)
            fixed.extend(dataclasses.replace(s, span=original_span.get(s.span, s.span)) for s in stage.fixed)
            unfixed.extend(dataclasses.replace(s, span=original_span.get(s.span, s.span)) for s in stage.unfixed)
            if stage.positions is not None:
                maps.append(stage.positions)
            current = stage.new
    except (VerificationFailed, EditConflict, CannotRewrite, tokenize.TokenError) as error:
        return FileFixResult(file.path, file.abs_path, error=f"fix not applied: {error}", old=old, new=old)
    except (SyntaxError, UnicodeError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        return FileFixResult(file.path, file.abs_path, error=f"could not parse: {message}", old=old, new=old)
    except Exception as error:  # a fixer bug must cost one file, not the run
        return FileFixResult(
            file.path, file.abs_path, error=f"internal error, file left untouched: {error!r}", old=old, new=old
        )
    return FileFixResult(
        file.path,
        file.abs_path,
        fixed=tuple(sorted(fixed, key=lambda s: s.span)),
        unfixed=tuple(sorted(unfixed, key=lambda s: s.span)),
        old=old,
        new=current,
        diagnostics=file.diagnostics,
    )
