"""The protocol layer under the server: pygls' protocol, holding documents
with the protocol's lines (mmlint.server.text_sync)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from mmlint.server.text_sync import LspWorkspace


class MmlintProtocol(LanguageServerProtocol):
    # -- documents with the protocol's lines -----------------------------------------------

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        # pygls makes its workspace first thing, before its first step (the
        # server's own initialize handler): ours takes its place there.
        steps = super().lsp_initialize(params)
        replaced = False
        sent: Any = None
        try:
            while True:
                step = steps.send(sent)
                if not replaced:
                    self._use_lsp_workspace()
                    replaced = True
                sent = yield step
        except StopIteration as stop:
            if not replaced:
                self._use_lsp_workspace()
            result: types.InitializeResult = stop.value
            return result

    def _use_lsp_workspace(self) -> None:
        self._workspace = LspWorkspace.like(self.workspace, self._server._text_document_sync_kind)
