"""Values no configuration key takes are configuration errors (exit 2, naming
the file and the key), never an internal error: a NUL character in any string
(paths, globs, names, codes), and for every integer key floats, infinities,
NaN, negative numbers and integers past the key's declared maximum. Driven by
the key table (mmlint.config.settings.CONFIG_KEYS), so a new key is covered
as soon as it is declared."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import CliRunner

from mmlint.cli import cli
from mmlint.config.settings import CONFIG_KEYS, ConfigKey

NUL = '"a\\u0000b"'  # TOML for a string holding a NUL character

# For each kind of key, TOML values holding a NUL character where a string goes.
NUL_VALUES: dict[str, tuple[str, ...]] = {
    "paths": (f"[{NUL}]", '["\\u0000"]', '["pkg/\\u0000"]'),
    "globs": (f"[{NUL}]", '["\\u0000"]', '["**/\\u0000/*.py"]'),
    "codes": (f"[{NUL}]", '["MM001\\u0000"]'),
    "class-names": (f"[{NUL}]",),
    "function-names": (f"[{NUL}]",),
    "wrapper-names": (f"[{NUL}]",),
    "twin-patterns": ('["{name}\\u0000"]',),
    "extend-sets": (f"[{NUL}]",),
    "drop-sets": (f"[{NUL}]",),
    "call-patterns": (f"[{NUL}]", '["time.sleep\\u0000"]'),
    "per-file-ignores": (f'{{ {NUL} = ["MM001"] }}', '{ "\\u0000" = ["MM001"] }'),
    "twins": (f'[{{ sync = {NUL}, async = "b" }}]', f'[{{ sync = "a", async = {NUL} }}]'),
    "bool": (NUL,),
}
INTEGER_KINDS = {"count": 0, "positive": 1}  # kind -> its minimum


def _integer_values(key: ConfigKey) -> list[str]:
    assert key.maximum is not None
    minimum = INTEGER_KINDS[key.kind]
    return [
        "1e20",
        "1.5",
        "1.0",
        "inf",
        "-inf",
        "nan",
        "+nan",
        "-1",
        str(minimum - 1),
        str(key.maximum + 1),
        str(2**63 - 1),
        str(-(2**63)),
        "true",
        '"10"',
    ]


def _cases() -> list[tuple[str, str]]:
    cases = []
    for key in CONFIG_KEYS:
        if key.kind in INTEGER_KINDS:
            cases += [(key.name, value) for value in _integer_values(key)]
        else:
            cases += [(key.name, value) for value in NUL_VALUES[key.kind]]
    return cases


def test_every_kind_of_key_has_hostile_values() -> None:
    """A new kind of key needs its values here (and an integer key its maximum)."""
    for key in CONFIG_KEYS:
        assert key.kind in NUL_VALUES or key.kind in INTEGER_KINDS, key.kind
        assert (key.maximum is not None) == (key.kind in INTEGER_KINDS), key.name


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("async def f(p):\n    p.process_and_combine_mm_data(1)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    return tmp_path


def _configure(project: Path, key: str, value: str) -> None:
    (project / "pyproject.toml").write_text(f"[tool.mmlint]\n{key} = {value}\n", encoding="utf-8")


@pytest.mark.parametrize(("key", "value"), _cases())
def test_a_hostile_value_is_a_configuration_error_naming_file_and_key(project: Path, key: str, value: str) -> None:
    _configure(project, key, value)
    result = CliRunner().invoke(cli, ["check"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("mmlint: error: pyproject.toml:2: "), result.stderr
    assert key.rpartition(".")[2] in result.stderr
    assert "internal error" not in result.output and isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("key", [key for key in CONFIG_KEYS if key.kind in INTEGER_KINDS], ids=lambda key: key.name)
def test_an_integer_key_takes_its_maximum(project: Path, key: ConfigKey) -> None:
    _configure(project, key.name, str(key.maximum))
    result = CliRunner().invoke(cli, ["check", "--format", "json"])
    assert result.exit_code in (0, 1), result.output


def test_an_integer_with_more_digits_than_python_reads_is_invalid_toml(project: Path) -> None:
    _configure(project, "max-file-size", "1" + "0" * 5000)
    result = CliRunner().invoke(cli, ["check"])
    assert result.exit_code == 2
    assert result.stderr.startswith("mmlint: error: pyproject.toml: invalid TOML: ")
    assert "digits" in result.stderr and "sys.set_int_max_str_digits" not in result.stderr


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("paths", '["\\u0000"]', "'paths[0]' holds a NUL character"),
        ("max-file-size", "1e20", "'max-file-size' must be a positive integer of at most 1,073,741,824, got float"),
        (
            "max-file-size",
            str(2**63 - 1),
            f"'max-file-size' must be a positive integer of at most 1,073,741,824, got {2**63 - 1}",
        ),
        ("exempt.paths", '["\\u0000"]', "'exempt.paths[0]' holds a NUL character"),
    ],
)
def test_the_reported_values_through_a_real_process(project: Path, key: str, value: str, message: str) -> None:
    _configure(project, key, value)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    ran = subprocess.run(
        [sys.executable, "-m", "mmlint", "check"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr == f"mmlint: error: pyproject.toml:2: {message}\n"
