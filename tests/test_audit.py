"""`mmlint audit`: the inventory values, their order, and the three formats."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_support import CliRunner
from suspension_support import write_project

from mmlint.api import check
from mmlint.audit import AuditRow, build_audit, render_markdown
from mmlint.cli import cli

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "suspension"


@pytest.fixture(scope="module")
def audit():
    return build_audit(check(cwd=PACKAGE))


def test_rows_hold_the_counts_of_each_file(audit) -> None:
    rows = {row.path: row for row in audit.rows}
    assert rows["mmproc/base.py"] == AuditRow(
        path="mmproc/base.py",
        sync_calls=1,
        async_calls=0,
        unawaitable_calls=0,
        bypassing_calls=0,
        async_defs=4,
        always=0,
        some=2,
        never=1,
        not_judged=1,
        hollow_awaits=0,
    )
    assert rows["mmproc/processors/llava.py"] == AuditRow(
        path="mmproc/processors/llava.py",
        sync_calls=0,
        async_calls=3,
        unawaitable_calls=0,
        bypassing_calls=0,
        async_defs=4,
        always=4,
        some=0,
        never=0,
        not_judged=0,
        hollow_awaits=2,
    )
    # Files with neither a twin call nor an async def get no row.
    assert "mmproc/__init__.py" not in rows


def test_rows_are_sorted_worst_first(audit) -> None:
    severities = [row.severity for row in audit.rows]
    assert severities == sorted(severities, reverse=True)
    assert audit.rows[0].path == "mmproc/media.py"


def test_totals_and_summary_line(audit) -> None:
    totals = audit.totals
    assert (totals.async_defs, totals.never, totals.hollow_awaits, totals.bypassing_calls) == (23, 8, 11, 0)
    assert totals.summary() == "0 call sites bypass the worker pool; 8 of 23 async defs never suspend; 11 hollow awaits"


def test_bypassing_calls_exclude_the_delegation(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {
            "proc.py": """
                class Base:
                    async def process_and_combine_mm_data_async(self, out, tokens):
                        return self.process_and_combine_mm_data(out, tokens)

                class Proc(Base):
                    async def process_mm_data_async(self, out):
                        return self.process_and_combine_mm_data(out, self.mm_tokens)

                    def sync_entry(self, out):
                        return self.process_and_combine_mm_data(out, self.mm_tokens)
            """
        },
    )
    (row,) = build_audit(check(cwd=root)).rows
    assert (row.sync_calls, row.bypassing_calls, row.unawaitable_calls) == (3, 2, 1)
    assert (row.async_defs, row.never) == (2, 2)


def _run(args: list[str], cwd: Path):
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, args, catch_exceptions=False)
    finally:
        os.chdir(previous)


def test_cli_text_table(tmp_path: Path) -> None:
    result = _run(["audit", "--no-color"], PACKAGE)
    assert result.exit_code == 0
    assert "mmproc/processors/qwen.py" in result.output
    assert "0 call sites bypass the worker pool; 8 of 23 async defs never suspend; 11 hollow awaits" in result.output


def test_cli_json_is_the_same_data(audit) -> None:
    result = _run(["audit", "--format", "json"], PACKAGE)
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["version"] == 2
    assert [row["path"] for row in data["files"]] == [row.path for row in audit.rows]
    assert data["totals"]["never"] == audit.totals.never
    assert data["files"][0] == {
        "path": "mmproc/media.py",
        "sync_calls": 0,
        "async_calls": 0,
        "unawaitable_calls": 0,
        "bypassing_calls": 0,
        "async_defs": 3,
        "always": 0,
        "some": 1,
        "never": 2,
        "not_judged": 0,
        "hollow_awaits": 2,
    }


def test_cli_markdown_is_a_table(audit) -> None:
    result = _run(["audit", "--format", "markdown"], PACKAGE)
    assert result.exit_code == 0
    assert result.output == render_markdown(audit)
    lines = result.output.splitlines()
    assert lines[0].startswith("| file | sync | async |")
    assert lines[2] == "| `mmproc/media.py` | 0 | 0 | 0 | 3 | 0 | 1 | 2 | 0 | 2 |"
    assert lines[-1].endswith("11 hollow awaits")


def test_cli_output_file_and_bad_path(tmp_path: Path) -> None:
    target = tmp_path / "audit.md"
    result = _run(["audit", "--format", "markdown", "--output", str(target)], PACKAGE)
    assert result.exit_code == 0 and result.output == ""
    assert target.read_text(encoding="utf-8").startswith("| file |")
    result = _run(["audit", "no/such/dir"], PACKAGE)
    assert result.exit_code == 2
    assert "no/such/dir" in result.output


def test_suspension_columns_add_up_to_the_async_defs(audit) -> None:
    for row in (*audit.rows, audit.totals):
        assert row.always + row.some + row.never + row.not_judged == row.async_defs


def test_files_that_do_not_parse_are_named_not_dropped(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("async def f():\n    return 1\n")
    (tmp_path / "broken.py").write_text(
        "class P:\n    async def go(self):\n        return self.process_and_combine_mm_data(a b)\n"
    )
    for fmt in ("text", "markdown"):
        result = _run(["audit", "--format", fmt, "--no-color"], tmp_path)
        assert result.exit_code == 0
        assert "1 file could not be parsed and is not in the table (see `mmlint check`): broken.py" in result.output
    result = _run(["audit", "--format", "json"], tmp_path)
    assert json.loads(result.output)["unparsed"] == ["broken.py"]


def test_show_defs_says_why_a_def_is_unknown(tmp_path, monkeypatch):
    """`audit --show-defs` names the first receiver it could not type, and why."""
    from mmlint.api import audit as run_audit

    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    (tmp_path / "m.py").write_text(
        "from outside import make\n\n\nasync def handle(proc, text):\n    return proc.run(text)\n\n\n"
        "async def built(text):\n    return make()(text)\n\n\nasync def local(text):\n    return make_it(text)\n",
        encoding="utf-8",
    )
    defs = {d.qualname: d for d in run_audit([tmp_path], cwd=tmp_path).defs}
    assert defs["handle"].unknown_because == "`proc` is a parameter with no annotation"
    assert defs["built"].unknown_because == "`outside.make()` is a value from outside the scanned code"
    assert defs["local"].unknown_because == "`make_it` is not bound where it is used"
    assert defs["handle"].describe()[1] == "    unknown because `proc` is a parameter with no annotation"
