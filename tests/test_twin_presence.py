"""MM001 fires, and `fix` rewrites, only where the async twin exists on the
receiver; MM013 reports a twin name the receiver's hierarchy lacks
(fixtures/presence: a release before the twin and one after)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_support import CliRunner
from expectations import assert_diagnostics_match, expected_findings

from mmlint.api import check
from mmlint.cli import cli

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "presence"
CODES = ("MM001", "MM002", "MM010", "MM013")


def _copy(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(FIXTURES / name, target)
    return target


def _snapshot(tree: Path) -> dict[str, bytes]:
    return {path.relative_to(tree).as_posix(): path.read_bytes() for path in sorted(tree.rglob("*.py"))}


@pytest.mark.parametrize("release", ["pretwin", "posttwin"])
def test_reports_exactly_the_markers(release: str) -> None:
    package = FIXTURES / release
    report = check(cwd=package)
    assert_diagnostics_match(expected_findings(package, package), report.diagnostics, CODES)


def test_no_fix_is_written_where_the_async_twin_does_not_exist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = _copy("pretwin", tmp_path)
    before = _snapshot(package)
    monkeypatch.chdir(package)
    diff = CliRunner().invoke(cli, ["fix", "--diff", "--no-cache"])
    assert diff.stdout == "" and "_async" not in diff.output
    result = CliRunner().invoke(cli, ["fix", "--no-cache"])
    assert _snapshot(package) == before
    assert result.exit_code == 0 and "Fixed" not in result.output  # no site to fix: MM013 is not one
    checked = CliRunner().invoke(cli, ["check", "--no-cache"])
    assert checked.exit_code == 1 and "MM001" not in checked.output and "MM013" in checked.output


def test_every_call_fix_writes_exists_on_its_receiver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = _copy("posttwin", tmp_path)
    monkeypatch.chdir(package)
    before = check(cwd=package)
    result = CliRunner().invoke(cli, ["fix", "--no-cache"])
    assert result.exit_code == 1, result.output  # MM010 (unfixable) and MM013 remain
    after = check(cwd=package)
    assert [d for d in after.diagnostics if d.code == "MM001"] == []
    # The fix added no call of a missing name: the MM013 findings are the ones before it.
    mm013 = [(d.path, d.span.line) for d in before.diagnostics if d.code == "MM013"]
    assert mm013 and [(d.path, d.span.line) for d in after.diagnostics if d.code == "MM013"] == mm013
    for path in package.rglob("*.py"):
        compile(path.read_bytes(), str(path), "exec")
    legacy = (package / "procs/processors/legacy.py").read_text(encoding="utf-8")
    assert "        return self.process_and_combine_mm_data(image_data, self.mm_tokens)\n" in legacy


def test_a_scan_without_the_base_class_trusts_the_configured_pair(tmp_path: Path) -> None:
    """A scan that defines neither twin has only the configuration to go by."""
    (tmp_path / "mmlint.toml").write_text('paths = ["."]\n', encoding="utf-8")
    (tmp_path / "clip.py").write_text(
        "from sglang.base import BaseMultimodalProcessor\n\n"
        "class Clip(BaseMultimodalProcessor):\n"
        "    async def run(self, out):\n"
        "        return self.process_and_combine_mm_data(out, self.mm_tokens)\n",
        encoding="utf-8",
    )
    [finding] = [d for d in check(cwd=tmp_path).diagnostics if d.code == "MM001"]
    assert finding.fixable


@pytest.mark.parametrize(
    ("base", "mm001"),
    [
        ("class Base(abc.ABC):\n    def process_and_combine_mm_data(self, o):\n        ...\n", False),
        ("class Base(Generic[T], abc.ABC):\n    def process_and_combine_mm_data(self, o):\n        ...\n", False),
        # A base outside the scan may hold the twin: judged on the whole scan, which has none.
        ("class Base(External):\n    def process_and_combine_mm_data(self, o):\n        ...\n", False),
        (
            "class Base(abc.ABC):\n    def process_and_combine_mm_data(self, o):\n        ...\n"
            "    async def process_and_combine_mm_data_async(self, o):\n        ...\n",
            True,
        ),
        (
            "class Base:\n    def process_and_combine_mm_data(self, o):\n        ...\n"
            "    process_and_combine_mm_data_async = offload(process_and_combine_mm_data)\n",
            True,
        ),
        (
            "class Base:\n    def __init__(self):\n        self.process_and_combine_mm_data_async = offload(self.process_and_combine_mm_data)\n"
            "    def process_and_combine_mm_data(self, o):\n        ...\n",
            True,
        ),
        (
            "class Base:\n    def process_and_combine_mm_data(self, o):\n        ...\n"
            "    def __getattr__(self, name):\n        ...\n",
            True,
        ),
    ],
)
def test_the_receivers_hierarchy_decides(tmp_path: Path, base: str, mm001: bool) -> None:
    (tmp_path / "mmlint.toml").write_text('paths = ["."]\n', encoding="utf-8")
    (tmp_path / "base.py").write_text(
        "import abc\nfrom typing import Generic, TypeVar\nfrom ext import External, offload\nT = TypeVar('T')\n\n"
        + base,
        encoding="utf-8",
    )
    (tmp_path / "proc.py").write_text(
        "from base import Base\n\n"
        "class Proc(Base):\n"
        "    async def run(self, out):\n"
        "        await self.load()\n"
        "        return self.process_and_combine_mm_data(out)\n\n"
        "    async def load(self):\n"
        "        await self.run(None)\n",
        encoding="utf-8",
    )
    codes = [d.code for d in check(cwd=tmp_path).diagnostics if d.path == "proc.py"]
    assert ("MM001" in codes) is mm001, codes


def test_audit_says_the_package_has_no_async_twin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES / "pretwin")
    text = CliRunner().invoke(cli, ["audit", "--no-cache"]).output
    assert (
        "4 calls of `process_and_combine_mm_data` are made where no `process_and_combine_mm_data_async` exists" in text
    )
    assert "0 call sites bypass the worker pool" in text
    data = json.loads(CliRunner().invoke(cli, ["audit", "--no-cache", "--format", "json"]).stdout)
    assert data["missing_twins"] == [
        {"sync": "process_and_combine_mm_data", "async": "process_and_combine_mm_data_async", "calls": 4}
    ]
    monkeypatch.chdir(FIXTURES / "posttwin")
    data = json.loads(CliRunner().invoke(cli, ["audit", "--no-cache", "--format", "json"]).stdout)
    assert data["missing_twins"] == [
        {"sync": "process_and_combine_mm_data", "async": "process_and_combine_mm_data_async", "calls": 1}
    ]
