"""Configuration per file, as ruff: each file is governed by the closest
configuration at or above it, whatever the working directory; `--config`
names one for all. Also: configured `paths` stay inside the configuration's
directory and name Python files only."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from cli_support import CliRunner

from mmlint.api import check
from mmlint.cli import cli as main
from mmlint.config.load import ConfigError

PROJECT = Path(__file__).resolve().parent.parent

# sglang's layout: the configuration lives in python/, pre-commit and CI run
# from the repository root and name files one by one.
SGLANG_CONFIG = """\
[project]
name = "pkg"
version = "0.0.0"

[tool.mmlint]
paths = ["pkg"]
min-call-sites = 1

[tool.mmlint.exempt]
paths = ["**/base_processor.py"]
"""
HELPERS = """\
async def decode_frames(path):
    # Declared async, never suspends: the await on it is hollow, and a loop
    # over the input repeats the read.
    frames = []
    for index in range(path.count):
        frames.append(read_frame(path, index))
    return frames
"""
PROCESSOR = """\
from pkg.helpers import decode_frames


class VideoProcessor:
    async def process_mm_data_async(self, video):
        frames = await decode_frames(video)
        return await self.process_and_combine_mm_data_async(frames)
"""
BASE_PROCESSOR = """\
class BaseProcessor:
    async def process_mm_data_async(self, data):
        return self.process_and_combine_mm_data(data)
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def sglang_layout(root: Path) -> Path:
    return write(
        root,
        {
            "python/pyproject.toml": SGLANG_CONFIG,
            "python/pkg/__init__.py": "",
            "python/pkg/helpers.py": HELPERS,
            "python/pkg/processors/__init__.py": "",
            "python/pkg/processors/video.py": PROCESSOR,
            "python/pkg/processors/base_processor.py": BASE_PROCESSOR,
        },
    )


def run_cli(cwd: Path, monkeypatch: pytest.MonkeyPatch, *args: str, stdin: bytes | None = None):
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("PWD", str(cwd))
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def codes(result) -> list[tuple[str, str]]:
    return sorted((d["path"], d["code"]) for d in json.loads(result.stdout)["diagnostics"])


# -- the closest configuration governs each file ---------------------------------------------


def test_sglang_layout_one_file_from_the_repository_root_sees_the_context(tmp_path, monkeypatch):
    """The hollow await needs helpers.py (context from python/pyproject.toml's
    `paths`), though only the processor is named and no configuration is above the cwd."""
    repo = sglang_layout(tmp_path / "repo")
    result = run_cli(repo, monkeypatch, "check", "--format", "json", "python/pkg/processors/video.py")
    assert result.exit_code == 1, result.output
    assert codes(result) == [("python/pkg/processors/video.py", "MM004")]


def test_sglang_layout_walk_from_the_root_applies_the_nested_exemption(tmp_path, monkeypatch):
    repo = sglang_layout(tmp_path / "repo")
    result = run_cli(repo, monkeypatch, "check", "--format", "json", "python")
    # base_processor.py (MM001, MM003) is exempt by the configuration in python/.
    # One finding per root cause: the hollow await in video.py is a related location of helpers.py's MM003.
    assert codes(result) == [("python/pkg/helpers.py", "MM003")]


def test_each_directory_is_walked_with_its_own_configuration(tmp_path, monkeypatch):
    call = "class P:\n    async def f(self, a):\n        return await self.encode_async(a) + self.encode(a)\n"
    write(
        tmp_path,
        {
            "mmlint.toml": 'exclude = ["**/generated/**"]\n',
            "app/generated/g.py": BASE_PROCESSOR,
            "lib/.mmlint.toml": textwrap.dedent("""\
            exclude = ["skipped.py"]
            [[twins]]
            sync = "encode"
            async = "encode_async"
            [per-file-ignores]
            "legacy.py" = ["MM003"]
        """),
            "lib/skipped.py": BASE_PROCESSOR,
            "lib/legacy.py": BASE_PROCESSOR,
            "lib/twin.py": call,
            "top.py": call,
        },
    )
    result = run_cli(tmp_path, monkeypatch, "check", "--format", "json", "--select", "MM001,MM003")
    assert codes(result) == [
        ("lib/legacy.py", "MM001"),  # lib's per-file-ignores drop MM003 only
        ("lib/twin.py", "MM001"),  # lib's own twin pair
    ]
    # The root's configuration knows no `encode` twin: top.py is clean.


