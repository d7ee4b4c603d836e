"""A cache of per-file outcomes, keyed by content hash.

The key covers everything a file's facts depend on: the bytes, the path (module
names and relative imports come from it), the display path, the twin pairs and
the code that collects facts (a fingerprint of those modules' source, so an
edited collector never reads stale facts). Rules always run afresh.

Where: `$MMLINT_CACHE_DIR`, else `$XDG_CACHE_HOME/mmlint`, else
`~/.cache/mmlint` — the user's own cache, never inside the scanned project: the
entries are pickles, and a pickle planted in a checked-out repository would run
code when CI lints an untrusted pull request. `MMLINT_NO_CACHE=1` or
`--no-cache` turns it off. Every cache error is ignored: a cache may only speed
a run up, never change or break it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from functools import cache
from pathlib import Path

from importlib.metadata import PackageNotFoundError, version

from mmlint import __version__
from mmlint.facts.model import TwinPair

FORMAT = "facts-v1"
# The modules whose code decides a file's outcome.
_FACT_MODULES = ("analyse_file.py", "source.py", "suppressions.py", "facts/model.py", "facts/ir.py", "facts/collect.py", "facts/ir_builder.py", "facts/positions.py", "facts/scopes.py", "facts/syntax.py")


def cache_root() -> Path:
    configured = os.environ.get("MMLINT_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "mmlint"


def cache_enabled(requested: bool = True) -> bool:
    return requested and os.environ.get("MMLINT_NO_CACHE", "").strip().lower() not in ("1", "true", "yes")


@cache
def _code_fingerprint() -> bytes:
    package = Path(__file__).resolve().parent
    try:
        libcst_version = version("libcst")
    except PackageNotFoundError:
        libcst_version = "unknown"
    digest = hashlib.sha256(f"{FORMAT}|{__version__}|{libcst_version}".encode())
    for relative in _FACT_MODULES:
        with contextlib.suppress(OSError):
            digest.update((package / relative).read_bytes())
    return digest.digest()


class FactsCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def open(cls) -> FactsCache | None:
        directory = cache_root() / FORMAT
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError:
            return None
        return cls(directory)

    def key(self, data: bytes, real_path: Path, display_path: str, twins: tuple[TwinPair, ...]) -> str:
        digest = hashlib.sha256(_code_fingerprint())
        for part in (str(real_path), display_path, repr(twins)):
            digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / key

    def load(self, key: str):
        try:
            with open(self._path(key), "rb") as handle:
                return pickle.load(handle)
        except Exception:  # missing, truncated, from an older layout: a miss
            return None

    def store(self, key: str, outcome) -> None:
        target = self._path(key)
        try:
            target.parent.mkdir(exist_ok=True, mode=0o700)
            descriptor, temp_name = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            try:
                with os.fdopen(descriptor, "wb") as handle:
                    pickle.dump(outcome, handle, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temp_name, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp_name)
                raise
        except Exception:  # read-only home, full disk, unpicklable: run uncached
            return
