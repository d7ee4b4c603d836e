"""Writing files without leaving anything half-done.

- ``write_report``: a report (``--output``, ``baseline -o``) through a
  temporary file in the directory named and a rename, never through a
  symbolic link at the name (a repository can commit one that leads out of
  the tree): such a link is refused, except the ones the system provides
  under /dev and /proc (``/dev/stdout``, ``/dev/fd/N``: what ``>(cmd)``
  gives), which are written into. A FIFO or a character device at the name
  is written into (a FIFO only while a process reads it: never a hang);
  anything else that is not a regular file is refused. The directory part
  of the name is followed as the system resolves it, as for ``fix``.
- ``write_atomically``: the same for systems without directory descriptors,
  following a link (``SourceFile``'s fallback).
- ``SourceFile``: a source file `fix` reads and then replaces. Its directory is
  opened once and held, the entry is opened without following a link, and the
  write goes to the same regular file (device, inode) that was read, holding
  the same bytes, checked under a lock concurrent mmlint runs share. It keeps
  owner, group, mode, hard links and extended attributes (POSIX ACLs among
  them): a file with several links, or another owner than this process, is
  rewritten in place under that lock; any other is replaced by a temporary
  file in the same directory, given the original's group, mode and extended
  attributes, then renamed over it. When the temporary file cannot be given
  all of them (a group or a ``security.*`` attribute this process may not
  set), the file is rewritten in place instead, once the new bytes are ready:
  nothing of the file's metadata is ever lost.
- ``remove_leftovers``: temporary files a killed run left behind.

Temporary files are named ``.<name>.<8 random characters>.mmlint-tmp``
(``TEMP_NAME``) and are removed on every exit path this process sees; while one
is being written its writer holds a lock on it, so a sweep never takes the
temporary file of a live run."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from mmlint.core.safe_read import kind_of

try:
    import fcntl
except ImportError:  # not POSIX: no advisory locks
    fcntl = None  # type: ignore[assignment]

TEMP_SUFFIX = ".mmlint-tmp"
# What tempfile.mkstemp and _create_temp both produce; nothing else matches.
TEMP_NAME = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}" + re.escape(TEMP_SUFFIX), re.DOTALL)
_TEMP_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"

# A temporary file younger than this may belong to a run still writing it.
LEFTOVER_AGE_SECONDS = 120.0

# Reading and replacing through directory descriptors needs these (POSIX).
SAFE_REPLACE = (
    {os.open, os.stat, os.rename, os.unlink} <= os.supports_dir_fd
    and hasattr(os, "O_NOFOLLOW")
    and hasattr(os, "O_DIRECTORY")
)


class ChangedMeanwhile(OSError):
    """The file no longer holds the bytes the new content was made from;
    ``current`` is what it holds now (None when unknown)."""

    def __init__(self, message: str, current: bytes | None = None) -> None:
        super().__init__(message)
        self.current = current


class NotTheFileRead(OSError):
    """The path no longer names the regular file that was read (it is a
    symbolic link now, or not a regular file, or gone): nothing is written."""


def write_atomically(path: Path, data: bytes, *, expected: bytes | None = None) -> None:
    """Replace ``path``'s content with ``data`` (or create it); raise ``OSError`` on
    failure, in which case ``path`` is unchanged and no temporary file remains.
    A symbolic link is followed: its target is rewritten and the link stays
    (where there are no directory descriptors: ``write_report`` elsewhere).

    With ``expected``, the file is replaced only if it still holds exactly those
    bytes, checked under the advisory lock concurrent mmlint runs share (else
    ChangedMeanwhile)."""
    if os.path.exists(path) and not os.path.isfile(path):
        # A device, a FIFO, /dev/stdout: renaming over it would replace the node
        # itself, so write into it instead (there is nothing to keep atomic).
        _write_in_place(path, data)
        return
    path = Path(os.path.realpath(path))
    mode = stat.S_IMODE(os.stat(path).st_mode) if path.exists() else _default_mode()
    descriptor, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        with _locked_path(path):
            if expected is not None and (current := _current(path)) != expected:
                raise ChangedMeanwhile(f"{path} changed on disk while it was being fixed", current)
            os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise


class RefusedOutput(OSError):
    """The report's path names something mmlint does not write a report into
    (a symbolic link, a FIFO no process reads, a block device, a socket);
    ``strerror`` says which and what to do."""

    def __init__(self, reason: str, path: Path) -> None:
        super().__init__(errno.EINVAL, reason, str(path))


def write_report(path: Path, data: bytes) -> None:
    """Write ``data`` to the report file ``path`` (see the module's docstring);
    raise ``OSError`` (``RefusedOutput`` for what is refused) when it cannot be
    written, in which case no file was changed and no temporary file remains."""
    path = Path(os.path.abspath(path))
    if not SAFE_REPLACE:
        if os.path.islink(path) and not _system_link(path):
            raise RefusedOutput(_LINK_REFUSED, path)
        write_atomically(path, data)
        return
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        try:
            entry = os.stat(path.name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            entry = None
        if entry is not None and stat.S_ISLNK(entry.st_mode):
            if not _system_link(path):
                raise RefusedOutput(_LINK_REFUSED, path)
            _write_into(path, None, data, follow=True)
        elif entry is not None and (stat.S_ISFIFO(entry.st_mode) or stat.S_ISCHR(entry.st_mode)):
            _write_into(path, dir_fd, data, follow=False)
        elif entry is not None and not stat.S_ISREG(entry.st_mode):
            raise RefusedOutput(f"it is {kind_of(entry.st_mode)}, not a file a report can replace", path)
        else:
            mode = stat.S_IMODE(entry.st_mode) if entry is not None else _default_mode()
            _replace_in(dir_fd, path.name, data, mode)
    finally:
        os.close(dir_fd)


_LINK_REFUSED = (
    "it is a symbolic link; mmlint does not write a report through one (remove it, or name the file it leads to)"
)


def _system_link(path: Path) -> bool:
    """Whether ``path`` lies in /dev or /proc, where the system, not a
    repository, makes links (``/dev/stdout``, ``/dev/fd/1``, ``/proc/self/fd/1``)."""
    parent = os.path.realpath(path.parent)
    return parent == "/dev" or parent.startswith(("/dev/", "/proc/"))


def _write_into(path: Path, dir_fd: int | None, data: bytes, *, follow: bool) -> None:
    """Write ``data`` into what ``path`` opens: a FIFO (only while a process
    reads it), a character device, or (through a system link such as
    /dev/stdout) whatever that leads to, appended as a shell's ``>>`` would."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    name = str(path) if dir_fd is None else path.name
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a FIFO with no reader (or a socket)
            raise RefusedOutput("it is a FIFO that no process is reading", path) from None
        raise
    try:
        opened = os.fstat(fd)
        if not (stat.S_ISFIFO(opened.st_mode) or stat.S_ISCHR(opened.st_mode) or stat.S_ISREG(opened.st_mode)):
            raise RefusedOutput(f"it is {kind_of(opened.st_mode)}, not a file a report can be written into", path)
        os.set_blocking(fd, True)  # a reader that is slow to take the report is waited for
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _replace_in(dir_fd: int, name: str, data: bytes, mode: int) -> None:
    """A temporary file in the directory holding ``data`` (synced, given
    ``mode``), renamed over ``name``: the entry is replaced, never followed."""
    temp, fd = _create_temp(dir_fd, name)
    try:
        with _quiet_close(fd):
            _lock_temp(fd)
            _write_all(fd, data)
            os.fsync(fd)
            os.fchmod(fd, mode)
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        raise
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)


