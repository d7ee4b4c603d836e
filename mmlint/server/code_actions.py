"""The code actions: for each diagnostic the cursor's lines touch, its fix
(mmlint.fix's edits, as `mmlint fix` makes them) and its suppression; for the
file, fix all (once: a quick fix, or the `source.fixAll.mmlint` source
action for fix-on-save). Each is a workspace edit of the text the last run
analysed, versioned where the client allows, so a buffer that moved on
refuses it. Run on the analysis thread, from one ActionPlan per analysed
text (kept in the document's state until the next run), so that however
many diagnostics a request covers and however often the editor asks, the
file is fixed about as often as `mmlint fix` would fix it.

Functions of plain values: a document's state (its analysed text and
result), what the client takes (ClientView), and for fix all a way to
analyse a new text of the document; the server is not read here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mmlint.core.diagnostics import Diagnostic, Edit
from mmlint.server.actions import text_of
from mmlint.server.analysis import DocumentResult, Snapshot
from mmlint.server.documents import DocumentActions, DocumentState
from mmlint.server.handshake import capability
from mmlint.server.protocol import UTF16, Range, text_edit, text_edits

QUICK_FIX_KIND = "quickfix"
FIX_ALL_KIND = "source.fixAll.mmlint"

Reanalyse = Callable[[bytes], DocumentResult]  # the document's result for another text of it


@dataclass(frozen=True)
class ClientView:
    """What the actions need of the client: its position encoding, and whether it takes versioned edits."""

    encoding: str
    versioned_edits: bool

    @classmethod
    def of(cls, capabilities: Any, encoding: str | None) -> ClientView:
        """From the client's capabilities (as initialize sent them) and the negotiated encoding."""
        versioned = capability(capabilities, "workspace", "workspaceEdit", "documentChanges") is True
        return cls(encoding or UTF16, versioned)


def document_actions(state: DocumentState, client: ClientView) -> DocumentActions | None:
    """The actions of the text the state's result analysed, made at the first request after its run."""
    snapshot, result = state.snapshot, state.result
    if snapshot is None or result is None:
        return None
    kept = state.actions
    if kept is not None and kept.result is result and kept.encoding == client.encoding:
        return kept
    text = text_of(snapshot.data)
    if text is None:
        return None
    state.actions = DocumentActions(snapshot, result, text, client.encoding)
    return state.actions


def edit_of(client: ClientView, actions: DocumentActions, edits: Sequence[Edit]) -> dict[str, Any]:
    """Edits of the analysed text (1-based code-point spans) as the client's edit of its buffer."""
    lines = actions.lines
    return _workspace_edit(client, actions.snapshot, [text_edit(lines.range(e.span), e.text) for e in edits])


def _workspace_edit(client: ClientView, snapshot: Snapshot, edits: list[dict[str, Any]]) -> dict[str, Any]:
    """A WorkspaceEdit of the snapshot's document."""
    if client.versioned_edits:
        # Versioned: a client whose buffer moved on refuses the edit rather than misplace it.
        document = {"uri": snapshot.uri, "version": snapshot.version}
        return {"documentChanges": [{"textDocument": document, "edits": edits}]}
    return {"changes": {snapshot.uri: edits}}


def fix_all_edit(state: DocumentState, client: ClientView, reanalyse: Reanalyse) -> dict[str, Any] | None:
    """The document with every fix of `mmlint fix` applied (its rounds re-analyse the document)."""
    actions = document_actions(state, client)
    if actions is None:
        return None
    if actions.fix_all is None:
        new = actions.plan.fix_all(reanalyse)
        new_text = None if new is None else text_of(new)
        edit = None
        if new_text is not None and new_text != actions.plan.text:
            edit = _workspace_edit(client, actions.snapshot, text_edits(actions.plan.text, new_text, client.encoding))
        actions.fix_all = (edit,)
    return actions.fix_all[0]


def code_actions(
    state: DocumentState, client: ClientView, wanted: Range, only: list[str] | None, reanalyse: Reanalyse
) -> list[dict[str, Any]]:
    """On the worker thread: the actions for the diagnostics ``wanted`` touches, and fix-all."""
    actions = document_actions(state, client)
    if actions is None:
        return []
    result = actions.result
    published = dict(zip(result.diagnostics, state.shown()))
    found: list[dict[str, Any]] = []
    if _wanted(QUICK_FIX_KIND, only):
        for diagnostic in result.diagnostics:
            if _overlaps(actions.lines.range(diagnostic.span), wanted):
                shown = [published[diagnostic]] if diagnostic in published else None
                found += _quick_fixes(client, actions, diagnostic, shown)
    kind = _fix_all_kind(only)
    if kind is not None and any(d.fixable for d in result.diagnostics):
        edit = fix_all_edit(state, client, reanalyse)
        if edit is not None:
            title = "mmlint: fix all in this file" if kind == FIX_ALL_KIND else "Fix all mmlint problems in this file"
            found.append({"title": title, "kind": kind, "edit": edit})
    return found


def _fix_all_kind(only: list[str] | None) -> str | None:
    """Fix all is offered once per request: as a quick fix where quick fixes
    are wanted (a client's menu asks with no ``only``, and listed it twice
    when both kinds came back), else as the source action fix-on-save asks for."""
    for kind in (QUICK_FIX_KIND, FIX_ALL_KIND):
        if _wanted(kind, only):
            return kind
    return None


def _quick_fixes(
    client: ClientView, actions: DocumentActions, diagnostic: Diagnostic, shown: list[dict[str, Any]] | None
) -> list[dict[str, Any]]:
    found = []
    fix = actions.plan.fix_edits(diagnostic)
    if fix:
        title = f"mmlint: fix {diagnostic.code} ({diagnostic.name})"
        found.append(_quick_fix(title, shown, edit_of(client, actions, fix), preferred=True))
    suppression = actions.plan.places.suppression(diagnostic)
    if suppression is not None:
        title = f"mmlint: suppress {diagnostic.code} with `# mmlint: ignore[{diagnostic.code}]`"
        found.append(_quick_fix(title, shown, edit_of(client, actions, [suppression])))
    return found


def _quick_fix(
    title: str, shown: list[dict[str, Any]] | None, edit: dict[str, Any], *, preferred: bool = False
) -> dict[str, Any]:
    action: dict[str, Any] = {"title": title, "kind": QUICK_FIX_KIND}
    if shown is not None:
        action["diagnostics"] = shown
    action["edit"] = edit
    if preferred:
        action["isPreferred"] = True
    return action


def _wanted(kind: str, only: list[str] | None) -> bool:
    """Whether a client asking for ``only`` kinds wants ``kind`` (kinds are dotted hierarchies)."""
    return not only or any(kind == want or kind.startswith(want + ".") for want in only)


def _overlaps(a: Range, b: Range) -> bool:
    """Whether the ranges share a line: a cursor anywhere on a diagnostic's
    lines is asking about it, as editors show the light bulb for the line."""
    return a["start"]["line"] <= b["end"]["line"] and b["start"]["line"] <= a["end"]["line"]
