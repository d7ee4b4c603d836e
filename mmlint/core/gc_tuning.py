"""How often the cyclic garbage collector runs in mmlint's own processes.

A parse allocates hundreds of thousands of objects and a run keeps every
file's facts: almost none of them in reference cycles, so each pass of the
collector over them frees nothing and costs a few per cent of the run. mmlint's
command line and its worker processes collect far less often (mypy's
thresholds, for the same reason), and the command line, which runs one
command and exits, also keeps the collector off the facts it decodes from the
cache (long_lived). mmlint used as a library leaves its host's settings alone,
and so does `mmlint server`, which lives on.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Objects allocated (net) before a young collection, then how many
# collections of each generation before the next older one.
THRESHOLDS = (200_000, 30, 30)

_one_command = False  # this process runs one command and exits (the command line)


def collect_less_often() -> None:
    gc.set_threshold(*THRESHOLDS)


def one_command_per_process(value: bool = True) -> None:
    """The command line declares that this process ends with its command
    (``value`` False: `mmlint server`, which lives on, takes it back)."""
    global _one_command
    _one_command = value


@contextmanager
def long_lived() -> Iterator[None]:
    """Around building data that lives until the run ends and holds no
    reference cycles (facts decoded from the cache: dataclasses of tuples).

    In a process that runs one command, the collector pauses meanwhile and then
    moves everything it tracks to its permanent generation (gc.freeze): the
    one young collection that would otherwise traverse those objects cost a
    twentieth of a re-check after one file changed, and frees nothing.
    Reference counting still frees them. Elsewhere (a library host, `mmlint
    server`) nothing changes: there, frozen cycles would never be collected."""
    if not _one_command or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
