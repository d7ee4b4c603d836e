"""A check run's findings as the results cache keeps them, and the key that
says when a stored run answers this one (mmlint.check.cache).

A run's findings are a function of: every file it reads (targets and
context: display path, real path, bytes), the configuration governing each
scope (its values and its file's text, whose lines MM008 and MM009 report),
which scopes the run covers in full, the working directory, and mmlint's
code. The key hashes all of them, so any change to any of them is a miss.
The code is fingerprinted whole (mmlint.check.build_fingerprint): every file
of the package, the parser's version and Python's, as a rule, an analysis or a
reporter-facing message may change in any of them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mmlint.check import build_fingerprint
from mmlint.core.diagnostics import Diagnostic

RESULTS_KEY_VERSION = "results-key-v1"


@dataclass(frozen=True)
class RunResults:
    """What `check` reports of a run: its findings and the counts beside them."""

    diagnostics: tuple[Diagnostic, ...]
    suppressed: tuple[Diagnostic, ...]
    call_sites: int
    full_scan: bool


@dataclass(frozen=True)
class ScopeInput:
    """One configuration of the run, as the key sees it."""

    settings: object  # mmlint.config.settings.Settings
    targets: tuple[str, ...]  # display paths
    full_scan: bool


def run_key(
    files: Iterable[tuple[str, Path, bytes]],
    scopes: Iterable[ScopeInput],
    cwd_settings: object,
    cwd: Path,
) -> str:
    """The key of a run over ``files`` ((display path, real path, sha256 of
    the bytes), in the run's order) under ``scopes``."""
    digest = hashlib.sha256(_code_fingerprint())
    digest.update(_text(str(cwd)))
    digest.update(_settings_text(cwd_settings))
    for scope in scopes:
        digest.update(b"scope\0" + _settings_text(scope.settings))
        digest.update(_text(json.dumps([scope.full_scan, list(scope.targets)])))
    for shown, real, content_digest in files:
        digest.update(b"file\0" + _text(shown) + _text(str(real)) + content_digest)
    return digest.hexdigest()


def _text(part: str) -> bytes:
    return part.encode("utf-8", "surrogateescape") + b"\0"


def _settings_text(settings: object) -> bytes:
    """The settings' values, canonically (sets sorted), which hold the digest of
    their file's text as it was read; Settings built by hand have none, and
    their file is read now."""
    encoded = _text(json.dumps(_canonical(settings), sort_keys=True))
    config_file = getattr(settings, "config_file", None)
    if config_file is None or getattr(settings, "config_digest", None) is not None:
        return encoded
    try:
        with open(config_file, "rb") as handle:
            return encoded + hashlib.sha256(handle.read()).digest()
    except OSError as error:  # unreadable now: such a run is keyed by the error, never by stale text
        return encoded + _text(f"unreadable: {error.errno}")


def _canonical(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return [type(value).__name__, fields]
    if isinstance(value, (frozenset, set)):
        return ["set", sorted((_canonical(item) for item in value), key=repr)]
    if isinstance(value, (tuple, list)):
        return [_canonical(item) for item in value]
    if isinstance(value, Path):
        return ["path", str(value)]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"no canonical form for {type(value).__name__} in the results key")


def _code_fingerprint() -> bytes:
    return hashlib.sha256(RESULTS_KEY_VERSION.encode() + build_fingerprint.build_fingerprint()).digest()
