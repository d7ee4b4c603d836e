"""The code actions: for each diagnostic the cursor's lines touch, its fix
(mmlint.fix's edits, as `mmlint fix` makes them) and its suppression; for the
file, fix all (a quick fix, and the `source.fixAll.mmlint` source action for
fix-on-save). Each is a workspace edit of the text the last run analysed,
versioned where the client allows, so a buffer that moved on refuses it.
Run on the analysis thread, from one ActionPlan per analysed text (kept
until the next run), so that however many diagnostics a request covers and
however often the editor asks, the file is fixed about as often as `mmlint
fix` would fix it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from lsprotocol import types

from mmlint.core.diagnostics import Diagnostic, Edit
from mmlint.server.actions import ActionPlan, text_of
from mmlint.server.analysis import DocumentResult, Snapshot
from mmlint.server.protocol import Lines, text_edits

if TYPE_CHECKING:
    from pygls.workspace import Workspace

    from mmlint.server.analysis import Analyser


class MmlintServer(Protocol):
    """What the actions read of the server (mmlint.server.server.MmlintServer):
    its documents' latest analyses and the client's capabilities."""

    action_plans: dict[str, DocumentActions]
    results: dict[str, tuple[Snapshot, DocumentResult]]
    published: dict[str, tuple[int | None, list[types.Diagnostic]]]
    open_uris: dict[str, None]

    @property
    def workspace(self) -> Workspace: ...

    @property
    def client_capabilities(self) -> types.ClientCapabilities: ...

    def root_of(self, path: Path) -> Path: ...

    def analyser_for(self, root: Path) -> Analyser: ...

    def current(self, uri: str) -> tuple[Snapshot, DocumentResult] | None: ...

FIX_ALL_KIND = "source.fixAll.mmlint"


class DocumentActions:
    """One analysed text's plan, with its lines in the client's encoding and its fix-all edit once made."""

    def __init__(self, snapshot: Snapshot, result: DocumentResult, text: str, encoding: str) -> None:
        self.snapshot = snapshot
        self.result = result
        self.lines = Lines(text, encoding)
        self.plan = ActionPlan(result, text)
        self.fix_all: tuple[types.WorkspaceEdit | None] | None = None


def document_actions(ls: MmlintServer, snapshot: Snapshot, result: DocumentResult) -> DocumentActions | None:
    """The actions of the text ``result`` analysed, made at the first request after its run."""
    kept = ls.action_plans.get(snapshot.uri)
    if kept is not None and kept.result is result:
        return kept
    text = text_of(snapshot.data)
    if text is None:
        return None
    actions = ls.action_plans[snapshot.uri] = DocumentActions(snapshot, result, text, _encoding(ls))
    return actions


def _encoding(ls: MmlintServer) -> str:
    return ls.workspace.position_encoding or types.PositionEncodingKind.Utf16


def edit_of(ls: MmlintServer, actions: DocumentActions, edits: Sequence[Edit]) -> types.WorkspaceEdit:
    """Edits of the analysed text (1-based code-point spans) as the client's edit of its buffer."""
    lines = actions.lines
    return _workspace_edit(ls, actions.snapshot, [types.TextEdit(lines.range(e.span), e.text) for e in edits])


def _workspace_edit(ls: MmlintServer, snapshot: Snapshot, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    capability = ls.client_capabilities.workspace
    if capability is not None and capability.workspace_edit is not None and capability.workspace_edit.document_changes:
        # Versioned: a client whose buffer moved on refuses the edit rather than misplace it.
        document = types.OptionalVersionedTextDocumentIdentifier(uri=snapshot.uri, version=snapshot.version)
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(document, edits)])
    return types.WorkspaceEdit(changes={snapshot.uri: edits})


def fix_all_edit(ls: MmlintServer, snapshot: Snapshot, result: DocumentResult) -> types.WorkspaceEdit | None:
    """The document with every fix of `mmlint fix` applied (its rounds re-analyse the document)."""
    actions = document_actions(ls, snapshot, result)
    if actions is None:
        return None
    if actions.fix_all is None:
        analyser = ls.analyser_for(ls.root_of(snapshot.path))
        others = {s.path: s.data for s, _ in ls.results.values() if s.uri in ls.open_uris}
        new = actions.plan.fix_all(lambda data: analyser.analyse_one(snapshot.path, data, others))
        new_text = None if new is None else text_of(new)
        edit = None
        if new_text is not None and new_text != actions.plan.text:
            edit = _workspace_edit(ls, snapshot, text_edits(actions.plan.text, new_text, _encoding(ls)))
        actions.fix_all = (edit,)
    return actions.fix_all[0]


def code_actions(ls: MmlintServer, uri: str, wanted: types.Range, only: list[str] | None) -> list[types.CodeAction]:
    """On the worker thread: the actions for the diagnostics ``wanted`` touches, and fix-all."""
    entry = ls.current(uri)
    if entry is None:
        return []
    snapshot, result = entry
    actions = document_actions(ls, snapshot, result)
    if actions is None:
        return []
    published = dict(zip(result.diagnostics, ls.published.get(uri, (None, []))[1]))
    found: list[types.CodeAction] = []
    if _wanted(types.CodeActionKind.QuickFix, only):
        for diagnostic in result.diagnostics:
            if _overlaps(actions.lines.range(diagnostic.span), wanted):
                shown = [published[diagnostic]] if diagnostic in published else None
                found += _quick_fixes(ls, actions, diagnostic, shown)
    kind = _fix_all_kind(only)
    if kind is not None and any(d.fixable for d in result.diagnostics):
        edit = fix_all_edit(ls, snapshot, result)
        if edit is not None:
            title = "mmlint: fix all in this file" if kind == FIX_ALL_KIND else "Fix all mmlint problems in this file"
            found.append(types.CodeAction(title=title, kind=kind, edit=edit))
    return found


def _fix_all_kind(only: list[str] | None) -> str | None:
    """Fix all is offered once per request: as a quick fix where quick fixes
    are wanted (a client's menu asks with no ``only``, and listed it twice
    when both kinds came back), else as the source action fix-on-save asks for."""
    for kind in (types.CodeActionKind.QuickFix, FIX_ALL_KIND):
        if _wanted(kind, only):
            return kind
    return None


def _quick_fixes(
    ls: MmlintServer, actions: DocumentActions, diagnostic: Diagnostic, shown: list[types.Diagnostic] | None
) -> list[types.CodeAction]:
    found = []
    fix = actions.plan.fix_edits(diagnostic)
    if fix:
        found.append(types.CodeAction(
            title=f"mmlint: fix {diagnostic.code} ({diagnostic.name})",
            kind=types.CodeActionKind.QuickFix, diagnostics=shown, edit=edit_of(ls, actions, fix), is_preferred=True,
        ))
    suppression = actions.plan.places.suppression(diagnostic)
    if suppression is not None:
        found.append(types.CodeAction(
            title=f"mmlint: suppress {diagnostic.code} with `# mmlint: ignore[{diagnostic.code}]`",
            kind=types.CodeActionKind.QuickFix, diagnostics=shown, edit=edit_of(ls, actions, [suppression]),
        ))
    return found


def _wanted(kind: str, only: list[str] | None) -> bool:
    """Whether a client asking for ``only`` kinds wants ``kind`` (kinds are dotted hierarchies)."""
    return not only or any(kind == want or kind.startswith(want + ".") for want in only)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    """Whether the ranges share a line: a cursor anywhere on a diagnostic's
    lines is asking about it, as editors show the light bulb for the line."""
    return a.start.line <= b.end.line and b.start.line <= a.end.line
