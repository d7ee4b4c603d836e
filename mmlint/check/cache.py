"""Three caches, keyed by content hash.

Facts (`facts-v*`): per-file outcomes, and the light tier's entries of the
files the reach leads to (mmlint.facts.light_groups: sync defs group by
group, each decoded when asked). The key covers everything a file's
facts depend on: the bytes, the path (module names and relative imports come
from it), the display path, the twin pairs and the build of mmlint
(mmlint.check.build_fingerprint: every file of the package, libcst's version
and Python's), so another build sharing the directory never reads them.

Results (`results-v*`): a check run's findings, keyed by everything they
depend on (mmlint.check.results): every file's bytes and paths, every
configuration and the whole of mmlint's code. Running `check` again over an
unchanged tree costs reading and hashing it. Any change is a miss, and the run
then reads facts from the facts cache and runs the rules afresh.

Where: `$MMLINT_CACHE_DIR`, else `$XDG_CACHE_HOME/mmlint`, else
`~/.cache/mmlint`. An entry is the `pickle` (HIGHEST_PROTOCOL) of
``(format, key, value)``, the value the outcome, light-tier entry or findings
themselves, behind an HMAC-SHA256 under a per-user secret (`key` in the cache
root, created 0600, refused unless the user's own and private). The MAC is
checked before anything is unpickled, so only bytes this user's mmlint wrote
are ever unpickled: an entry anyone else wrote, by planting a file or
restoring one from a checkout (the key of an entry is computable from public
inputs), is a miss, and so is anything whose MAC fails, which does not
unpickle, or whose format, key or top-level type is not the expected one.
(A hand-written codec to plain data and `marshal` read a warm run's entries
of sglang and vLLM together at most 5 % faster, benchmarks/codec_ab.py: not
the 10 % that would have kept its 750 lines.) The directory must be the user's
own (owned by them, writable by no one else) and must not lie inside what the
run scans (its walked directories, their configuration's directory and
repository): otherwise the run goes on uncached with a warning. `MMLINT_NO_CACHE=1` or `--no-cache`
turns it off; `MMLINT_CACHE_MAX_MB` caps the size of all three together (least
recently used entries go first). Every other cache error is ignored: a cache
may only speed a run up, never change or break it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import pickle
import secrets
import stat
import tempfile
import time
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from mmlint.check import build_fingerprint
from mmlint.check.results import RunResults
from mmlint.core.safe_read import PlacedFileError, read_placed

if TYPE_CHECKING:
    from mmlint.check.file_index import StoredIndex
    from mmlint.facts.light_groups import LightEntry
    from mmlint.facts.model import FileFacts, SyncDef
    from mmlint.facts.outcome import FileOutcome

FORMAT = "facts-v3"
RESULTS_FORMAT = "results-v2"
INDEX_FORMAT = "index-v1"
FORMAT_PREFIXES = (
    "facts-v",
    "results-v",
    "index-v",
    "prefilter-v",
)  # for `mmlint clean`: every format's directory, and the prefilter verdicts earlier versions kept
DEFAULT_MAX_MB = 256
PRUNE_TO = 0.8  # of the cap, so that pruning is not needed again at the next store
_HIT_TOUCH_SECONDS = 24 * 3600  # a hit older than this gets a fresh mtime (least recently *used*)
_STALE_TEMP_SECONDS = 3600


def cache_root() -> Path:
    configured = os.environ.get("MMLINT_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "mmlint"


def cache_enabled(requested: bool = True) -> bool:
    return requested and os.environ.get("MMLINT_NO_CACHE", "").strip().lower() not in ("1", "true", "yes")


def light_entry(facts: FileFacts | None) -> LightEntry:
    """A light-tier file's facts as the facts cache keeps them: the sync defs
    by group (mmlint.facts.light_groups), each pickled on its own."""
    from mmlint.facts.light_groups import LightEntry, grouped

    if facts is None:
        return LightEntry(None)
    groups = grouped(facts.sync_defs)
    bodies = tuple(
        pickle.dumps(tuple(facts.sync_defs[index] for index in indices), PICKLE_PROTOCOL) for indices in groups.values()
    )
    return LightEntry(replace(facts, sync_defs=()), tuple(groups), tuple(map(tuple, groups.values())), bodies)


@lru_cache(maxsize=1 << 14)
def group_sync_defs(body: bytes) -> tuple[SyncDef, ...]:
    """One group of a LightEntry unpickled; raises (ValueError for anything but
    a tuple of SyncDef) otherwise. The same bytes are unpickled once per
    process: `mmlint server` keeps its entries in memory and asks for the
    same groups at every change. ``body`` must come from an entry whose MAC
    was checked, or from this process: it is unpickled."""
    from mmlint.facts.model import SyncDef

    defs = pickle.loads(body)  # noqa: S301  # our own bytes (see above)
    if type(defs) is not tuple or any(type(info) is not SyncDef for info in defs):
        raise ValueError("not a group of sync defs")
    return defs


@cache
def _outcome_classes() -> tuple[type, ...]:
    """FileOutcome's members, imported when first needed: a run the results cache answers never loads an outcome."""
    from mmlint.facts.outcome import ParseFailure, Parsed, Unparsed

    return (Parsed, Unparsed, ParseFailure)


def unsafe_directory_reason(directory: Path) -> str | None:
    """Why another user could plant entries in ``directory``, or None. Off POSIX
    there is no owner and mode to check."""
    if os.name != "posix" or not hasattr(os, "geteuid"):
        return None
    try:
        info = os.stat(directory)
    except OSError as error:
        return f"cannot inspect it: {error.strerror or error}"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a directory"
    if info.st_uid != os.geteuid():
        return f"it is owned by uid {info.st_uid}, not by you (uid {os.geteuid()})"
    writable_by = [who for who, bit in (("group", stat.S_IWGRP), ("others", stat.S_IWOTH)) if info.st_mode & bit]
    if writable_by:
        return f"it is writable by {' and '.join(writable_by)} (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def max_cache_bytes() -> int:
    """The size cap from MMLINT_CACHE_MAX_MB; ValueError with the reason when it is not a positive number."""
    configured = os.environ.get("MMLINT_CACHE_MAX_MB", "").strip()
    if not configured:
        return DEFAULT_MAX_MB * 1024 * 1024
    try:
        megabytes = float(configured)
    except ValueError:
        megabytes = float("nan")
    if not megabytes > 0 or megabytes == float("inf"):
        raise ValueError(f"MMLINT_CACHE_MAX_MB must be a positive number of MiB, not {configured!r}")
    return int(megabytes * 1024 * 1024)


class OutcomeCache(Protocol):
    """Where the per-file pass finds and keeps outcomes: the FactsCache on disk,
    or the server's in memory (mmlint.server.analysis.MemoryFactsCache)."""

    def key(self, content_digest: bytes, real_path: Path, display_path: str, options: object) -> str: ...

    def load(self, key: str) -> FileOutcome | None: ...

    def store(self, key: str, outcome: FileOutcome) -> None: ...

    def load_light(self, key: str) -> LightEntry | None: ...

    def store_light(self, key: str, entry: LightEntry) -> None: ...

    def finish(self) -> None: ...


@dataclass(frozen=True)
class CacheOpening:
    """The cache to use, or None; ``warning`` says why a requested cache is not
    used when the user should hear of it (a directory others can write, a bad
    setting). The engine stays silent: the command line prints it."""

    cache: OutcomeCache | None
    warning: str | None = None
    results: ResultsCache | None = None
    index: IndexCache | None = None  # with the results cache, for the runs it keys


KEY_FILE = "key"  # the per-user secret entries are authenticated with, in the cache root
_KEY_BYTES = 32


def open_cache(requested: bool = True, scanned: Iterable[Path] = ()) -> CacheOpening:
    """The caches to use. ``scanned``: the directories the run reads (walked
    trees, configuration directories); a cache inside one of them, or inside
    their repository, is one the code under check could have written."""
    if not cache_enabled(requested):
        return CacheOpening(None)
    root = cache_root()
    try:
        max_bytes = max_cache_bytes()
    except ValueError as error:
        return CacheOpening(None, f"not using the cache at {root}: {error}")
    inside = _scanned_tree_holding(root, scanned)
    if inside is not None:
        return CacheOpening(
            None,
            f"not using the cache at {root}: it lies inside {inside}, which this run checks and could have written it",
        )
    directory, results_directory, index_directory = root / FORMAT, root / RESULTS_FORMAT, root / INDEX_FORMAT
    # The root is checked before anything is created inside it.
    for path in (root, directory, results_directory, index_directory):
        try:
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError:  # read-only home, a file in the way: run uncached, as before
            if path in (results_directory, index_directory):  # facts made by an earlier mmlint are still good
                return CacheOpening(FactsCache(directory, max_bytes))
            return CacheOpening(None)
        reason = unsafe_directory_reason(path)
        if reason is not None:
            return CacheOpening(None, f"not using the cache at {path}: {reason}")
    try:
        secret = _user_secret(root)
    except _UnsafeKey as error:
        return CacheOpening(None, f"not using the cache at {root}: {error}")
    except OSError:  # read-only home and no key yet: run uncached, as for the directories
        return CacheOpening(None)
    every = (directory, results_directory, index_directory)
    return CacheOpening(
        FactsCache(directory, max_bytes, every, secret),
        results=ResultsCache(results_directory, max_bytes, every, secret),
        index=IndexCache(index_directory, max_bytes, every, secret),
    )


def _scanned_tree_holding(root: Path, scanned: Iterable[Path]) -> str | None:
    """The first of ``scanned`` (or the repository holding it) that holds the cache ``root``."""
    from mmlint.check.gitignore import find_repository_root

    cache = os.path.realpath(root)
    for directory in scanned:
        real = os.path.realpath(directory)
        repository = find_repository_root(real)
        for tree in (real, repository) if repository is not None else (real,):
            if cache == tree or cache.startswith(tree.rstrip(os.sep) + os.sep):
                return tree
    return None


class _UnsafeKey(Exception):
    """The key file is not one only this user could have written; ``str()`` says why."""


def _user_secret(root: Path) -> bytes:
    """The secret in ``root/key``, created (0600, never through a link) on
    first use. Raises _UnsafeKey when someone else could have written or read
    it, OSError when it can be neither read nor created."""
    path = os.path.join(root, KEY_FILE)
    try:
        placed = read_placed(path, 4 * _KEY_BYTES, follow_links=False)
    except FileNotFoundError:
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except FileExistsError:  # another run made it meanwhile
            return _user_secret(root)
        secret = secrets.token_bytes(_KEY_BYTES)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(secret)
        return secret
    except PlacedFileError as error:  # a link, a FIFO, a device, too long
        raise _UnsafeKey(f"its {KEY_FILE} file is refused: {error.strerror}") from None
    info, secret = placed.status, placed.data
    if os.name == "posix" and hasattr(os, "geteuid"):
        if info.st_uid != os.geteuid():
            raise _UnsafeKey(f"its {KEY_FILE} file is owned by uid {info.st_uid}, not by you (uid {os.geteuid()})")
        if info.st_mode & 0o077:
            raise _UnsafeKey(f"its {KEY_FILE} file is open to group or others (mode {stat.S_IMODE(info.st_mode):o})")
    if len(secret) < _KEY_BYTES:  # an interrupted first run: its entries were never signed with it
        raise _UnsafeKey(f"its {KEY_FILE} file is too short; remove it (a new one is made)")
    return secret


_MAC_DIGITS = 64  # an HMAC-SHA256 in hex

# The build fingerprint covers it (mmlint.check.build_fingerprint): a
# Python whose highest protocol differs keys its entries apart.
PICKLE_PROTOCOL = pickle.HIGHEST_PROTOCOL


def entry_bytes(secret: bytes, fields: tuple[str, str, object]) -> bytes:
    """An entry file's bytes: the MAC under ``secret``, then the pickled
    ``(format, key, value)``. Raises for what pickle cannot write (a value
    nested too deeply: RecursionError)."""
    signed = pickle.dumps(fields, PICKLE_PROTOCOL)
    return _mac(secret, signed) + signed


def _mac(secret: bytes, signed: bytes) -> bytes:
    return hmac.new(secret, signed, hashlib.sha256).hexdigest().encode("ascii")


class _EntryStore:
    """Entries of one format: files named by their key, in two-character
    shards, written atomically, each the MAC (64 hex digits) and then the
    pickled ``(format, key, value)`` it covers (entry_bytes).
    ``pruned`` are the directories whose entries share the size cap."""

    format = ""

    def __init__(
        self,
        directory: Path,
        max_bytes: int = DEFAULT_MAX_MB * 1024 * 1024,
        pruned: tuple[Path, ...] = (),
        secret: bytes | None = None,
    ) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self._pruned = pruned or (directory,)
        self._stored = False
        # Without the user's secret (a cache built by hand), entries are good for this process only.
        self._secret = secret if secret is not None else secrets.token_bytes(_KEY_BYTES)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / key

    def _load_value(self, key: str, expected: tuple[type, ...]) -> object:
        """The value stored under ``key``, one of the ``expected`` classes;
        raises for every kind of miss."""
        path = self._path(key)
        # Never through a link, never a FIFO or device, never past the cap (mmlint.core.safe_read).
        placed = read_placed(path, self.max_bytes, follow_links=False)
        modified, raw = placed.status.st_mtime, placed.data
        mac, signed = raw[:_MAC_DIGITS], raw[_MAC_DIGITS:]
        if not hmac.compare_digest(_mac(self._secret, signed), mac):
            raise ValueError("not an entry this user's mmlint wrote")
        entry = pickle.loads(signed)  # noqa: S301  # only after the MAC: bytes this user's mmlint wrote
        if type(entry) is not tuple or len(entry) != 3 or entry[0] != self.format or entry[1] != key:
            raise ValueError("not an entry of this format and key")
        if type(entry[2]) not in expected:
            raise ValueError(f"not one of {[cls.__name__ for cls in expected]}")
        if time.time() - modified > _HIT_TOUCH_SECONDS:
            with contextlib.suppress(OSError):
                os.utime(path)
        return entry[2]

    def _store_value(self, key: str, value: object) -> None:
        target = self._path(key)
        try:
            raw = entry_bytes(self._secret, (self.format, key, value))
            target.parent.mkdir(exist_ok=True, mode=0o700)
            descriptor, temp_name = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            try:
                with os.fdopen(descriptor, "wb") as handle:
                    handle.write(raw)
                os.replace(temp_name, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp_name)
                raise
        except Exception:  # read-only home, full disk, too deep to pickle: run uncached
            return
        self._stored = True
        _sizes.grew(self._pruned, len(raw))

    def finish(self) -> None:
        """After a run's stores: keep the cache under its cap. A run that stored
        nothing cannot have grown it, so it does not even look; nor does one
        whose stores, added to the size this process measured moments ago,
        stay under the cap (a run's formats finish one after another)."""
        if self._stored:
            self._stored = False
            if not _sizes.under(self._pruned, self.max_bytes):
                _sizes.measured(self._pruned, prune(self._pruned, self.max_bytes))


class FactsCache(_EntryStore):
    format = FORMAT

    def key(self, content_digest: bytes, real_path: Path, display_path: str, options: object) -> str:
        """``content_digest``: the sha256 of the file's bytes (the read already
        took it); ``options``: whatever else decides the outcome (twin pairs,
        budgets), by its repr."""
        digest = hashlib.sha256(FORMAT.encode() + build_fingerprint.build_fingerprint())
        for part in (str(real_path), display_path, repr(options)):
            digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(content_digest)
        return digest.hexdigest()

    def has(self, key: str) -> bool:
        """Whether an entry is stored under ``key`` (a stat, no read): whether
        load() can hit, so a run can tell its misses before decoding its hits."""
        return os.path.isfile(self._path(key))

    def load(self, key: str) -> FileOutcome | None:
        """The outcome stored under ``key``, or None for a miss: missing, unreadable,
        not signed with the user's key, not this format, not this key, or anything
        that does not unpickle to an outcome."""
        try:
            return cast("FileOutcome", self._load_value(key, _outcome_classes()))
        except Exception:  # every way an entry can be bad is a miss
            return None

    def store(self, key: str, outcome: FileOutcome) -> None:
        self._store_value(key, outcome)

    def load_light(self, key: str) -> LightEntry | None:
        """The light-tier entry stored under ``key`` (mmlint.check.reach), or
        None for a miss (its groups are unpickled when asked, not here)."""
        from mmlint.facts.light_groups import LightEntry

        try:
            entry = cast("LightEntry", self._load_value(key, (LightEntry,)))
        except Exception:  # every way an entry can be bad is a miss
            return None
        if not len(entry.groups) == len(entry.positions) == len(entry.bodies):
            return None
        return entry

    def store_light(self, key: str, entry: LightEntry) -> None:
        self._store_value(key, entry)


class ResultsCache(_EntryStore):
    """Whole-run findings (mmlint.check.results.RunResults) under a run key."""

    format = RESULTS_FORMAT

    def load(self, key: str) -> RunResults | None:
        try:
            return cast(RunResults, self._load_value(key, (RunResults,)))
        except Exception:  # every way an entry can be bad is a miss
            return None

    def store(self, key: str, results: RunResults) -> None:
        self._store_value(key, results)



class IndexCache(_EntryStore):
    """A run's file index (mmlint.check.file_index.StoredIndex) under a key of its files."""

    format = INDEX_FORMAT

    def load_index(self, key: str) -> StoredIndex | None:
        from mmlint.check.file_index import StoredIndex

        try:
            return cast("StoredIndex", self._load_value(key, (StoredIndex,)))
        except Exception:  # every way an entry can be bad is a miss
            return None

    def store_index(self, key: str, index: StoredIndex) -> None:
        self._store_value(key, index)


def _entries(directory: Path) -> Iterator[tuple[Path, int, float]]:
    """(path, size, mtime) of each entry and temp file in a format directory, never following links."""
    with contextlib.suppress(OSError), os.scandir(directory) as shards:
        for shard in shards:
            if not (len(shard.name) == 2 and shard.is_dir(follow_symlinks=False)):
                continue
            with contextlib.suppress(OSError), os.scandir(shard.path) as files:
                for entry in files:
                    if _is_entry_name(entry.name) and entry.is_file(follow_symlinks=False):
                        with contextlib.suppress(OSError):
                            info = entry.stat(follow_symlinks=False)
                            yield Path(entry.path), info.st_size, info.st_mtime


def _is_entry_name(name: str) -> bool:
    return name.startswith(".tmp-") or (len(name) == 64 and all(c in "0123456789abcdef" for c in name))


class _MeasuredSizes:
    """The size of each group of format directories as this process last
    measured it (by pruning), with the bytes it stored there since: a run's
    caches finish one after another, and only the first needs to walk every
    entry. A measurement is trusted for MEASURE_SECONDS: other processes
    write to the cache too."""

    MEASURE_SECONDS = 30.0

    def __init__(self) -> None:
        self._sizes: dict[tuple[Path, ...], tuple[float, int]] = {}  # group -> (when measured, bytes since and then)

    def grew(self, group: tuple[Path, ...], added: int) -> None:
        if group in self._sizes:
            when, size = self._sizes[group]
            self._sizes[group] = (when, size + added)  # a replaced entry counts twice: an overestimate

    def measured(self, group: tuple[Path, ...], size: int) -> None:
        self._sizes[group] = (time.monotonic(), size)

    def under(self, group: tuple[Path, ...], max_bytes: int) -> bool:
        known = self._sizes.get(group)
        return known is not None and time.monotonic() - known[0] < self.MEASURE_SECONDS and known[1] <= max_bytes


_sizes = _MeasuredSizes()


def prune(directories: Path | tuple[Path, ...], max_bytes: int) -> int:
    """Past ``max_bytes`` (all ``directories`` together), remove the least
    recently used entries down to PRUNE_TO of it (and temp files a killed run
    left); returns the bytes left."""
    if isinstance(directories, Path):
        directories = (directories,)
    entries = [entry for directory in directories for entry in _entries(directory)]
    now = time.time()
    total = sum(size for _, size, _ in entries)
    for path, size, modified in entries:
        if path.name.startswith(".tmp-") and now - modified > _STALE_TEMP_SECONDS:
            with contextlib.suppress(OSError):
                path.unlink()
                total -= size
    if total > max_bytes:
        for path, size, _ in sorted(entries, key=lambda entry: entry[2]):
            if total <= max_bytes * PRUNE_TO:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                total -= size
    return total


@dataclass(frozen=True)
class Cleaned:
    entries: int
    bytes: int
    errors: tuple[str, ...]


def clean(root: Path) -> Cleaned:
    """Remove every entry of every cache format under ``root`` (and the emptied
    directories). Only names the cache itself writes are touched, so a cache
    directory set to a wrong place loses nothing else."""
    removed = freed = 0
    errors: list[str] = []
    try:
        formats = [
            e for e in os.scandir(root) if e.name.startswith(FORMAT_PREFIXES) and e.is_dir(follow_symlinks=False)
        ]
    except FileNotFoundError:
        return Cleaned(0, 0, ())
    except OSError as error:
        return Cleaned(0, 0, (f"{root}: {error.strerror or error}",))
    for format_dir in formats:
        for path, size, _ in _entries(Path(format_dir.path)):
            try:
                path.unlink()
            except OSError as error:
                errors.append(f"{path}: {error.strerror or error}")
            else:
                removed += 1
                freed += size
        with contextlib.suppress(OSError), os.scandir(format_dir.path) as shards:
            for shard in list(shards):
                if len(shard.name) == 2 and shard.is_dir(follow_symlinks=False):
                    with contextlib.suppress(OSError):
                        os.rmdir(shard.path)  # only when empty
        with contextlib.suppress(OSError):
            os.rmdir(format_dir.path)
    return Cleaned(removed, freed, tuple(errors))
