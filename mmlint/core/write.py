"""Writing a fixed file atomically: a temporary file beside the original, fsync,
the original's permission bits, then ``os.replace`` over it. On any error the
temporary file is removed and the original is left exactly as it was."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path``'s content with ``data`` (or create it); raise ``OSError`` on
    failure, in which case ``path`` is unchanged and no temporary file remains.
    A symbolic link is followed: its target is rewritten and the link stays."""
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
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise


def _default_mode() -> int:
    """The mode a new file gets from open(): 0o666 less the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _write_in_place(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
