"""One line splitter, the tokenizer's (mmlint.core.source.split_lines): only \\n, \\r\\n
and \\r end a line; \\f, \\v, \\x1c-\\x1e, \\x85, U+2028 and U+2029 do not (they
do for str.splitlines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmlint.config.load import config_key_line, load_settings
from mmlint.core.source import line_starts, split_lines
from mmlint.fix.model import FileFixResult
from mmlint.fix.run import unified_diff
from mmlint.reporters.snippets import line_of

NOT_LINE_BREAKS = "\x0c\x0b\x1c\x1d\x1e\x85\u2028\u2029"


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("a", ["a"]),
        ("a\n", ["a"]),
        ("a\r\nb\rc\n\n", ["a", "b", "c", ""]),
        (f"a{NOT_LINE_BREAKS}b\nc", [f"a{NOT_LINE_BREAKS}b", "c"]),
    ],
)
def test_split_lines(text: str, lines: list[str]) -> None:
    assert split_lines(text) == lines
    assert "".join(split_lines(text, keepends=True)) == text
    assert [line.rstrip("\r\n") for line in split_lines(text, keepends=True)] == lines
    assert len(line_starts(text)) == text.count("\n") + text.count("\r") - text.count("\r\n") + 1


def test_snippet_line_after_separator_characters(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(f"# a{NOT_LINE_BREAKS}b\r\nx = 1\ry = 2\n".encode())
    assert [line_of(path, n) for n in (1, 2, 3, 4)] == [f"# a{NOT_LINE_BREAKS}b", "x = 1", "y = 2", None]


def test_diff_keeps_separator_characters_inside_their_line(tmp_path: Path) -> None:
    old = "# a\u2028b\x0cc\nx = 1  # mmlint: ignore\n".encode()
    new = "# a\u2028b\x0cc\nx = 1\n".encode()
    diff = unified_diff(FileFixResult("m.py", tmp_path / "m.py", old=old, new=new))
    # Inside their line, and shown escaped: a terminal would act on them (tests/test_diff_safety.py).
    assert diff.endswith("@@ -1,2 +1,2 @@\n # a\\u2028b\\x0cc\n-x = 1  # mmlint: ignore\n+x = 1\n")


def test_config_key_line_after_separator_characters(tmp_path: Path) -> None:
    (tmp_path / "mmlint.toml").write_text(
        "# team policy\u2028see the wiki\x85and more\nmin-call-sites = 3\n", encoding="utf-8"
    )
    settings = load_settings(tmp_path)
    assert config_key_line(settings, "min-call-sites") == 2
