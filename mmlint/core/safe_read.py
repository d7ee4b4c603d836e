"""Reading a file that a repository or another process could have placed.

A configuration file, a ``.gitignore``, a baseline, a cache entry or the
cache's key may be a FIFO (whose open blocks until a writer comes), a link to
``/dev/zero`` (which never ends) or a file of any size. ``read_placed`` opens
it without blocking (``O_NONBLOCK``; ``O_NOFOLLOW`` too where a link is never
what mmlint wrote), checks what was opened (``fstat`` on the descriptor, so a
swap between a check and the open changes nothing), and reads no more than
one byte past the limit of its kind. It raises ``OSError``; the ones it
makes itself are ``PlacedFileError`` with ``strerror`` saying why, so the
callers' "cannot read: {strerror}" messages read well.

The limits, per kind (the README's "Files mmlint reads" lists them):

- configuration files: 1 MiB;
- ``.gitignore`` and ``info/exclude``: 100 MiB (git's own limit); a ``.git``
  file and ``commondir``: 64 KiB;
- baselines: 64 MiB, with arrays and objects nested at most 64 deep
  (``json_depth``);
- cache entries: the cache's size cap; the cache's key file: 128 bytes.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from itertools import accumulate

CONFIG_MAX_BYTES = 1024 * 1024  # pyproject.toml, mmlint.toml, .mmlint.toml
GITIGNORE_MAX_BYTES = 100 * 1024 * 1024  # .gitignore, info/exclude: git's own limit
GIT_POINTER_MAX_BYTES = 64 * 1024  # a `.git` file (`gitdir: PATH`) and `commondir`
BASELINE_MAX_BYTES = 64 * 1024 * 1024  # `check --baseline FILE`
JSON_MAX_DEPTH = 64  # arrays and objects inside each other, in a JSON file mmlint reads


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class PlacedFileError(OSError):
    """The file is not one to read: not a regular file, a symbolic link where
    none is followed, or larger than its limit. ``strerror`` says which."""

    def __init__(self, code: int, reason: str, path: str | os.PathLike[str]) -> None:
        super().__init__(code, reason, os.fspath(path))


@dataclass(frozen=True)
class Placed:
    """What was read, and the status of the file it was read from."""

    data: bytes
    status: os.stat_result


def kind_of(mode: int) -> str:
    """What a file of ``mode`` is, in words ("a FIFO")."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def read_placed(path: str | os.PathLike[str], limit: int, *, follow_links: bool = True) -> Placed:
    """The bytes of the regular file ``path`` (at most ``limit`` of them) and
    its status. Raises ``PlacedFileError`` when it is not a regular file (a
    FIFO, a device, a directory, a socket), a symbolic link (``follow_links``
    false) or larger than ``limit``; ``OSError`` when it cannot be opened or read."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        if not follow_links and error.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(path):
            raise PlacedFileError(errno.ELOOP, "it is a symbolic link", path) from None
        raise
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise PlacedFileError(errno.EINVAL, f"not a regular file (it is {kind_of(status.st_mode)})", path)
        if status.st_size > limit:
            raise PlacedFileError(errno.EFBIG, _too_large(status.st_size, limit), path)
        data = _read_at_most(descriptor, limit + 1)
    finally:
        os.close(descriptor)
    if len(data) > limit:  # it grew since fstat
        raise PlacedFileError(errno.EFBIG, _too_large(None, limit), path)
    return Placed(data, status)


def read_placed_bytes(path: str | os.PathLike[str], limit: int, *, follow_links: bool = True) -> bytes:
    """``read_placed(...).data``."""
    return read_placed(path, limit, follow_links=follow_links).data


def _too_large(size: int | None, limit: int) -> str:
    shown = "more" if size is None else f"{size:,} bytes"
    return f"too large ({shown}; mmlint reads at most {limit:,} bytes of such a file)"


def _read_at_most(descriptor: int, count: int) -> bytes:
    chunks: list[bytes] = []
    left = count
    while left > 0:
        try:
            chunk = os.read(descriptor, min(left, 1 << 20))
        except BlockingIOError:  # a regular file never says so; nothing more to read
            break
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


# What decides nesting: brackets, and the quotes that start and end strings
# (brackets inside a string do not nest).
_NOT_STRUCTURE = bytes(set(range(256)) - set(b'[]{}"'))
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))
_DEPTH_STEP = tuple(1 if byte in b"[{" else -1 if byte in b"]}" else 0 for byte in range(256))


def json_depth(data: bytes) -> int:
    """How deeply the arrays and objects of the JSON text ``data`` nest (an
    estimate for text that is not JSON), in linear time and without recursion:
    checked before ``json.loads``, which recurses once per level. The escapes
    that could hide a quote (``\\\\`` and ``\\"``) go first, then everything
    but brackets and quotes, then the strings: two quotes in a row first (empty
    strings, and the joints of strings that only dropped bytes separated), then
    the few left."""
    structure = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    brackets = _STRING.sub(b"", structure.replace(b'""', b"")).translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0)