def test_the_configuration_file_named_with_config_governs_every_file(tmp_path, monkeypatch):
    write(
        tmp_path,
        {
            "one.toml": "",
            "lib/mmlint.toml": 'exclude = ["b.py"]\n',
            "lib/b.py": BASE_PROCESSOR,
        },
    )
    result = run_cli(tmp_path, monkeypatch, "check", "--format", "json", "--config", "one.toml", "lib")
    assert codes(result) == [("lib/b.py", "MM001"), ("lib/b.py", "MM003")]


@pytest.mark.slow
def test_this_repositorys_processors_fixture_reads_the_same_from_the_root(monkeypatch):
    from_root = run_cli(PROJECT, monkeypatch, "check", "--format", "json", "fixtures/processors")
    inside = run_cli(PROJECT / "fixtures" / "processors", monkeypatch, "check", "--format", "json")

    def keyed(result, prefix: str):
        return sorted(
            (d["path"].removeprefix(prefix), d["line"], d["column"], d["code"], d["message"].replace(prefix, ""))
            for d in json.loads(result.stdout)["diagnostics"]
        )

    assert keyed(from_root, "fixtures/processors/") == keyed(inside, "")
    assert from_root.exit_code == inside.exit_code == 1


def test_too_few_call_sites_is_judged_per_configuration(tmp_path, monkeypatch):
    """Walking a directory that holds a whole configuration's scope judges its
    min-call-sites, reported against that configuration's own file."""
    write(
        tmp_path,
        {
            "sub/pyproject.toml": '[tool.mmlint]\npaths = ["pkg"]\nmin-call-sites = 5\n',
            "sub/pkg/a.py": PROCESSOR,
        },
    )
    result = run_cli(tmp_path, monkeypatch, "check", "--format", "json", "sub")
    assert ("sub/pyproject.toml", "MM008") in codes(result)
    # Naming one file is not a whole scan.
    one_file = run_cli(tmp_path, monkeypatch, "check", "--format", "json", "sub/pkg/a.py")
    assert ("sub/pyproject.toml", "MM008") not in codes(one_file)


def test_the_api_finds_each_files_configuration(tmp_path):
    repo = sglang_layout(tmp_path / "repo")
    report = check(["python/pkg/processors/video.py"], cwd=repo)
    assert [d.code for d in report.diagnostics] == ["MM004"]


# -- configured paths: inside the configuration's directory, Python files only ---------------


def test_a_configured_path_outside_the_configurations_directory_is_an_error(tmp_path, monkeypatch):
    write(
        tmp_path,
        {"outside/creds.py": "SECRET = 1\n", "proj/pyproject.toml": '[tool.mmlint]\n\npaths = ["../outside"]\n'},
    )
    result = run_cli(tmp_path / "proj", monkeypatch, "check")
    assert result.exit_code == 2
    assert (
        "mmlint: error: pyproject.toml:3: 'paths[0]' names '../outside', which is outside the configuration's directory"
        in result.output
    )
    with pytest.raises(ConfigError, match="outside the configuration's directory"):
        check(cwd=tmp_path / "proj")


def test_a_configured_path_through_a_link_out_of_the_directory_is_an_error(tmp_path, monkeypatch):
    write(tmp_path, {"outside/victim.py": "x = 1\n", "proj/mmlint.toml": 'paths = ["inner"]\n'})
    (tmp_path / "proj" / "inner").symlink_to(tmp_path / "outside")
    result = run_cli(tmp_path / "proj", monkeypatch, "check")
    assert result.exit_code == 2
    assert "'paths[0]' names 'inner', which is outside the configuration's directory" in result.output


def test_a_configured_path_naming_a_file_that_is_not_python_is_an_error(tmp_path, monkeypatch):
    write(tmp_path, {"proj/creds.env": "TOKEN = 'secret'\n", "proj/mmlint.toml": 'paths = ["creds.env"]\n'})
    result = run_cli(tmp_path / "proj", monkeypatch, "check")
    assert result.exit_code == 2
    assert (
        "mmlint: error: mmlint.toml:1: 'paths[0]' names 'creds.env', which is not a Python file (.py, .pyi)"
        in result.output
    )
    assert "secret" not in result.output


def test_an_invalid_nested_configuration_met_in_a_walk_is_an_error(tmp_path, monkeypatch):
    write(tmp_path, {"lib/mmlint.toml": "exclud = []\n", "lib/a.py": "x = 1\n"})
    result = run_cli(tmp_path, monkeypatch, "check", "lib")
    assert result.exit_code == 2
    assert (
        "mmlint: error: lib/mmlint.toml:1: unknown key 'exclud' in the top level (did you mean 'exclude'?)"
        in result.output
    )
