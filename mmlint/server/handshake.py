"""What ``initialize`` settles: what the client can do (read from its
capabilities), the position encoding, the workspace folders, and what the
server offers in return."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmlint.server.protocol import ENCODINGS, UTF16
from mmlint.server.uris import path_of

# TextDocumentSyncKind.Incremental: a didChange sends the changed ranges.
INCREMENTAL = 2


def capability(capabilities: Any, *names: str) -> Any:
    """The client capability at ``names`` (``"workspace", "configuration"``),
    or None where the client leaves it out or gives something other than an
    object on the way: a capability it does not have, rather than an error."""
    value = capabilities
    for name in names:
        if not isinstance(value, Mapping):
            return None
        value = value.get(name)
    return value


def position_encoding(capabilities: Any) -> str:
    """The client's first choice among the encodings the server counts in; UTF-16, the protocol's default, else."""
    offered = capability(capabilities, "general", "positionEncodings")
    if isinstance(offered, list):
        for encoding in offered:
            if encoding in ENCODINGS:
                return str(encoding)
    return UTF16


@dataclass
class Workspace:
    """The workspace folders' paths, else the root the client gave."""

    folders: list[Path] = field(default_factory=list)
    root: Path | None = None

    @classmethod
    def of(cls, params: Mapping[str, Any]) -> Workspace:
        workspace = cls()
        for folder in params.get("workspaceFolders") or ():
            workspace.add(folder["uri"])
        root_uri = params.get("rootUri")
        root = path_of(root_uri) if root_uri is not None else params.get("rootPath")
        if root:
            workspace.root = Path(os.path.abspath(root))
        return workspace

    def add(self, uri: str) -> None:
        path = _folder_path(uri)
        if path is not None and path not in self.folders:
            self.folders.append(path)

    def remove(self, uri: str) -> None:
        path = _folder_path(uri)
        if path in self.folders:
            self.folders.remove(path)

    def roots(self) -> list[Path]:
        return list(self.folders) or ([self.root] if self.root is not None else [])


def _folder_path(uri: str) -> Path | None:
    path = path_of(uri)
    return Path(os.path.abspath(path)) if path else None


def initialize_result(
    name: str, version: str, encoding: str, code_action_kinds: list[str], commands: list[str]
) -> dict[str, Any]:
    """What the server does: the features it handles, no more."""
    return {
        "capabilities": {
            "positionEncoding": encoding,
            "textDocumentSync": {"openClose": True, "change": INCREMENTAL, "save": True},
            "hoverProvider": True,
            "codeActionProvider": {"codeActionKinds": code_action_kinds},
            "executeCommandProvider": {"commands": commands},
            "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True}},
        },
        "serverInfo": {"name": name, "version": version},
    }