class SourceFile:
    """A regular file `fix` reads, then replaces only if it is still the same
    file holding the same bytes. Use as a context manager (it holds its
    directory open): ``read()`` once, then ``replace(data)``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._name = path.name
        self._dir_fd: int | None = None
        self._identity: tuple[int, int] | None = None
        self._data: bytes | None = None

    def __enter__(self) -> SourceFile:
        if SAFE_REPLACE:
            self._dir_fd = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._dir_fd is not None:
            os.close(self._dir_fd)
            self._dir_fd = None

    def read(self) -> bytes:
        """The file's bytes; ``NotTheFileRead`` when it is a symbolic link or not
        a regular file, ``OSError`` when it cannot be read."""
        if self._dir_fd is None:
            self._data = self.path.read_bytes()
            return self._data
        fd = self._open(os.O_RDONLY)
        try:
            status = os.fstat(fd)
            self._identity = (status.st_dev, status.st_ino)
            self._data = _read_all(fd)
        finally:
            os.close(fd)
        return self._data

    def replace(self, data: bytes) -> None:
        """Replace the file read with ``data``. Raises ``ChangedMeanwhile`` when
        the entry is another file or holds other bytes than were read,
        ``NotTheFileRead`` when it is a link or not a regular file now, and
        ``OSError`` when writing fails; the file is then as it was."""
        assert self._data is not None, "read() first"
        if self._dir_fd is None:
            write_atomically(self.path, data, expected=self._data)
            return
        status = self._entry_status()
        if status.st_nlink == 1 and status.st_uid == os.geteuid():
            fd = self._open(os.O_RDONLY)
            try:
                temp = self._temp_copy(data, fd)
                if temp is not None:
                    self._rename_over(fd, temp)
                    return
            finally:
                os.close(fd)
        # Hard links, another owner, or a group or extended attributes this
        # process cannot give a new file: write into the file itself, so that
        # they all stay.
        fd = self._open(os.O_RDWR)
        try:
            with _locked(fd):
                self._check_unchanged(fd)
                _overwrite(fd, data)
        finally:
            os.close(fd)

    # -- the steps ------------------------------------------------------------------

    def _open(self, flags: int) -> int:
        try:
            fd = os.open(self._name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=self._dir_fd)
        except OSError as error:
            if error.errno not in (errno.ENOENT, errno.EACCES, errno.EPERM, errno.EROFS):
                self._entry_status()  # a link (ELOOP, or EMLINK on some BSDs) says so
            raise
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            os.close(fd)
            raise NotTheFileRead("it is not a regular file now")
        return fd

    def _entry_status(self) -> os.stat_result:
        """The directory entry's own status; ``NotTheFileRead`` unless it is a regular file."""
        try:
            status = os.stat(self._name, dir_fd=self._dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            raise NotTheFileRead("it was removed meanwhile") from None
        if stat.S_ISLNK(status.st_mode):
            raise NotTheFileRead("it is a symbolic link now")
        if not stat.S_ISREG(status.st_mode):
            raise NotTheFileRead("it is not a regular file now")
        return status

    def _check_unchanged(self, fd: int) -> None:
        """Under the lock: the entry is still the open file, that file is the one
        read, and it holds the bytes read."""
        opened = os.fstat(fd)
        entry = self._entry_status()
        if (entry.st_dev, entry.st_ino) != (opened.st_dev, opened.st_ino):
            # Replaced while we waited for the lock (another run's rename).
            raise ChangedMeanwhile(f"{self.path} was replaced meanwhile", self._current())
        current = _read_all(fd)
        if (opened.st_dev, opened.st_ino) != self._identity or current != self._data:
            raise ChangedMeanwhile(f"{self.path} changed on disk while it was being fixed", current)

    def _current(self) -> bytes | None:
        try:
            fd = self._open(os.O_RDONLY)
        except OSError:
            return None
        try:
            return _read_all(fd)
        finally:
            os.close(fd)

    def _temp_copy(self, data: bytes, original_fd: int) -> str | None:
        """A temporary file in the directory holding ``data`` with the group,
        mode and extended attributes of the file open as ``original_fd``,
        synced; None when the group or an attribute cannot be given."""
        original = os.fstat(original_fd)
        name, fd = _create_temp(self._dir_fd, self._name)
        try:
            with _quiet_close(fd):
                _lock_temp(fd)
                _write_all(fd, data)
                os.fsync(fd)
                if os.fstat(fd).st_gid != original.st_gid:
                    try:
                        os.fchown(fd, -1, original.st_gid)  # before chmod: chown may clear set-id bits
                    except PermissionError:
                        os.unlink(name, dir_fd=self._dir_fd)
                        return None
                os.fchmod(fd, stat.S_IMODE(original.st_mode))
                if not copy_xattrs(original_fd, fd):  # after chmod: an access ACL sets the mode's group bits
                    os.unlink(name, dir_fd=self._dir_fd)
                    return None
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=self._dir_fd)
            raise
        return name

    def _rename_over(self, fd: int, temp: str) -> None:
        try:
            with _locked(fd):
                self._check_unchanged(fd)
                # rename replaces the entry itself: were it swapped for a link
                # after the check, the link goes, its target is never touched.
                os.replace(temp, self._name, src_dir_fd=self._dir_fd, dst_dir_fd=self._dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=self._dir_fd)
            raise
        assert self._dir_fd is not None, "replace() renames only with the directory open"
        with contextlib.suppress(OSError):
            os.fsync(self._dir_fd)


