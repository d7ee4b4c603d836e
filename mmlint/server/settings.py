"""The client's settings: initialization options, then the workspace
configuration's ``mmlint`` section over them. Unknown keys and wrong types are
reported (one line each) and ignored, never fatal: an editor should not lose
its linter over a typo."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

DEFAULT_DEBOUNCE_MS = 100


@dataclass(frozen=True)
class ServerSettings:
    select: tuple[str, ...] | None = None  # like --select: replaces the configured select
    ignore: tuple[str, ...] | None = None  # like --ignore: added to the configured ignore
    config: Path | None = None  # like --config: one configuration file for every document
    # A change within this of the one before waits until the changes pause this long.
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    # Where a diagnostic's code links to ({code}, {name}); None: the rule's page
    # on the project's repository (mmlint.server.protocol.RULE_DOCS_URL).
    rule_docs_url: str | None = None
    warnings: tuple[str, ...] = field(default=(), compare=False)


def _codes(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value if item.strip())
    raise TypeError("a list of codes or prefixes")


def _path(value: object) -> Path | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return Path(value).expanduser()
    raise TypeError("a path (string)")


def _milliseconds(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000:
        return value
    raise TypeError("a whole number of milliseconds from 0 to 10000")


def _url(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value or None
    raise TypeError("a URL template (string) with {code} or {name}")


# Setting name -> (field of ServerSettings, parser).
KEYS = {
    "select": ("select", _codes),
    "ignore": ("ignore", _codes),
    "config": ("config", _path),
    "debounce": ("debounce_ms", _milliseconds),
    "ruleDocsUrl": ("rule_docs_url", _url),
}


def read_settings(raw: object, base: ServerSettings = ServerSettings(), *, where: str = "settings") -> ServerSettings:
    """``raw`` (a JSON object; ``{"mmlint": {...}}`` is unwrapped) over ``base``."""
    if raw is None:
        return base
    if not isinstance(raw, Mapping):
        return replace(base, warnings=(f"{where}: expected an object, got {type(raw).__name__}; ignored",))
    if set(raw) == {"mmlint"}:
        raw = raw["mmlint"]
        if raw is None:
            return base
        if not isinstance(raw, Mapping):
            return replace(base, warnings=(f"{where}.mmlint: expected an object; ignored",))
    changes: dict[str, Any] = {}  # field name -> the value its parser made
    warnings: list[str] = []
    for key, value in raw.items():
        if key not in KEYS:
            close = difflib.get_close_matches(str(key), KEYS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            warnings.append(f"{where}: unknown setting '{key}'{hint}; ignored")
            continue
        name, parse = KEYS[key]
        try:
            changes[name] = parse(value)
        except TypeError as error:
            warnings.append(f"{where}: '{key}' must be {error}; ignored")
    return replace(base, **changes, warnings=tuple(warnings))
