"""Each unchanged file's digest and prefilter verdict, known without reading
it again: by the file's stat signature (size, mtime, ctime, inode, device),
as git's index and mypy's cache tell an unchanged file. A re-check after one
file changed otherwise reads, hashes and prefilters every file twice (the
results key, then the analysis): sglang's 4,719 files, a fifth of that run.

Sound as git's index is: the signature is taken before the file is read, so
a write during the read changes it and the next run reads the file again;
ctime moves with every write and cannot be set back by `touch` or a tool
that restores mtimes; and an entry whose file's times are not older than its
recording by RACY_NS is not trusted (a write within a filesystem's timestamp
granularity of the recording could leave the signature as it was: git's
"racily clean" entries). Such files are read again, and recorded anew.

The index of a run's files is one entry in the results store, under a key of
the set of their paths and mmlint's build (a prefilter's verdict is the
prefilter's of that build); it holds exactly the run's files.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from mmlint.check import build_fingerprint

RACY_NS = 2_000_000_000  # FAT's two seconds: the coarsest timestamps a checkout may have

Signature = tuple[int, int, int, int, int]  # size, mtime, ctime (ns), inode, device


@dataclass(frozen=True, slots=True)
class IndexEntry:
    signature: Signature
    recorded_ns: int  # wall clock before the signature was taken
    digest: bytes  # sha256 of the bytes read after it
    # (prefilter key, whether it could hold a finding), for each prefilter that judged these bytes
    verdicts: tuple[tuple[str, bool], ...] = ()

    def trusted(self, signature: Signature) -> bool:
        return signature == self.signature and max(signature[1], signature[2]) + RACY_NS < self.recorded_ns

    def verdict(self, prefilter_key: str) -> bool | None:
        return next((passes for key, passes in self.verdicts if key == prefilter_key), None)


@dataclass(frozen=True, slots=True)
class StoredIndex:
    """What the results store holds under an index key (mmlint.check.cache)."""

    entries: dict[str, IndexEntry]  # by real path


class IndexStore(Protocol):
    def load_index(self, key: str) -> StoredIndex | None: ...

    def store_index(self, key: str, index: StoredIndex) -> None: ...


def signature_of(path: Path) -> Signature | None:
    """The file's signature (through links, as opening it goes), or None when it cannot be stat'ed."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino, status.st_dev)


class FileIndex:
    """A run's view of the stored index: what each file is known to be, and
    what this run learned (saved when it learned anything)."""

    def __init__(self, store: IndexStore | None, paths: Iterable[Path]) -> None:
        self._store = store
        self._paths = [os.fspath(path) for path in paths]
        self._key = _index_key(self._paths)
        stored = store.load_index(self._key) if store is not None else None
        self._known: dict[str, IndexEntry] = dict(stored.entries) if stored is not None else {}
        self._changed = stored is None

    def known(self, path: Path) -> tuple[IndexEntry | None, Signature | None, int]:
        """(the trusted entry or None, the file's signature now, the time taken before it)."""
        recorded_ns = time.time_ns()
        signature = signature_of(path)
        entry = self._known.get(os.fspath(path))
        if entry is None or signature is None or not entry.trusted(signature):
            return None, signature, recorded_ns
        return entry, signature, recorded_ns

    def record(
        self,
        path: Path,
        signature: Signature | None,
        recorded_ns: int,
        digest: bytes,
        verdict: tuple[str, bool] | None = None,
    ) -> None:
        """What the bytes read after ``signature`` was taken are; the verdicts
        an earlier entry for the same bytes holds are kept."""
        if signature is None:
            return
        name = os.fspath(path)
        old = self._known.get(name)
        verdicts = old.verdicts if old is not None and old.digest == digest else ()
        if verdict is not None:
            verdicts = (*(v for v in verdicts if v[0] != verdict[0]), verdict)
        entry = IndexEntry(signature, recorded_ns, digest, verdicts)
        if entry != old:
            self._known[name] = entry
            self._changed = True

    def save(self) -> None:
        """Store the entries of the run's files, when the run learned anything."""
        if self._store is None or not self._changed:
            return
        entries = {name: self._known[name] for name in self._paths if name in self._known}
        self._store.store_index(self._key, StoredIndex(entries))
        self._changed = False


def prefilter_key(words: Iterable[bytes]) -> str:
    """A prefilter's identity among those a configuration can make: its trigger words."""
    return hashlib.sha256(b"\0".join(words)).hexdigest()[:16]


def _index_key(paths: list[str]) -> str:
    digest = hashlib.sha256(b"file-index\0" + build_fingerprint.build_fingerprint())
    for name in sorted(paths):
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()
