"""The server's own base protocol in-process: Content-Length framing over a
pipe (mmlint.server.framing) and the shape checks that name what is wrong
with a message's params, and where (mmlint.server.shapes)."""

from __future__ import annotations

import io
import os
import threading

import pytest

from mmlint.server.framing import FdReader, FramingError, frame, read_body
from mmlint.server.shapes import problems_of
from mmlint.server.uris import path_of, uri_of


def test_bodies_are_read_whole_however_the_pipe_splits_them() -> None:
    bodies = [b'{"a": 1}', "é 😀".encode(), b"", b"x" * 200_000]
    wire = b"".join(frame(body) for body in bodies) + b"Content-Type: application/vscode-jsonrpc\r\n"
    read, write = os.pipe()

    # In pieces, the first header cut in two, written while the reader reads.
    pieces = [wire[:5], wire[5:4096], *(wire[start : start + 4096] for start in range(4096, len(wire), 4096))]
    assert b"".join(pieces) == wire

    def writer() -> None:
        with os.fdopen(write, "wb", buffering=0) as pipe:
            for piece in pieces:
                pipe.write(piece)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        reader = FdReader(read)
        assert [read_body(reader) for _ in bodies] == bodies
        assert read_body(reader) is None  # the end of input, inside a header block
    finally:
        thread.join()
        os.close(read)


def test_a_header_block_without_a_length_is_refused_and_a_cut_body_is_the_end() -> None:
    stream = io.BytesIO(b"Content-Type: x\r\n\r\n" + frame(b"next"))
    with pytest.raises(FramingError):
        read_body(stream)
    assert read_body(stream) == b"next"  # the reading goes on after it
    assert read_body(io.BytesIO(b"Content-Length: 10\r\n\r\nabc")) is None


def test_params_of_the_wrong_shape_are_named_with_where_they_are() -> None:
    assert problems_of("textDocument/codeAction", {"textDocument": 5}) == [
        "expected an object, got int @ $.params.textDocument",
        "required field missing @ $.params.range",
        "required field missing @ $.params.context",
    ]
    change = {"textDocument": {"uri": "file:///a.py", "version": 2}, "contentChanges": [{"range": 1}]}
    assert problems_of("textDocument/didChange", change) == ["required field missing @ $.params.contentChanges[0].text"]
    whole = {**change, "contentChanges": [{"text": "x"}, {"range": None, "text": "y"}]}
    assert problems_of("textDocument/didChange", whole) == []
    assert problems_of("initialize", []) == ["expected an object, got list @ $.params"]
    assert problems_of("no/suchMethod", 5) == []


def test_file_uris_round_trip_through_paths() -> None:
    for path in ("/tmp/a b/ü.py", "/x/%41.py", "/srv/a#b?.py"):
        assert path_of(uri_of(path)) == path
    assert uri_of("/tmp/a b.py") == "file:///tmp/a%20b.py"
    assert path_of("untitled:Untitled-1") is None
