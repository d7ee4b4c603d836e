"""The library API beside check(): fix() and audit() give what `mmlint fix` and
`mmlint audit` give, as values."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_support import CliRunner
from fix_helpers import FIXTURES

from mmlint import api
from mmlint.cli import cli


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    for case in ("tuple_unpacking", "genexp_left_alone", "result_subscript"):
        shutil.copyfile(FIXTURES / f"{case}.py", tmp_path / f"{case}.py")
    return tmp_path


def test_fix_writes_what_the_command_writes(workdir: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    twin = tmp_path_factory.mktemp("cli")
    for path in workdir.iterdir():
        shutil.copyfile(path, twin / path.name)
    run = api.fix(cwd=workdir)
    CliRunner().invoke(cli, ["fix", "--no-cache", str(twin)])
    assert {p.name: p.read_bytes() for p in workdir.iterdir()} == {p.name: p.read_bytes() for p in twin.iterdir()}
    assert sorted(result.path for result in run.changed) == ["result_subscript.py", "tuple_unpacking.py"]
    assert [path for path, _ in run.unfixed] == ["genexp_left_alone.py"]
    assert not run.clean


def test_fix_without_write_plans_and_writes_nothing(workdir: Path) -> None:
    before = {p.name: p.read_bytes() for p in workdir.iterdir()}
    run = api.fix(["tuple_unpacking.py"], cwd=workdir, write=False)
    assert {p.name: p.read_bytes() for p in workdir.iterdir()} == before
    (result,) = run.changed
    assert result.new == (FIXTURES / "tuple_unpacking.fixed.py").read_bytes()


def test_fix_leaves_what_a_baseline_records(workdir: Path) -> None:
    assert CliRunner().invoke(cli, ["baseline", "--no-cache", str(workdir / "tuple_unpacking.py"), "-o",
                                    str(workdir / "base.json")]).exit_code == 0  # fmt: skip
    run = api.fix(["tuple_unpacking.py"], cwd=workdir, baseline=workdir / "base.json")
    assert run.changed == () and run.clean


def test_audit_is_the_commands_inventory(workdir: Path) -> None:
    audit = api.audit(cwd=workdir)
    assert sorted(row.path for row in audit.rows) == [
        "genexp_left_alone.py",
        "result_subscript.py",
        "tuple_unpacking.py",
    ]
    assert audit.totals.sync_calls == sum(row.sync_calls for row in audit.rows) > 0
