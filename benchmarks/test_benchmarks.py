"""The benchmark's own checks (not in the default test run, which collects
tests/ only):  python -m pytest benchmarks"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import floors
import pytest
import targets
from measure import MeasureError, Samples, run_once
from report import checks

HERE = Path(__file__).resolve().parent


def test_peak_rss_covers_a_descendant_that_outlives_its_parent(tmp_path):
    # The parent exits at once; its child, re-parented, then touches 200 MiB.
    script = textwrap.dedent("""
        import os, time
        if os.fork() == 0:
            time.sleep(0.3)
            block = bytearray(200 * 1024 * 1024)
            for i in range(0, len(block), 4096):
                block[i] = 1
            os._exit(0)
    """)
    seconds, peak_mib, _ = run_once([sys.executable, "-c", script], {}, tmp_path)
    assert peak_mib >= 200
    assert seconds < 0.3  # the command's own time, not the orphan's


def test_peak_rss_does_not_inherit_the_driver_high_water_mark(tmp_path):
    block = bytearray(400 * 1024 * 1024)
    for i in range(0, len(block), 4096):
        block[i] = 1
    _, peak_mib, out = run_once([sys.executable, "-c", "print('ran')"], {}, tmp_path)
    del block
    assert out.strip() == "ran"
    assert peak_mib < 100


def test_a_failing_command_is_an_error_not_a_figure(tmp_path):
    with pytest.raises(MeasureError, match="exited 3"):
        run_once([sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"], {}, tmp_path)


def test_scan_reports_a_broken_mmlint_command_and_exits_1():
    result = subprocess.run(
        [sys.executable, str(HERE / "scan.py"), "--only", "generated", "--mmlint", f"{sys.executable} -c 'raise SystemExit(2)'"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1
    assert "benchmark: error:" in result.stderr and "exited 2" in result.stderr
    assert "Traceback" not in result.stderr


def test_generated_module_is_deterministic_about_5_mb_of_async_defs(tmp_path):
    source = targets.generated_source()
    assert source == targets.generated_source()
    assert 5_000_000 <= len(source.encode()) <= 6_000_000
    tree = ast.parse(source)
    defs = [n for n in ast.walk(tree) if isinstance(n, ast.AsyncFunctionDef)]
    assert len(defs) == targets.GENERATED_DEFS
    without_await = [d for d in defs if not any(isinstance(n, ast.Await) for n in ast.walk(d))]
    assert len(without_await) == targets.GENERATED_DEFS // 2
    path = targets.write_generated(tmp_path)
    assert floors.ast_script(path) == floors.ast_script(tmp_path) > 0
    assert targets.prefiltered(path)[1] == [path]


def test_the_generated_module_is_past_the_default_budgets_and_within_the_raised_ones(tmp_path):
    from mmlint.check.cost import estimate, over_budget
    from mmlint.config.load import load_settings
    from mmlint.config.settings import Budgets

    path = targets.write_generated(tmp_path)
    cost = estimate(path.read_bytes())
    assert "max-file-memory" in over_budget(cost, Budgets())
    assert over_budget(cost, load_settings(path.parent).budgets) is None


@pytest.mark.parametrize(
    "data",
    [b"import asyncio\n", b"async def f(): pass\n", b"async \\\ndef f(): pass\n", b"x = 1  # mmlint: ignore\n",
     b"self.process_and_combine_mm_data_async(x)\n", b"asynchronous definitions\n", b"async  def\n"],
)  # fmt: skip
def test_fallback_prefilter_agrees_with_mmlint(data):
    from mmlint.check.prefilter import Prefilter
    from mmlint.config.settings import DEFAULT_TWINS

    assert targets._fallback_could_hold_finding(data) == Prefilter(DEFAULT_TWINS).could_hold_finding(data)


def test_floors_count_what_they_read(tmp_path):
    (tmp_path / "a.py").write_text("async def f():\n    g.process_and_combine_mm_data(1)\n")
    (tmp_path / "b.py").write_text("def broken(:\n")
    assert floors.ast_script(tmp_path) == 2  # one twin call, one async def without await
    assert floors.read_and_hash(tmp_path) == 2
    listing = tmp_path / "list"
    listing.write_text(f"{tmp_path / 'a.py'}\n{tmp_path / 'b.py'}\n")
    assert floors.parse_listed(listing) == 1
    assert floors.ast_parse_listed(listing) == 1


def _samples(seconds: float, peak_mib: float = 50) -> Samples:
    return Samples([seconds], [peak_mib])


def test_checks_are_ratios_of_medians_with_verdicts():
    figures = {
        ("whole", "ast"): _samples(10), ("whole", "cold"): _samples(4, 140), ("whole", "warm"): _samples(1, 160),
        ("whole", "hash"): _samples(0.5), ("", "version"): _samples(0.3),
    }  # fmt: skip
    found = {c.measure: c for c in checks(figures)}
    cold = found["whole package, cold ÷ stdlib-ast script"]
    assert (cold.value, cold.verdict) == (0.4, "PASS")
    assert found["whole package, warm ÷ read-and-hash walk"].verdict == "PASS"  # 2.0×
    assert found["mmlint --version"].verdict == "FAIL"
    assert found["whole package, peak RSS per process"].value == 160  # the larger of cold and warm
    assert found["whole package, peak RSS per process"].verdict == "FAIL"
    assert found["srt/multimodal, cold ÷ libcst parse alone"].verdict == "n/a"
    assert found["sglang package, one file changed ÷ cold"].verdict == "n/a"


def test_edited_ratio_is_against_the_cold_run():
    figures = {
        ("whole", "cold"): _samples(5.0),
        ("whole", "warm"): _samples(0.5),
        ("whole", "edited"): _samples(2.0, 170),
    }
    found = {c.measure: c for c in checks(figures)}
    edited = found["sglang package, one file changed ÷ cold"]
    assert (edited.value, edited.verdict) == (0.4, "FAIL")
    assert found["whole package, peak RSS per process"].value == 170  # the edited run counts too
