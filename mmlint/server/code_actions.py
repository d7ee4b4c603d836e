"""The code actions: for each diagnostic the cursor's lines touch, its fix
(mmlint.fix's edits, as `mmlint fix` makes them) and its suppression; for the
file, fix all (a quick fix, and the `source.fixAll.mmlint` source action for
fix-on-save). Each is a workspace edit of the text the last run analysed,
versioned where the client allows, so a buffer that moved on refuses it.
Run on the analysis thread."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from mmlint.core.diagnostics import Diagnostic
from mmlint.server.actions import can_suppress, fix_all, fix_one, suppressed_text, text_of
from mmlint.server.analysis import DocumentResult, Snapshot
from mmlint.server.protocol import Lines, text_edits

if TYPE_CHECKING:
    from mmlint.server.server import MmlintServer

FIX_ALL_KIND = "source.fixAll.mmlint"


def workspace_edit(ls: MmlintServer, snapshot: Snapshot, new: bytes) -> types.WorkspaceEdit | None:
    old_text, new_text = text_of(snapshot.data), text_of(new)
    if old_text is None or new_text is None or old_text == new_text:
        return None
    return text_edit(ls, snapshot, old_text, new_text)


def text_edit(ls: MmlintServer, snapshot: Snapshot, old_text: str, new_text: str) -> types.WorkspaceEdit:
    encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16
    edits = text_edits(old_text, new_text, encoding)
    capability = ls.client_capabilities.workspace
    if capability is not None and capability.workspace_edit is not None and capability.workspace_edit.document_changes:
        # Versioned: a client whose buffer moved on refuses the edit rather than misplace it.
        document = types.OptionalVersionedTextDocumentIdentifier(uri=snapshot.uri, version=snapshot.version)
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(document, edits)])
    return types.WorkspaceEdit(changes={snapshot.uri: edits})


def fix_all_edit(ls: MmlintServer, snapshot: Snapshot, result: DocumentResult) -> types.WorkspaceEdit | None:
    """The document with every fix of `mmlint fix` applied. Kept for the
    version and text it was made from: editors ask for code actions at every cursor move,
    and its rounds re-analyse the document."""
    kept = ls.fix_all_edits.get(snapshot.uri)
    if kept is not None and kept[0] == (snapshot.version, snapshot.data):
        return kept[1]
    analyser = ls.analyser_for(ls.root_of(snapshot.path))
    others = {s.path: s.data for s, _ in ls.results.values() if s.uri in ls.open_uris}
    new = fix_all(result, lambda data: analyser.analyse_one(snapshot.path, data, others))
    edit = workspace_edit(ls, snapshot, new) if new is not None else None
    ls.fix_all_edits[snapshot.uri] = ((snapshot.version, snapshot.data), edit)
    return edit


def code_actions(ls: MmlintServer, uri: str, wanted: types.Range, only: list[str] | None) -> list[types.CodeAction]:
    """On the worker thread: the actions for the diagnostics ``wanted`` touches, and fix-all."""
    entry = ls.current(uri)
    if entry is None:
        return []
    snapshot, result = entry
    text = text_of(snapshot.data)
    if text is None:
        return []
    encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16
    lines = Lines(text, encoding)
    published = dict(zip(result.diagnostics, ls.published.get(uri, (None, []))[1]))
    actions: list[types.CodeAction] = []
    for diagnostic in result.diagnostics:
        if not _overlaps(lines.range(diagnostic.span), wanted):
            continue
        shown = [published[diagnostic]] if diagnostic in published else None
        if _wanted(types.CodeActionKind.QuickFix, only):
            actions += _quick_fixes(ls, snapshot, result, text, diagnostic, shown)
    if any(d.fixable for d in result.diagnostics):
        kinds = [kind for kind in (FIX_ALL_KIND, types.CodeActionKind.QuickFix) if _wanted(kind, only)]
        edit = fix_all_edit(ls, snapshot, result) if kinds else None
        for kind in kinds if edit is not None else ():
            title = "mmlint: fix all in this file" if kind == FIX_ALL_KIND else "Fix all mmlint problems in this file"
            actions.append(types.CodeAction(title=title, kind=kind, edit=edit))
    return actions


def _quick_fixes(
    ls: MmlintServer, snapshot: Snapshot, result: DocumentResult, text: str, diagnostic: Diagnostic,
    shown: list[types.Diagnostic] | None,
) -> list[types.CodeAction]:
    actions = []
    if diagnostic.fixable:
        new = fix_one(result, diagnostic)
        edit = workspace_edit(ls, snapshot, new) if new is not None else None
        if edit is not None:
            actions.append(types.CodeAction(
                title=f"mmlint: fix {diagnostic.code} ({diagnostic.name})",
                kind=types.CodeActionKind.QuickFix, diagnostics=shown, edit=edit, is_preferred=True,
            ))
    if can_suppress(diagnostic):
        suppressed = suppressed_text(text, diagnostic)
        if suppressed is not None:
            actions.append(types.CodeAction(
                title=f"mmlint: suppress {diagnostic.code} with `# mmlint: ignore[{diagnostic.code}]`",
                kind=types.CodeActionKind.QuickFix, diagnostics=shown,
                edit=text_edit(ls, snapshot, text, suppressed),
            ))
    return actions


def _wanted(kind: str, only: list[str] | None) -> bool:
    """Whether a client asking for ``only`` kinds wants ``kind`` (kinds are dotted hierarchies)."""
    return not only or any(kind == want or kind.startswith(want + ".") for want in only)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    """Whether the ranges share a line: a cursor anywhere on a diagnostic's
    lines is asking about it, as editors show the light bulb for the line."""
    return a.start.line <= b.end.line and b.start.line <= a.end.line
