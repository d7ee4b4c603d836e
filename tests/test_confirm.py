"""mmlint confirm: the finding key, the confirmation file's validation,
`watch()`, the plugin's registration and its errors."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from confirm_support import by_def, confirmed_report, environment, run_pytest, write_service
from mmlint.api import check
from mmlint.cli import cli
from mmlint.confirm import watch
from mmlint.confirm.sites import sites_from_findings
from mmlint.core.confirmed import diagnostic_key
from mmlint.reporters.json_report import diagnostic_dict

HANDLER = """\
import time


class Handler:
    async def handle(self, seconds):
        time.sleep(seconds)
        return seconds
"""


def _keys(root: Path) -> tuple[list[str], list[str]]:
    diagnostics = check(cwd=root).diagnostics
    plugin_side = [site.key for site in sites_from_findings([diagnostic_dict(d) for d in diagnostics], root)]
    return [diagnostic_key(d) for d in diagnostics], plugin_side


def test_the_key_survives_a_move_and_both_sides_agree_on_it(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.mmlint]\npaths = ["app.py"]\n')
    (tmp_path / "app.py").write_text(HANDLER)
    before, plugin_side = _keys(tmp_path)
    # One finding per cause: the MM003 of handle is folded into the MM005 at its call.
    assert before == plugin_side == ["MM005:app.py:Handler.handle:time.sleep"]
    (tmp_path / "app.py").write_text(
        "import os\n\n\n" + HANDLER.replace("        time.sleep", "        os.getpid()\n        time.sleep")
    )
    after, _ = _keys(tmp_path)
    assert after == before


def test_a_confirm_run_confirms_a_sleep_on_the_loop(tmp_path: Path) -> None:
    root = write_service(tmp_path, tests="from svc import work\n\nasync def test_nap():\n    await work.nap(0.05)\n")
    run = run_pytest(root, "-n", "0", "--mmlint-confirm")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "mmlint confirm: 1 confirmed, 0 refuted, 7 not reached, 0 unexplained" in run.stdout
    nap = by_def(confirmed_report(root))[("MM005", "nap")]
    assert nap["status"] == "confirmed" and nap["blocked_ms_max"] >= 20 and nap["test"] == "tests/test_svc.py::test_nap"


def test_watch_confirms_a_finding_of_a_running_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.mmlint]\npaths = ["staged_app.py"]\n')
    (tmp_path / "staged_app.py").write_text(HANDLER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "staged_app", raising=False)
    module = importlib.import_module("staged_app")
    with watch(root=tmp_path, label="staging") as session:
        asyncio.run(module.Handler().handle(0.05))
        asyncio.run(module.Handler().handle(0.001))
    sys.modules.pop("staged_app", None)
    assert session.report is not None
    findings = by_def(json.loads((tmp_path / "mmlint-confirm.json").read_text()))
    handle = findings[("MM005", "Handler.handle")]
    assert (handle["status"], handle["calls"], handle["test"]) == ("confirmed", 2, "staging")
    assert module.time.sleep is __import__("time").sleep and not hasattr(module.time.sleep, "__mmlint_timed__")


def _check_confirmed(tmp_path: Path, confirmed: Path) -> tuple[int, str]:
    (tmp_path / "app.py").write_text(HANDLER)
    result = CliRunner().invoke(cli, ["check", "--no-cache", str(tmp_path / "app.py"), "--confirmed", str(confirmed)])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        ("{not json", "not valid JSON"),
        ("[" * 100 + "]" * 100, "nested deeper than"),
        ('{"version": 1, "findings": [{"key": "k", "status": "maybe"}]}', "finding 0 lacks"),
        ('{"version": 2, "findings": []}', "not a confirmation report"),
    ],
)
def test_a_bad_confirmed_file_exits_2_naming_it(tmp_path: Path, content: str, complaint: str) -> None:
    bad = tmp_path / "bad-confirm.json"
    bad.write_text(content)
    code, output = _check_confirmed(tmp_path, bad)
    assert code == 2 and "bad-confirm.json" in output and complaint in output and "Traceback" not in output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_confirmed_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "confirm.fifo"
    os.mkfifo(fifo)
    code, output = _check_confirmed(tmp_path, fifo)
    assert code == 2 and "confirm.fifo: not a regular file" in output


def test_an_oversized_confirmed_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mmlint.core.json_file as json_file

    monkeypatch.setattr(json_file, "MAX_JSON_BYTES", 16)
    monkeypatch.setattr(json_file.read_json_file, "__kwdefaults__", {"max_bytes": 16, "max_depth": 64})
    big = tmp_path / "big.json"
    big.write_text('{"version": 1, "findings": []}')
    code, output = _check_confirmed(tmp_path, big)
    assert code == 2 and "big.json: larger than 16 bytes" in output


@pytest.mark.slow
def test_a_bad_report_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    root = write_service(tmp_path, tests="def test_nothing():\n    pass\n")
    (root / "static.json").write_text('{"diagnostics": [{"code": "MM005"}]}')
    run = run_pytest(root, "-n", "0", "--mmlint-confirm", "--mmlint-report=static.json")
    assert run.returncode == 4, run.stdout + run.stderr
    assert "static.json: diagnostic 0 lacks" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.slow
def test_the_entry_point_loads_the_plugin_once_and_leaves_it_inactive(tmp_path: Path) -> None:
    # A distribution that registers the entry point, as `pip install mmlint` does.
    site = tmp_path / "site"
    info = site / "mmlint_entry-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mmlint-entry\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[pytest11]\nmmlint.confirm.plugin = mmlint.confirm.plugin\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_loop.py").write_text(
        "import asyncio\n\ndef test_untouched():\n"
        "    assert not hasattr(asyncio.BaseEventLoop.run_forever, '__wrapped__')\n"
    )
    env = environment()
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    for extra in ([], ["-p", "mmlint.confirm.plugin"]):
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *extra]
        helped = subprocess.run([*command, "--help"], cwd=project, env=env, capture_output=True, text=True, timeout=60)
        assert helped.returncode == 0 and "--mmlint-confirm" in helped.stdout, helped.stderr
        ran = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=60)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert not (project / "mmlint-confirm.json").exists()
