"""The per-file pass's workers skip libcst's validation of the nodes its
parser builds: the facts are the same, and no other process is touched."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest
from libcst._nodes.base import CSTNode

from mmlint.api import check
from mmlint.facts.libcst_internals import skip_node_validation
from mmlint.check.workers import MIN_FILES_FOR_POOL

REPO = Path(__file__).resolve().parent.parent

# Every fixture file, analysed with libcst validating its nodes and then
# without: the outcomes must be equal, value for value.
_SAME_OUTCOMES = """
import sys
from pathlib import Path
from mmlint.check.per_file import analyse_file
from mmlint.facts.libcst_internals import skip_node_validation
from mmlint.config.settings import DEFAULT_TWINS, Budgets

files = sorted(Path(sys.argv[1]).rglob("*.py"))
def outcomes():
    return [analyse_file(path.read_bytes(), path, str(path), DEFAULT_TWINS, Budgets()) for path in files]
validated = outcomes()
assert skip_node_validation()
trusted = outcomes()
different = [str(path) for path, a, b in zip(files, validated, trusted) if a != b]
print(len(files), different)
"""


@pytest.mark.slow
def test_skipping_validation_changes_no_outcome():
    result = subprocess.run(
        [sys.executable, "-c", _SAME_OUTCOMES, str(REPO / "fixtures")], capture_output=True, text=True, check=True
    )
    count, different = result.stdout.split(" ", 1)
    assert int(count) > 50 and different.strip() == "[]"


def test_an_unknown_post_init_is_left_alone(monkeypatch):
    def post_init(self):
        self._validate()
        self.extra = True

    monkeypatch.setattr(CSTNode, "__post_init__", post_init)
    assert skip_node_validation() is False
    assert CSTNode.__post_init__ is post_init


def test_the_parent_keeps_validating_after_a_pooled_run(tmp_path, monkeypatch):
    monkeypatch.setenv("MMLINT_JOBS", "2")
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    for index in range(MIN_FILES_FOR_POOL + 2):
        (tmp_path / f"m{index}.py").write_text(
            f"async def f{index}(self):\n    for item in self:\n        decode(item)\n", encoding="utf-8"
        )
    report = check(cwd=tmp_path)
    assert sum(d.code == "MM003" for d in report.diagnostics) == MIN_FILES_FOR_POOL + 2
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
