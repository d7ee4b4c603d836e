"""What the server keeps of each open document, in one place: the text the
last run analysed and its result, what was published for it, and the code
actions of that text once asked for. One DocumentState per URI, made at
didOpen and dropped at didClose; a run replaces its analysed text and result
(which drops the actions made from the last one)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mmlint.server.actions import ActionPlan
from mmlint.server.analysis import DocumentResult, Snapshot
from mmlint.server.protocol import Lines


class DocumentActions:
    """One analysed text's plan, with its lines in the client's encoding and its fix-all edit once made."""

    def __init__(self, snapshot: Snapshot, result: DocumentResult, text: str, encoding: str) -> None:
        self.snapshot = snapshot
        self.result = result
        self.encoding = encoding
        self.lines = Lines(text, encoding)
        self.plan = ActionPlan(result, text)
        self.fix_all: tuple[dict[str, Any] | None] | None = None  # the workspace edit, once made


@dataclass
class DocumentState:
    uri: str
    snapshot: Snapshot | None = None  # the text the last run analysed
    result: DocumentResult | None = None  # what it found there
    # What the client was last sent: the version and the diagnostics (None: nothing yet).
    published: tuple[int | None, list[dict[str, Any]]] | None = None
    actions: DocumentActions | None = field(default=None, repr=False)  # made at the first request

    def analysed(self, snapshot: Snapshot, result: DocumentResult) -> None:
        self.snapshot, self.result, self.actions = snapshot, result, None

    def edited(self, snapshot: Snapshot) -> bool:
        """Whether ``snapshot`` is a new text of a document analysed before (a keystroke, not an open)."""
        return self.snapshot is not None and self.snapshot.version != snapshot.version

    def shown(self) -> list[dict[str, Any]]:
        return self.published[1] if self.published is not None else []
