"""The command line as a process of its own: the console script and
``python -m mmlint`` run main(), then leave without tearing the heap down.

A re-check holds every file's facts at its end, a hundred megabytes of small
objects; the interpreter's shutdown would free them one by one and collect
the garbage once more, a tenth of the run, after its last line is written.
So, once main() is done, the process runs its exit handlers and flushes its
output as a normal exit would, then ends at once (as mypy does). It does so
only where nothing else can be lost: no other thread is alive (it would be
cut short) and the output flushed; otherwise it exits the usual way. main()
itself stays an ordinary function that raises SystemExit, for hosts and tests
that call it and go on."""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

from mmlint.cli import main

__all__ = ["entry", "leave"]


def entry() -> NoReturn:
    """The console script's entry point."""
    try:
        main()
    except SystemExit as stop:
        if stop.code is not None and type(stop.code) is not int:
            raise  # a message to print: the interpreter's own exit says it
        leave(stop.code or 0)
    leave(0)


def leave(code: int) -> NoReturn:
    """End the process with ``code``: at once where that loses nothing,
    else by the usual SystemExit."""
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if (
        run_exit_handlers is None
        or threading.active_count() > 1
        or threading.current_thread() is not threading.main_thread()
    ):
        raise SystemExit(code)
    try:
        run_exit_handlers()  # logging's, multiprocessing's, a coverage tool's: as at a normal exit
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BaseException:  # a closed pipe, say: the usual exit reports it as it always has
        raise SystemExit(code) from None
    os._exit(code)
