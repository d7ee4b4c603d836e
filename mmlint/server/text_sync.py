"""The server's copy of each open document, kept equal to the editor's.

pygls splits a document's lines with ``str.splitlines``, which also breaks at
\\f, \\v, \\x1c-\\x1e, \\x85, U+2028 and U+2029; the protocol (and every editor)
breaks only at \\n, \\r\\n and \\r. An incremental change in a document holding
one of those landed a line off. Here a change's positions are read the
protocol's way, with mmlint's one line splitter."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from mmlint.core.source import line_starts, split_lines
from mmlint.server.protocol import units


def offset_at(text: str, starts: Sequence[int], position: types.Position, encoding: str) -> int:
    """The code-point offset in ``text`` (whose ``line_starts`` are ``starts``) of a
    position in the client's code units. As the protocol says, a character past
    the end of its line means the line's end; a line past the last means the end
    of the text; a position inside a character (half a UTF-16 surrogate pair, a
    byte inside a UTF-8 sequence) means that character's start, as editors read it."""
    if position.line >= len(starts):
        return len(text)
    start = starts[position.line]
    end = starts[position.line + 1] if position.line + 1 < len(starts) else len(text)
    content = text[start:end].rstrip("\r\n")  # only the line break: a line holds no other \r or \n
    if encoding == types.PositionEncodingKind.Utf32 or content.isascii():
        return start + min(position.character, len(content))
    counted = 0
    for index, char in enumerate(content):
        counted += units(char, encoding)
        if counted > position.character:
            return start + index
    return start + len(content)


def apply_change(text: str, change_range: types.Range, new_text: str, encoding: str) -> str:
    """``text`` with ``change_range`` (in the client's units) replaced by ``new_text``."""
    starts = line_starts(text)
    start = offset_at(text, starts, change_range.start, encoding)
    end = offset_at(text, starts, change_range.end, encoding)
    start, end = min(start, end), max(start, end)  # a reversed range is the same range
    return text[:start] + new_text + text[end:]


class LspDocument(TextDocument):
    """pygls' document with the protocol's lines. The server reads only its
    ``source`` and ``version``; ``lines`` is what pygls' own helpers index."""

    @property
    def lines(self) -> Sequence[str]:
        return tuple(split_lines(self.source, keepends=True))

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        encoding = str(self.position_codec.encoding or types.PositionEncodingKind.Utf16)
        self._source = apply_change(self.source, change.range, change.text, encoding)


class LspWorkspace(Workspace):
    """pygls' workspace, holding ``LspDocument``s."""

    @classmethod
    def like(cls, workspace: Workspace, sync_kind: types.TextDocumentSyncKind) -> LspWorkspace:
        """A new, empty one with ``workspace``'s root, folders and position encoding."""
        return cls(workspace.root_uri, sync_kind, list(workspace.folders.values()), workspace.position_encoding)

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return LspDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )
