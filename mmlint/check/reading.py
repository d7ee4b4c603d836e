"""Reading a run's files: each file's bytes within its size budget, its
content digest (the caches' keys), and the prefilter's verdict on whether
it could hold a finding (mmlint.check.prefilter)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mmlint.check.cost import over_size_budget
from mmlint.check.discovery import SourceFile
from mmlint.check.file_index import FileIndex
from mmlint.check.prefilter import Prefilter
from mmlint.config.settings import Budgets
from mmlint.core.twins import TwinPair

if TYPE_CHECKING:
    from mmlint.check.per_file import FileTask


@dataclass(frozen=True)
class StdinSource:
    """A file given on standard input (an editor's unsaved buffer): its bytes,
    and the path it stands for (``--stdin-filename``; it need not exist), whose
    configuration, exemptions and context apply. Without one, it is ``-`` in
    the working directory."""

    data: bytes
    filename: Path | None = None
    # False: the stream holds more than ``data``; reading stopped one byte
    # past the file's size budget (mmlint.cli.common.read_stdin): refused.
    complete: bool = True


@dataclass(frozen=True)
class FilesRead:
    """The files as the analysis reads them: the ones that could not be read,
    the ones over their size budget (never read whole), the ones the
    prefilter says cannot hold a finding, the bytes of the others (to
    analyse), and every file's digest (the facts cache's keys; of a refused
    file, of its refusal)."""

    files: tuple[str, ...]  # display paths, the run's order
    unreadable: dict[str, str]  # display path -> why
    prefiltered: tuple[str, ...]
    tasks: list[FileTask]
    digests: list[tuple[str, Path, bytes]]  # (display path, real path, sha256 of the bytes)
    refused: dict[str, str] = field(default_factory=dict)  # display path -> the size budget it is over
    # The bytes of prefiltered files that did not come from the disk (an
    # editor's buffers): the reach (mmlint.check.reach) reads the others again.
    held: dict[str, bytes] = field(default_factory=dict)


class _OverSizeBudget(Exception):
    """A file holds more bytes than its size budget: ``str()`` says so."""


def _read_within(real: Path, budgets: Budgets) -> bytes:
    """The file's bytes, checking the size budget before reading and reading
    no more than one byte past it (a file that grows meanwhile, a device)."""
    limit = budgets.max_file_size
    with open(real, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        if size > limit:
            raise _OverSizeBudget(over_size_budget(size, budgets))
        # Not read(limit + 1): a buffered read allocates all it is asked for,
        # 8 MiB a file by default, and glibc keeps the heap those leave in
        # pieces (sglang's 4,719 files: 37 MiB more peak RSS).
        data = file.read(size + 1)
        if len(data) > size:  # it grew since, or is no regular file (a device, a pipe)
            data += file.read(limit + 1 - len(data))
    if len(data) > limit:
        raise _OverSizeBudget(over_size_budget(None, budgets))
    return data


def _refusal_digest(why: str) -> bytes:
    """The digest a refused file is keyed by: its findings are its refusal."""
    return hashlib.sha256(b"mmlint: not read: " + why.encode()).digest()


def digests_of(files: Mapping[str, SourceFile], index: FileIndex | None = None) -> list[tuple[str, Path, bytes]] | None:
    """(display path, real path, sha256 of the bytes) of every file, in the
    run's order, as _read gives them (an unchanged file's from the ``index``);
    None when one cannot be read."""
    digests: list[tuple[str, Path, bytes]] = []
    for shown, source in files.items():
        real = source.path
        entry, signature, recorded_ns = index.known(real) if index is not None else (None, None, 0)
        if entry is not None and entry.signature[0] <= source.settings.budgets.max_file_size:
            digests.append((shown, real, entry.digest))
            continue
        try:
            digest = hashlib.sha256(_read_within(real, source.settings.budgets)).digest()
        except _OverSizeBudget as refusal:
            digest = _refusal_digest(str(refusal))
        except OSError:
            return None
        else:
            if index is not None:
                index.record(real, signature, recorded_ns, digest)
        digests.append((shown, real, digest))
    return digests


def read_files(
    files: Mapping[str, SourceFile], sources: Mapping[str, StdinSource], index: FileIndex | None = None
) -> FilesRead:
    """Read each file once, hash it and run the prefilter; keep the bytes of
    only the files the prefilter passes. ``sources`` holds what was already
    read (standard input) by display path. Each file is read with the twins
    and budgets of its configuration, as discovery found it; a file over its
    size budget is refused unread. A file the ``index`` knows unchanged, and
    its prefilter rejected, is not read again (mmlint.check.file_index)."""
    from mmlint.check.per_file import FileTask  # the per-file pass: not needed before a results-cache miss

    prefilters: dict[tuple[TwinPair, ...], Prefilter] = {}
    unreadable: dict[str, str] = {}
    refused: dict[str, str] = {}
    prefiltered: list[str] = []
    held: dict[str, bytes] = {}
    tasks: list[FileTask] = []
    digests: list[tuple[str, Path, bytes]] = []
    for shown, source in files.items():
        real, settings = source.path, source.settings
        prefilter = prefilters.get(settings.twins)
        if prefilter is None:
            prefilter = prefilters[settings.twins] = Prefilter(settings.twins)
        entry, signature, recorded_ns = (
            index.known(real) if index is not None and shown not in sources else (None, None, 0)
        )
        if (
            entry is not None
            and entry.signature[0] <= settings.budgets.max_file_size
            and entry.verdict(prefilter.key) is False
        ):
            digests.append((shown, real, entry.digest))
            prefiltered.append(shown)
            continue
        try:
            if shown in sources:
                data, complete = sources[shown].data, sources[shown].complete
                if not complete or len(data) > settings.budgets.max_file_size:
                    raise _OverSizeBudget(over_size_budget(len(data) if complete else None, settings.budgets))
            else:
                data = _read_within(real, settings.budgets)
        except _OverSizeBudget as refusal:
            refused[shown] = str(refusal)
            digests.append((shown, real, _refusal_digest(refused[shown])))
            continue
        except OSError as error:
            unreadable[shown] = str(error.strerror or error)
            continue
        digest = hashlib.sha256(data).digest()
        digests.append((shown, real, digest))
        passes = prefilter.could_hold_finding(data)
        if index is not None and shown not in sources:
            index.record(real, signature, recorded_ns, digest, (prefilter.key, passes))
        if passes:
            tasks.append(FileTask(data, real, shown, settings.twins, settings.budgets))
        else:
            prefiltered.append(shown)
            if shown in sources:
                held[shown] = data
    return FilesRead(tuple(files), unreadable, tuple(prefiltered), tasks, digests, refused, held)
