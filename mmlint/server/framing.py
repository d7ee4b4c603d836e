"""The base protocol's framing over a byte stream: each message is a header
block (``Content-Length: N``, maybe ``Content-Type``, each line ending in
\\r\\n, a blank line after them) and then N bytes of body, JSON in UTF-8.

Standard input is read on a thread of its own (blocking reads, which work
on pipes, files and terminals alike; asyncio's pipe reader refuses regular
files), each body handed to the event loop as it comes; the end of input is
handed over too, and ends the server. The thread reads the file descriptor
itself, not ``sys.stdin.buffer``: a daemon thread blocked inside a buffered
reader holds its lock, and the interpreter aborts when it finalizes that
reader at exit."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import BinaryIO, Protocol

CONTENT_LENGTH = b"content-length"
CHUNK = 1 << 16


class ByteSource(Protocol):
    def readline(self) -> bytes: ...

    def read(self, size: int) -> bytes: ...


class FdReader:
    """``readline`` and ``read`` over a file descriptor, with a buffer of its own (see above)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._eof = False

    def _fill(self) -> bool:
        """Reads more; False at the end of input."""
        if self._eof:
            return False
        chunk = os.read(self._fd, CHUNK)
        if not chunk:
            self._eof = True
            return False
        self._buffer += chunk
        return True

    def readline(self) -> bytes:
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                return self._take(end + 1)
            if not self._fill():
                return self._take(len(self._buffer))

    def read(self, size: int) -> bytes:
        while len(self._buffer) < size and self._fill():
            pass
        return self._take(min(size, len(self._buffer)))

    def _take(self, size: int) -> bytes:
        taken = bytes(self._buffer[:size])
        del self._buffer[:size]
        return taken


class FramingError(Exception):
    """A header block without a usable Content-Length: its body cannot be found."""


def read_body(stream: ByteSource) -> bytes | None:
    """The next message's body; None at the end of input (also inside a message)."""
    length: int | None = None
    saw_header = False
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.rstrip(b"\r\n")
        if not line:
            if saw_header:
                break
            continue  # blank lines between messages carry nothing
        saw_header = True
        name, _, value = line.partition(b":")
        if name.strip().lower() == CONTENT_LENGTH:
            try:
                length = int(value.strip())
            except ValueError:
                length = None
    if length is None or length < 0:
        raise FramingError("a message without a valid Content-Length header")
    body = stream.read(length)
    if len(body) < length:
        return None
    return body


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class FrameWriter:
    """Writes framed bodies to ``stream``, one message at a time."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()  # whole messages, whichever thread sends
        self.closed = False

    def write(self, body: bytes) -> None:
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write(frame(body))
                self._stream.flush()
            except (BrokenPipeError, ValueError):  # the client went away: nothing more to say
                self.closed = True


def read_in_thread(
    stream: ByteSource, deliver: Callable[[bytes], None], end: Callable[[], None], name: str = "mmlint-stdin"
) -> threading.Thread:
    """Reads ``stream`` on a daemon thread (exit never waits for a blocked
    read): ``deliver`` each body, then ``end`` once. Both are called on the
    reading thread: they hand over to the event loop themselves."""

    def run() -> None:
        try:
            while True:
                try:
                    body = read_body(stream)
                except FramingError as error:
                    print(f"mmlint: {error}; skipped", file=sys.stderr)
                    continue
                if body is None:
                    return
                deliver(body)
        except (OSError, ValueError):  # the stream closed under us
            return
        finally:
            end()

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread
