"""Where each key of a TOML configuration is written: a light scan of the text,
made once when the file is read, so diagnostics and errors can point at a key's
line (mmlint.config.settings.KeyLines)."""

from __future__ import annotations

from mmlint.core.source import split_lines


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Map each table header and each ``key = value`` line to its 1-based line,
    keyed by the full dotted path. Good enough to point at a key: it does not
    try to see through multi-line strings."""
    lines: dict[tuple[str, ...], int] = {}
    current: tuple[str, ...] = ()
    for number, raw in enumerate(split_lines(text), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            header = line[2:] if line.startswith("[[") else line[1:]
            end = _unquoted_index(header, "]")
            if end is None:
                continue
            parts = split_dotted(header[:end])
            if parts is not None:
                current = tuple(parts)
                lines.setdefault(current, number)
            continue
        equals = _unquoted_index(line, "=")
        if equals is None:
            continue
        parts = split_dotted(line[:equals])
        if parts is not None:
            lines.setdefault(current + tuple(parts), number)
    return lines


def _unquoted_index(text: str, wanted: str) -> int | None:
    """Index of the first ``wanted`` character outside quotes, or None."""
    quote = None
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == wanted:
            return index
    return None


def split_dotted(text: str) -> list[str] | None:
    """Split a TOML dotted key (bare or quoted parts) into its parts; None if
    it is not a key."""
    parts: list[str] = []
    i = 0
    n = len(text)
    while True:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            return None
        if text[i] in "\"'":
            quote = text[i]
            end = text.find(quote, i + 1)
            if end < 0:
                return None
            parts.append(text[i + 1 : end])
            i = end + 1
        else:
            start = i
            while i < n and (text[i].isalnum() or text[i] in "_-"):
                i += 1
            if i == start:
                return None
            parts.append(text[start:i])
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            return parts
        if text[i] != ".":
            return None
        i += 1
