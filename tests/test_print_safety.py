"""Every line mmlint prints escapes what a terminal would act on: a table of
hostile characters, in a file's name and in its source text, through every
printing command and format (check, fix --diff / --check / write, audit,
baseline, show-files, errors). An ordinary diff is byte-identical to the
plain unified diff, and a CRLF file's diff keeps its line breaks.
(tests/test_output_safety.py covers check's formats over hostile names.)"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import CliRunner

from mmlint.cli import cli
from mmlint.fix.model import FileFixResult
from mmlint.fix.run import unified_diff
from mmlint.reporters.escaping import visible_line

HOSTILE = {
    "osc 52 clipboard": "\x1b]52;c;ZWNobyBwd25lZA==\x07",
    "dcs": "\x1bPq#0;2;0;0;0\x9c",
    "csi clear": "\x1b[2J\x1b[H",
    "backspace": "ok\x08\x08XX",
    "bell": "\x07",
    "c1 csi": "\x9b31m",
    "c1 osc": "\x9d52;c;x\x9c",
    "nel": "\x85",
    "del": "\x7f",
    "form feed": "\x0c",
    "vertical tab": "\x0b",
    "lre": "\u202a",
    "rlo": "\u202e",
    "lri": "\u2066",
    "rli": "\u2067",
    "pdi": "\u2069",
    "line separator": "\u2028",
}
# In a file name only: in source text they break the line.
NAME_ONLY = {"newline": "\n::error file=x.py::forged\n", "carriage return": "\rforged"}

# What may reach the terminal raw: a line break, a tab, and \r only before \n.
UNSAFE = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)")

SOURCE = 'class P:\n    async def f(self, a):\n        return self.process_and_combine_mm_data("{c}", a)  # {c}\n'


def _assert_safe(text: str, where: str) -> None:
    found = UNSAFE.search(text)
    assert found is None, f"{where}: raw {found.group()!r} in {text!r}"
    github = "'github'" in where
    for line in text.splitlines():
        if github:  # each line one command of mmlint's, for a file whose name starts with "a"
            assert re.match(r"::(error|warning|notice) file=a", line), f"{where}: {line!r}"
        else:
            assert not line.lstrip().startswith("::"), f"{where}: {line!r}"


@pytest.fixture
def in_project(tmp_path, monkeypatch, cache_dir):
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("PWD", str(project))
    monkeypatch.setenv("NO_COLOR", "1")
    return project


def _printing_commands(name: str, tmp_path: Path) -> list[tuple[str, ...]]:
    baseline = str(tmp_path / "base.json")
    return [
        ("check", "--no-color", name),
        ("check", "--no-color", "--statistics", name),
        ("check", "--format", "github", name),
        ("check", "--format", "json", name),
        ("check", "--format", "sarif", name),
        ("check", "--format", "junit", name),
        ("fix", "--diff", name),
        ("fix", "--check", name),
        ("audit", "--no-color", "--show-defs", name),
        ("audit", "--format", "markdown", name),
        ("audit", "--format", "json", name),
        ("baseline", "-o", baseline, name),
        ("check", "--no-color", "--baseline", baseline, name),
        ("check", "--show-files", name),
        ("check", "--show-settings", name),
        ("check", "--no-color", name + ".missing"),  # an error naming the file
        ("fix", name),  # last: it rewrites the file
    ]


def _run_all(name: str, tmp_path: Path) -> list[str]:
    outputs = []
    for args in _printing_commands(name, tmp_path):
        result = CliRunner().invoke(cli, list(args))
        assert "Traceback" not in result.output and result.exit_code in (0, 1, 2), (args, result.output)
        _assert_safe(result.stdout, f"{args} stdout")
        _assert_safe(result.stderr, f"{args} stderr")
        outputs.append(result.stdout + result.stderr)
    return outputs


@pytest.mark.parametrize("hostile", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_source_text_and_name_are_printed_visibly(in_project, tmp_path, hostile):
    name = f"a{hostile}b.py"
    (in_project / name).write_text(SOURCE.format(c=hostile), encoding="utf-8")
    outputs = _run_all(name, tmp_path)
    diff = outputs[6]
    shown = visible_line(hostile)
    assert f"+++ b/a{shown}b.py\n" in diff and f'_async("{shown}", a)  # {shown}\n' in diff, diff
    fixed = (in_project / name).read_text(encoding="utf-8")
    assert (
        f'await self.process_and_combine_mm_data_async("{hostile}", a)  # {hostile}\n' in fixed
    )  # the bytes, unescaped


@pytest.mark.parametrize("hostile", list(NAME_ONLY.values()), ids=list(NAME_ONLY))
def test_a_name_that_breaks_lines_never_starts_a_line(in_project, tmp_path, hostile):
    name = f"a{hostile}b.py"
    (in_project / name).write_text(SOURCE.format(c="x"), encoding="utf-8")
    for output in _run_all(name, tmp_path):
        # (_run_all checked that no line but the github format's own starts with "::")
        assert not any(line.startswith(("b.py", "forged")) for line in output.splitlines()), output


def test_fix_diff_in_a_real_subprocess(in_project):
    hostile = HOSTILE["osc 52 clipboard"] + HOSTILE["rlo"] + HOSTILE["c1 csi"]
    name = f"a{hostile}\nb.py"
    (in_project / name).write_text(SOURCE.format(c=hostile), encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1", "PWD": str(in_project)}
    ran = subprocess.run(
        [sys.executable, "-m", "mmlint", "fix", "--diff", "--", name],
        cwd=in_project,
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert ran.returncode == 1, ran.stderr
    for stream in (ran.stdout, ran.stderr):
        _assert_safe(stream.decode("utf-8"), "subprocess")
    assert b"+++ b/a\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\u202e\\x9b31m\\nb.py\n" in ran.stdout


ORDINARY = [
    ("lf", b"def f():\n\treturn g(1)  # tab kept\n", b"def f():\n\treturn await g(1)  # tab kept\n"),
    ("crlf", b"def f():\r\n    return g(1)\r\n", b"def f():\r\n    return await g(1)\r\n"),
    ("no final newline", b"x = 1\ny = g()", b"x = 1\ny = await g()"),
    ("unicode", "s = '图像处理 é \\\\x1b'\nt = g()\n".encode(), "s = '图像处理 é \\\\x1b'\nt = await g()\n".encode()),
]


@pytest.mark.parametrize(("old", "new"), [case[1:] for case in ORDINARY], ids=[case[0] for case in ORDINARY])
def test_an_ordinary_diff_is_byte_identical_to_the_plain_unified_diff(tmp_path, old, new):
    plain = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        for line in difflib.unified_diff(
            old.decode().splitlines(keepends=True), new.decode().splitlines(keepends=True), "a/m.py", "b/m.py"
        )
    )
    assert unified_diff(FileFixResult("m.py", tmp_path / "m.py", old=old, new=new)) == plain


def test_a_lone_carriage_return_break_is_shown_not_sent(tmp_path):
    diff = unified_diff(
        FileFixResult("m.py", tmp_path / "m.py", old=b"x = 1\ry = g()\r", new=b"x = 1\ry = await g()\r")
    )
    assert "\r" not in diff and "-y = g()\\r\n+y = await g()\\r\n" in diff


@pytest.mark.parametrize("hostile", [*HOSTILE.values(), *NAME_ONLY.values()], ids=[*HOSTILE, *NAME_ONLY])
def test_clean_names_a_hostile_cache_directory_visibly(tmp_path, monkeypatch, hostile):
    root = tmp_path / f"cache{hostile}dir"
    monkeypatch.setenv("MMLINT_CACHE_DIR", str(root))
    for _ in range(2):  # nothing to clean, then one entry removed
        result = CliRunner().invoke(cli, ["clean"])
        assert result.exit_code == 0, result.output
        _assert_safe(result.stdout + result.stderr, "clean")
        assert not any(line.startswith(("dir", "forged", "::")) for line in result.stdout.splitlines())
        (root / "facts-v2" / "ab").mkdir(parents=True, exist_ok=True)
        (root / "facts-v2" / "ab" / ("ab" + "0" * 62)).write_bytes(b"x")
