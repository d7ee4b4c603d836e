"""``file:`` URIs and the paths they name, as editors write them: the path
percent-encoded, a UNC share as the authority. Other schemes (``untitled:``,
``vscode-notebook-cell:``) name no file: None."""

from __future__ import annotations

import os
from urllib.parse import quote, unquote, urlsplit


def path_of(uri: str) -> str | None:
    """The file system path ``uri`` names, or None when it names no file."""
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file":
        return None
    path = unquote(parts.path)
    if parts.netloc and path:
        path = f"//{unquote(parts.netloc)}{path}"  # a UNC share: file://server/share/file
    if os.name == "nt":
        if len(path) >= 3 and path[0] == "/" and path[2] == ":":  # /C:/dir → c:/dir
            path = path[1].lower() + path[2:]
        path = path.replace("/", "\\")
    return path or None


def uri_of(path: str) -> str:
    """The ``file:`` URI of an absolute path."""
    if os.name == "nt":
        path = path.replace("\\", "/")
    netloc = ""
    if path.startswith("//"):  # a UNC share
        netloc, _, rest = path[2:].partition("/")
        path = "/" + rest
    elif not path.startswith("/"):
        path = "/" + path  # a drive letter: /c:/dir
    if os.name == "nt" and len(path) >= 3 and path[2] == ":":  # the drive letter's colon stays as it is
        return f"file://{quote(netloc)}{path[:3]}{quote(path[3:])}"
    return f"file://{quote(netloc)}{quote(path)}"