def copy_xattrs(source_fd: int, target_fd: int) -> bool:
    """Give the file open as ``target_fd`` exactly the extended attributes of
    the one open as ``source_fd`` (on Linux, POSIX ACLs are the
    ``system.posix_acl_*`` ones): each missing or different one is set, and
    one the target has and the source lacks (an ACL inherited from the
    directory's default) is removed. False when that cannot be done (EPERM on
    a ``security.*`` or ``trusted.*`` attribute, no room for them): the target
    would not be a faithful copy. True with nothing to do where the platform
    has no such attributes, or the filesystem does not support them."""
    if not hasattr(os, "listxattr"):  # Python offers the calls on Linux only
        return True
    try:
        wanted = {name: os.getxattr(source_fd, name) for name in os.listxattr(source_fd)}
    except OSError as error:
        return error.errno in _NO_XATTRS  # else: unreadable, so not copied faithfully
    try:
        for name in os.listxattr(target_fd):
            if name not in wanted:
                os.removexattr(target_fd, name)
        for name, value in wanted.items():
            try:
                current: bytes | None = os.getxattr(target_fd, name)
            except OSError:
                current = None
            if current != value:
                os.setxattr(target_fd, name, value)
    except OSError:
        return False
    return True


_NO_XATTRS = frozenset({errno.ENOTSUP, errno.EOPNOTSUPP})


