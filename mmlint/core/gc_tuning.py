"""How often the cyclic garbage collector runs in mmlint's own processes.

A parse allocates hundreds of thousands of objects and a run keeps every
file's facts: almost none of them in reference cycles, so each pass of the
collector over them frees nothing and costs a few per cent of the run. mmlint's
command line and its worker processes collect far less often (mypy's
thresholds, for the same reason). mmlint used as a library leaves its host's
settings alone.
"""

from __future__ import annotations

import gc

# Objects allocated (net) before a young collection, then how many
# collections of each generation before the next older one.
THRESHOLDS = (200_000, 30, 30)


def collect_less_often() -> None:
    gc.set_threshold(*THRESHOLDS)
