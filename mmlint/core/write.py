"""Writing a fixed file atomically: a temporary file beside the original, fsync,
the original's permission bits, then ``os.replace`` over it. On any error the
temporary file is removed and the original is left exactly as it was."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


class ChangedMeanwhile(OSError):
    """The file no longer holds the bytes the new content was made from."""


def write_atomically(path: Path, data: bytes, *, expected: bytes | None = None) -> None:
    """Replace ``path``'s content with ``data`` (or create it); raise ``OSError`` on
    failure, in which case ``path`` is unchanged and no temporary file remains.
    A symbolic link is followed: its target is rewritten and the link stays.

    With ``expected``, the file is replaced only if it still holds exactly those
    bytes, checked under an advisory lock that concurrent mmlint runs share
    (else ChangedMeanwhile): two `mmlint fix` runs over one tree never both
    claim the same rewrite, and an edit made meanwhile is never overwritten."""
    if os.path.exists(path) and not os.path.isfile(path):
        # A device, a FIFO, /dev/stdout: renaming over it would replace the node
        # itself, so write into it instead (there is nothing to keep atomic).
        _write_in_place(path, data)
        return
    path = Path(os.path.realpath(path))
    mode = stat.S_IMODE(os.stat(path).st_mode) if path.exists() else _default_mode()
    descriptor, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".mmlint-tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        with _locked(path):
            if expected is not None and _current(path) != expected:
                raise ChangedMeanwhile(f"{path} changed on disk while it was being fixed")
            os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive advisory lock on the file being replaced (POSIX; elsewhere none)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: the check above still narrows the window
        yield
        return
    try:
        handle = open(path, "rb")
    except OSError:  # a new file: nothing to lock
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield


def _current(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _default_mode() -> int:
    """The mode a new file gets from open(): 0o666 less the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _write_in_place(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
