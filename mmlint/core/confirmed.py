"""`check --confirmed FILE`: read a confirmation report (mmlint.confirm's
mmlint-confirm.json) and mark each matching finding with its measurement.
Findings match by key (mmlint.core.confirmation.finding_key), never by line."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeGuard

from mmlint.core.confirmation import STATUSES, Confirmation, callee_of, finding_key
from mmlint.core.diagnostics import Diagnostic, qualname
from mmlint.core.json_file import JsonFileError, read_json_file

# A confirmed finding outranks a refuted one of the same key (two calls of one
# callee in one def), and a refuted one a finding no test reached.
_RANK = {"confirmed": 2, "refuted": 1, "not-reached": 0}


class ConfirmedFileError(Exception):
    """The file is not a confirmation report: the message names it."""


def diagnostic_key(d: Diagnostic) -> str:
    return finding_key(d.code, d.path, qualname(d.owner) if d.owner else "<module>", callee_of(d.chain, d.message))


def load_confirmations(path: Path) -> dict[str, Confirmation]:
    try:
        data = read_json_file(path)
    except JsonFileError as error:
        raise ConfirmedFileError(str(error)) from None
    if not isinstance(data, dict) or data.get("version") != 1 or not isinstance(data.get("findings"), list):
        raise ConfirmedFileError(f'{path}: not a confirmation report (version 1 with a "findings" list)')
    found: dict[str, Confirmation] = {}
    for index, entry in enumerate(data["findings"]):
        confirmation = _confirmation(entry)
        if confirmation is None:
            raise ConfirmedFileError(f"{path}: finding {index} lacks a key, status or measurement of the right type")
        key = entry["key"]
        held = found.get(key)
        if held is None or (_RANK[confirmation.status], confirmation.blocked_ms_max) > (
            _RANK[held.status],
            held.blocked_ms_max,
        ):
            found[key] = confirmation
    return found


def _confirmation(entry: Any) -> Confirmation | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("key"), str) or entry.get("status") not in STATUSES:
        return None
    total, longest = entry.get("blocked_ms_total"), entry.get("blocked_ms_max")
    if type(entry.get("calls")) is not int or not (_is_number(total) and _is_number(longest)):
        return None
    if not isinstance(entry.get("test", ""), str):
        return None
    return Confirmation(entry["status"], entry["calls"], float(total), float(longest), entry.get("test", ""))


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def apply_confirmations(
    diagnostics: Iterable[Diagnostic], confirmations: Mapping[str, Confirmation], *, drop_refuted: bool = False
) -> tuple[Diagnostic, ...]:
    """The diagnostics with a confirmed or refuted measurement attached (a
    finding no test reached stays as it was); refuted ones left out when
    ``drop_refuted``."""
    marked: list[Diagnostic] = []
    for d in diagnostics:
        confirmation = confirmations.get(diagnostic_key(d))
        if confirmation is None or confirmation.status == "not-reached":
            marked.append(d)
        elif not (drop_refuted and confirmation.status == "refuted"):
            marked.append(dataclasses.replace(d, confirmation=confirmation))
    return tuple(marked)
