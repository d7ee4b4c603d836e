"""Fresh processes, each run through run_measured.py: wall time and the peak
RSS of the largest single process in its tree (main process or pool worker)."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

WRAPPER = Path(__file__).resolve().parent / "run_measured.py"


class MeasureError(RuntimeError):
    """A measured command failed: its figure would be meaningless."""


@dataclass
class Samples:
    seconds: list[float] = field(default_factory=list)
    peak_mib: list[float] = field(default_factory=list)

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.seconds)

    @property
    def median_peak_mib(self) -> float:
        return statistics.median(self.peak_mib)


def run_once(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MiB, stdout) of one fresh run; raises MeasureError on failure."""
    with tempfile.TemporaryDirectory(prefix="mmlint-bench-out-") as scratch:
        out, err = Path(scratch, "out"), Path(scratch, "err")
        wrapped = [sys.executable, str(WRAPPER), str(out), str(err), "--", *command]
        result = subprocess.run(wrapped, env=env, cwd=cwd, capture_output=True, text=True)
        if result.returncode != 0:
            raise MeasureError(f"{' '.join(command)}: the wrapper failed: {result.stderr.strip()[-2000:]}")
        figures = json.loads(result.stdout)
        if figures["exit_code"] != 0:
            tail = err.read_text("utf-8", "replace").strip()[-2000:]
            raise MeasureError(f"{' '.join(command)} exited {figures['exit_code']}:\n{tail}")
        return figures["seconds"], figures["peak_kib"] / 1024, out.read_text("utf-8", "replace")
