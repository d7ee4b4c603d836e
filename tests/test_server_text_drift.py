"""`mmlint server` keeps the editor's text through incremental changes in
documents holding \\f, \\v, \\x1c-\\x1e, \\x85, U+2028 or U+2029 (line breaks to
str.splitlines, not to the protocol), in each position encoding: seen by a
real client over stdio in the diagnostics' positions and in the "fix all"
edit, which must turn the editor's text (tests/lsp_model.py) into its fix."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import lsp_model
from server_client import LspClient, edits_of, uri_of

pytestmark = pytest.mark.slow  # each test starts a server process

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "processors"
NOT_LINE_BREAKS = "\x0c\x0b\x1c\x1d\x1e\x85\u2028\u2029"
CALL = "self.process_and_combine_mm_data("


def capabilities(encoding: str) -> dict:
    return {
        "general": {"positionEncodings": [encoding]},
        "workspace": {"workspaceEdit": {"documentChanges": True}, "applyEdit": True},
        "textDocument": {
            "publishDiagnostics": {"versionSupport": True},
            "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["source.fixAll"]}}},
        },
    }


def send_changes(lsp: LspClient, uri: str, text: str, version: int, steps, encoding: str) -> str:
    """One didChange holding a change per step (a function of the text then
    giving the span to replace and the new text), positioned as the editor
    positions them; the editor's text after them."""
    changes = []
    for step in steps:
        start, end, new = step(text)
        changes.append({"range": lsp_model.range_of(text, start, end, encoding), "text": new})
        text = text[:start] + new + text[end:]
    lsp.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes})
    return text


@pytest.mark.parametrize("encoding", lsp_model.ENCODINGS)
def test_incremental_changes_keep_the_editors_text_around_characters_splitlines_breaks_at(tmp_path, encoding) -> None:
    package = tmp_path / "processors"
    shutil.copytree(FIXTURES, package)
    clip = (package / "mmproc/processors/clip.py").read_text(encoding="utf-8")
    lsp = LspClient(
        package, {**os.environ, "MMLINT_CACHE_DIR": str(tmp_path / "cache")}, capabilities=capabilities(encoding)
    )
    try:
        result = lsp.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": uri_of(package),
                "workspaceFolders": [{"uri": uri_of(package), "name": "processors"}],
                "capabilities": lsp.capabilities,
            },
        )
        assert result["capabilities"]["positionEncoding"] == encoding
        lsp.notify("initialized", {})
        editor: dict[str, str] = {}
        for number, char in enumerate(NOT_LINE_BREAKS):
            eol = ("\n", "\r\n", "\r")[number % 3]
            text = f"# 😀 a{char}b é{eol}" + clip.replace("\n", eol)
            uri = lsp.open(package / f"mmproc/processors/drift_{number}.py", text)
            text = send_changes(
                lsp,
                uri,
                text,
                2,
                [
                    lambda t: (t.index("b é"), t.index("b é") + 1, "B😀"),  # after the character, on its line
                    lambda t: (t.index("mm_items, input_ids, _ ="),) * 2 + ("y = 0; ",),  # on the call's line
                ],
                encoding,
            )
            text = send_changes(
                lsp,
                uri,
                text,
                3,
                [
                    # From after the character, across the docstring, to the import.
                    lambda t, char=char, eol=eol: (t.index(char) + 1, t.index("from __future__"), f"x{char}y{eol}"),
                ],
                encoding,
            )
            editor[uri] = text
        for uri, text in editor.items():
            (diagnostic,) = lsp.diagnostics(uri, version=3)
            start = text.index(CALL)
            end = text.index(")", text.index("self.mm_tokens,")) + 1
            assert (diagnostic["code"], diagnostic["range"]) == (
                "MM001",
                lsp_model.range_of(text, start, end, encoding),
            )
            everything = {"start": {"line": 0, "character": 0}, "end": {"line": 10_000, "character": 0}}
            (action,) = lsp.request(
                "textDocument/codeAction",
                {
                    "textDocument": {"uri": uri},
                    "range": everything,
                    "context": {"diagnostics": [diagnostic], "only": ["source.fixAll"]},
                },
            )
            (change,) = action["edit"]["documentChanges"]
            assert change["textDocument"]["version"] == 3
            fixed = text.replace("= " + CALL, "= await self.process_and_combine_mm_data_async(")
            assert lsp_model.apply_edits(text, edits_of(action["edit"], uri), encoding) == fixed != text
        assert lsp.stop() == 0
    finally:
        lsp.close()
