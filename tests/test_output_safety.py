"""Output that cannot be forged: file names and source text with control
characters are printed visibly in every line-based format, never interpreted,
and a path cannot start a GitHub workflow command."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from cli_support import CliRunner

from mmlint.cli import cli
from mmlint.reporters.escaping import visible, visible_path

BODY = "class P:\n    async def f(self, a):\n        return self.process_and_combine_mm_data(a)\n"

HOSTILE_NAMES = {
    "newline": "a\nb.py",
    "carriage return": "a\rb.py",
    "ansi": "\x1b[31mred\x1b[0m.py",
    "line separator": "a\u2028b.py",
    "nel": "a\x85b.py",
    "bidi override": "a\u202eyp.b.py",
    "workflow command": "::error::x.py",
}


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\nb", "a\\nb"),
        ("a\rb\tc", "a\\rb\\tc"),
        ("\x1b[31m", "\\x1b[31m"),
        ("\x00\x7f\x85\x9f", "\\x00\\x7f\\x85\\x9f"),
        ("\u2028\u2029", "\\u2028\\u2029"),
        ("\u202e\u2066", "\\u202e\\u2066"),
        ("\udcff", "\\udcff"),
        ("图像处理 é \\ ok", "图像处理 é \\ ok"),
    ],
)
def test_visible_escapes_control_characters_only(raw, shown):
    assert visible(raw) == shown


def test_visible_path_defuses_a_workflow_command():
    assert visible_path("::error::x.py") == "./::error::x.py"
    assert visible_path("  ::warning::x.py") == "./  ::warning::x.py"
    assert visible_path("a::b.py") == "a::b.py"


@pytest.fixture
def hostile_tree(tmp_path, monkeypatch):
    for name in HOSTILE_NAMES.values():
        (tmp_path / name).write_text(BODY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    return tmp_path


def _lines_are_safe(text: str) -> None:
    for line in text.splitlines():
        assert not line.lstrip().startswith("::"), line
    assert "\x1b" not in text and "\u2028" not in text and "\x85" not in text and "\u202e" not in text
    assert "\r" not in text


def _stdout(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code in (0, 1), result.output
    return result.stdout


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=list(HOSTILE_NAMES))
def test_text_report_shows_the_real_name_visibly(hostile_tree, name):
    raw = HOSTILE_NAMES[name]
    out = _stdout("check", "--no-color", raw)
    _lines_are_safe(out)
    # Every report line starts with the path: one line per diagnostic, the path
    # made visible, not cut at the newline and not stripped of its escape codes.
    heads = [line for line in out.splitlines() if ": MM00" in line]
    assert heads and all(line.startswith(visible_path(raw) + ":") for line in heads)


def test_every_text_format_is_safe(hostile_tree):
    for args in (
        ("check", "--no-color"),
        ("check", "--statistics"),
        ("audit", "--no-color"),
        ("audit", "--format", "markdown"),
        ("fix", "--check"),
    ):
        _lines_are_safe(_stdout(*args))


def test_github_format_cannot_be_injected(hostile_tree):
    out = _stdout("check", "--format", "github")
    lines = out.splitlines()
    # Exactly two commands per file (MM001 and MM003), each on its own line.
    assert len(lines) == 2 * len(HOSTILE_NAMES)
    assert all(line.startswith(("::error file=", "::warning file=")) for line in lines)
    assert "\x1b" not in out and "\r" not in out
    assert any("file=a%0Ab.py," in line for line in lines)
    assert any("file=%3A%3Aerror%3A%3Ax.py," in line for line in lines)


def test_structured_formats_keep_the_real_path(hostile_tree):
    data = json.loads(_stdout("check", "--format", "json"))
    assert {d["path"] for d in data["diagnostics"]} == set(HOSTILE_NAMES.values())
    sarif = json.loads(_stdout("check", "--format", "sarif"))
    assert len(sarif["runs"][0]["results"]) == 2 * len(HOSTILE_NAMES)
    root = ET.fromstring(_stdout("check", "--format", "junit").split("\n", 1)[1])
    classnames = {case.get("classname") for case in root.iter("testcase")}
    assert "a\nb.py" in classnames  # XML carries a newline; the document stays well formed
    assert "\\x1b[31mred\\x1b[0m.py" in classnames  # an escape code it cannot carry is made visible


def test_error_messages_show_a_hostile_path_visibly(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["check", "gone\n::error::x.py"], prog_name="mmlint")
    assert result.exit_code == 2
    assert result.stderr == "mmlint: error: gone\\n::error::x.py: no such file or directory\n"


def test_warnings_show_a_hostile_configured_path_visibly(tmp_path, monkeypatch):
    """A configured `paths` entry is the repository's text: the warning naming
    it must not start a line of its own (a forged workflow command)."""
    hostile = "empty\n::error file=x.py::forged"
    (tmp_path / hostile).mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.mmlint]\npaths = ["empty\\n::error file=x.py::forged"]\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    result = CliRunner().invoke(cli, ["check", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert result.stderr == "mmlint: warning: no Python files found under empty\\n::error file=x.py::forged\n"


def test_walk_warnings_show_a_hostile_directory_visibly(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text(BODY)
    hostile = tmp_path / "sub\x1b[2J\n::warning::x"
    hostile.mkdir()
    real_scandir = __import__("os").scandir

    def scandir(path="."):
        if str(path) == str(hostile):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr("os.scandir", scandir)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    result = CliRunner().invoke(cli, ["check", "--no-cache", "-q", "."])
    assert result.stderr == ""  # --quiet: diagnostics only
    result = CliRunner().invoke(cli, ["check", "--no-cache", "."])
    assert (
        "mmlint: warning: sub\\x1b[2J\\n::warning::x: cannot read directory: Permission denied; skipped\n"
        in result.stderr
    )
    _lines_are_safe(result.stderr)


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--format", "json"),
        ("check", "--format", "sarif"),
        ("check", "--format", "json", "--statistics"),
        ("audit", "--format", "json"),
    ],
)
def test_json_formats_escape_what_a_terminal_would_act_on(hostile_tree, args):
    out = _stdout(*args)
    for char in ("\x85", "\u2028", "\u202e", "\x1b", "\x7f"):
        assert char not in out
    json.loads(out)  # still the same document
