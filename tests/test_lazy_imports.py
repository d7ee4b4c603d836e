"""What a command imports: `--version`, `rules` and `explain` never import
libcst or the engine; a `check` whose files all come from the cache never
imports libcst (issue "One facts pass", point 6)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "processors"

# Runs the CLI in this interpreter, then prints the heavy modules it imported.
_PROBE = """
import json, sys
from mmlint.cli import main
sys.argv = ["mmlint", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
heavy = sorted(m for m in sys.modules if m == "libcst" or m == "mmlint.check.engine" or m == "mmlint.check.per_file")
print(json.dumps(heavy), file=sys.stderr)
"""


def _imported(args: list[str], cwd: Path, env: dict[str, str]) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    return json.loads(result.stderr.strip().splitlines()[-1])


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "MMLINT_CACHE_DIR": str(tmp_path / "cache")}


@pytest.mark.parametrize("args", [["--version"], ["rules"], ["explain", "MM001"], ["--help"]])
def test_commands_that_parse_nothing_import_neither_libcst_nor_the_engine(args, tmp_path: Path, env) -> None:
    assert _imported(args, tmp_path, env) == []


@pytest.mark.slow
def test_a_warm_check_does_not_import_libcst(env) -> None:
    env["MMLINT_JOBS"] = "1"  # parse in this process, so the cold run shows libcst
    cold = _imported(["check", "--quiet"], FIXTURES, env)
    assert "libcst" in cold  # the cold run parsed
    warm = _imported(["check", "--quiet"], FIXTURES, env)
    assert "libcst" not in warm and "mmlint.check.engine" in warm