def _create_temp(dir_fd: int | None, name: str) -> tuple[str, int]:
    """A new temporary file for ``name`` in the directory, opened for writing."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        temp = f".{name}.{''.join(secrets.choice(_TEMP_CHARACTERS) for _ in range(8))}{TEMP_SUFFIX}"
        try:
            return temp, os.open(temp, flags, 0o600, dir_fd=dir_fd)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name")


def remove_leftovers(
    directory: Path, *, names: frozenset[str] | None = None, min_age: float = LEFTOVER_AGE_SECONDS
) -> list[Path]:
    """Remove mmlint's temporary files in ``directory`` that no live run is
    writing and that are at least ``min_age`` seconds old (for ``names``' files
    only, when given); return the ones removed. Never raises."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        match = TEMP_NAME.fullmatch(entry.name)
        if match is None or (names is not None and match["name"] not in names):
            continue
        try:
            status = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(status.st_mode) or now - status.st_mtime < min_age or _is_being_written(entry.path):
                continue
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed


def _is_being_written(path: str) -> bool:
    if fcntl is None:
        return False
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _lock_temp(fd: int) -> None:
    """Mark a temporary file as being written (remove_leftovers skips it)."""
    if fcntl is not None:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


@contextlib.contextmanager
def _locked(fd: int) -> Iterator[None]:
    """The exclusive advisory lock concurrent mmlint runs take on a file before
    replacing it (POSIX; elsewhere none)."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)
    yield


@contextlib.contextmanager
def _locked_path(path: Path) -> Iterator[None]:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:  # a new file: nothing to lock
        yield
        return
    try:
        with _locked(fd):
            yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def _quiet_close(fd: int) -> Iterator[None]:
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


def _read_all(fd: int) -> bytes:
    chunks = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes, offset: int = 0) -> None:
    view = memoryview(data)
    while view:
        written = os.pwrite(fd, view, offset)
        view, offset = view[written:], offset + written


def _overwrite(fd: int, data: bytes) -> None:
    """Rewrite an open file's content with ``data`` (same inode: links, owner
    and mode stay)."""
    _write_all(fd, data)
    os.ftruncate(fd, len(data))
    os.fsync(fd)


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
