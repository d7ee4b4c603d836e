"""The suppression grammar (SPEC "Suppressions"): a directive is a whole `#`
segment of a comment; prose that mentions one is never a suppression and never
edited by `fix`; MM009 removes exactly the directive it found."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from fix_helpers import check_file, fix_path
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from mmlint.check.engine import run_check
from mmlint.config.load import load_settings
from mmlint.core.diagnostics import Edit
from mmlint.facts.suppressions import parse_suppressions
from mmlint.fix import fix_report
from mmlint.fix.text_edits import apply_text_edits

MMLINT_PACKAGE = Path(__file__).resolve().parent.parent / "mmlint"

# A line where MM001 starts (the call of the sync twin inside an async def).
TWIN_CALL = "    return self.process_and_combine_mm_data(1)"


def _module(comment: str) -> str:
    return f"async def f(self):\n    await g()\n{TWIN_CALL}{comment}\n"


def _codes(path: Path) -> list[str]:
    return [d.code for d in check_file(path).diagnostics]


# --- the grammar ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("x = f()  # mmlint: ignore[MM001]\n", ("MM001",)),
        ("x = f()  # mmlint: ignore[MM001,MM003]\n", ("MM001", "MM003")),
        ("x = f()  # mmlint: ignore\n", None),
        ("x = f()  # why  # mmlint: ignore\n", None),
        ("x = f()  # mmlint: ignore  # why\n", None),
        ("x = f()  # why  # mmlint: ignore[MM001]  # more\n", ("MM001",)),
        ("x = f()  # mmlint: ignore\t# why\n", None),
        # Spacing and the keyword's case are free, as in ruff's `noqa` comments.
        ("x = f()  #mmlint:ignore\n", None),
        ("x = f()  #  mmlint :  IGNORE [MM001, MM003]\n", ("MM001", "MM003")),
        # A reason may follow after whitespace (ruff reads `# noqa: E501 why` so too).
        ("x = f()  # mmlint: ignore[MM001] -- measured on purpose\n", ("MM001",)),
        ("x = f()  # mmlint: ignore[MM001] because  # more\n", ("MM001",)),
        ("x = f()  # mmlint: ignore because it is generated\n", None),
    ],
)
def test_directives(line: str, codes: tuple[str, ...] | None) -> None:
    (suppression,) = parse_suppressions(line).by_line
    assert suppression.line == 1 and suppression.codes == codes
    assert parse_suppressions(line).malformed == ()


@pytest.mark.parametrize(
    "source",
    [
        "# Diagnostics an inline `# mmlint: ignore` comment suppressed\n",
        "x = ('# mmlint: ignore  # why')\n",
        "x = '''\n# mmlint: ignore\n'''\n",
        "x = 1  # see '# mmlint: ignore[MM001]'\n",
        "x = 1  # a#mmlint: ignore\n",
        "x = 1  # mmlint ignore\n",  # no colon: not `mmlint:` at all
    ],
)
def test_prose_is_not_a_directive_and_draws_no_warning(source: str) -> None:
    found = parse_suppressions(source)
    assert found.by_line == () and found.malformed == () and not found.skip_file


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("x = f()  # mmlint: ignore[MM001]because\n", "text follows the directive without a blank"),
        ("x = f()  # mmlint: ignore[MM001\n", "text follows the directive without a blank"),
        # Codes left out of their brackets would otherwise make a bare ignore.
        ("x = f()  # mmlint: ignore MM001\n", "codes go in brackets"),
        ("x = f()  # mmlint: ignore [MM001\n", "codes go in brackets"),
        ("x = f()  # mmlint: ignore[MM003] MM001\n", "codes go in brackets"),
        ("x = f()  # mmlint: ignored\n", "unknown directive `ignored`"),
        ("x = f()  # mmlint: ignore[]\n", "empty code list"),
        ("x = f()  # mmlint: ignore[mm001]\n", "not a code: 'mm001'"),
        ("x = f()  # MMLINT: ignore\n", "expected `# mmlint: ignore`"),
        ("x = f()  # mmlint: skip-file[MM001]\n", "takes no codes"),
        ("x = 1\n# mmlint: skip-file\n", "counts only in the comments before the first line of code"),
    ],
)
def test_malformed_directives_suppress_nothing(line: str, reason: str) -> None:
    found = parse_suppressions(line)
    assert found.by_line == () and not found.skip_file
    (malformed,) = found.malformed
    assert reason in malformed.reason


def test_skip_file_in_the_header() -> None:
    assert parse_suppressions('"""Doc."""\n# generated  # mmlint: skip-file\nx = 1\n').skip_file
    assert parse_suppressions("# mmlint: skip-file -- generated\nx = 1\n").skip_file
    assert not parse_suppressions("# mmlint: skip-file[MM001] generated\nx = 1\n").skip_file


def test_lines_are_the_tokenizers() -> None:
    # A lone CR ends a line; \f, \v, \x1c, \x85 and U+2028 do not.
    source = "a = 1\r# x\f\v\x1c\x85\u2028y\ny = 2  # mmlint: ignore\r\n"
    (suppression,) = parse_suppressions(source).by_line
    assert suppression.line == 3 and suppression.span.column == 8


# --- check and fix, end to end ------------------------------------------------------


@pytest.mark.parametrize(
    "comment",
    [
        "  # mmlint: ignore[MM001]",
        "  # why  # mmlint: ignore",
        "  # mmlint: ignore  # why",
        "  # mmlint: ignore[MM001]  # why",
    ],
)
def test_a_directive_suppresses_and_fix_leaves_it(tmp_path: Path, comment: str) -> None:
    path = tmp_path / "m.py"
    path.write_text(_module(comment))
    assert _codes(path) == []
    before = path.read_bytes()
    fix_path(path)
    assert path.read_bytes() == before


def test_a_reason_after_a_directive_is_kept_and_an_unused_one_goes_with_it(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(_module("  # mmlint: ignore[MM001] -- measured on purpose"))
    assert _codes(path) == []
    # Once the call no longer needs it, MM009 removes the directive and its reason.
    stale = tmp_path / "stale.py"
    stale.write_text("async def f(self):\n    await g()  # mmlint: ignore[MM001] -- was slow  # keep\n")
    (warning,) = check_file(stale).diagnostics
    assert warning.code == "MM009" and warning.fixable
    fix_path(stale)
    assert stale.read_text() == "async def f(self):\n    await g()  # keep\n"


def test_text_glued_to_a_directive_makes_it_prose_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(_module("  # mmlint: ignore[MM001]because it is slow"))
    diagnostics = check_file(path).diagnostics
    assert sorted(d.code for d in diagnostics) == ["MM001", "MM009"]
    (warning,) = [d for d in diagnostics if d.code == "MM009"]
    assert not warning.fixable and warning.edits == ()
    assert warning.message.startswith("not a suppression: text follows the directive")
    fix_path(path)
    # The call is fixed; the comment is left word for word.
    assert path.read_text().endswith("(1)  # mmlint: ignore[MM001]because it is slow\n")
    assert "await self.process_and_combine_mm_data_async(1)" in path.read_text()


PROSE = (
    "# Diagnostics an inline `# mmlint: ignore` comment suppressed\n"
    'MESSAGE = ("# mmlint: ignore  # why")\n'
    "x = 1  # the `# mmlint: ignore[MM001]` form\n"
    "y = 2  # quote: '# mmlint: ignore'\n"
)


def test_prose_mentions_are_not_reported_and_not_touched_by_fix(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(PROSE)
    assert _codes(path) == []
    run = fix_path(path)
    assert path.read_text() == PROSE
    assert run.changed == ()


def test_prose_does_not_suppress(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(_module("  # an inline `# mmlint: ignore[MM001]` would hide this"))
    assert _codes(path) == ["MM001"]


def test_unknown_code_warns_and_is_never_removed(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    source = "x = 1  # mmlint: ignore[MM01]\n"
    path.write_text(source)
    (warning,) = check_file(path).diagnostics
    assert warning.code == "MM009" and not warning.fixable and "unknown code in suppression: MM01" in warning.message
    fix_path(path)
    assert path.read_text() == source


def test_dead_codes_go_and_unknown_and_used_codes_stay(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(_module("  # mmlint: ignore[MM001, MM003,MM01]  # why"))
    fix_path(path)
    assert path.read_text() == _module("  # mmlint: ignore[MM001,MM01]  # why")


@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        ("x = 1  # mmlint: ignore[MM001]\n", "x = 1\n"),
        ("x = 1\t# mmlint: ignore\n", "x = 1\n"),
        ("x = 1  # note  # mmlint: ignore\n", "x = 1  # note\n"),
        ("x = 1  # note  # mmlint: ignore  # why\n", "x = 1  # note  # why\n"),
        ("x = 1  # mmlint: ignore  # why\n", "x = 1  # why\n"),
        ("x = 1  # mmlint: ignore[MM003]  # note  # mmlint: ignore\n", "x = 1  # note  # mmlint: ignore\n"),
        ("if x:\n    # mmlint: ignore  # why\n    y = 1\n", "if x:\n    # why\n    y = 1\n"),
        ("if x:\n    # mmlint: ignore\n    y = 1\n", "if x:\n\n    y = 1\n"),
        ("x = 1  # note  # mmlint: ignore\r\ny = 2\r\n", "x = 1  # note\r\ny = 2\r\n"),
    ],
)
def test_mm009_removes_exactly_the_directive(tmp_path: Path, line: str, fixed: str) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(line.encode())
    fix_path(path)
    assert path.read_bytes() == fixed.encode()


def test_mm009_fix_after_line_separator_characters_changes_only_the_directive(tmp_path: Path) -> None:
    # Each of these is a line break for str.splitlines, none is one for Python.
    head = (
        "\x0c\n"
        "\x0cdef f():  # form feed before def\n"
        "    return 1\n"
        "# a\x0bb\x1cc\x1dd\x1ee\x85f\u2028g\u2029h\n"
        "s = 'x\x0cy\x0bz\x85w\u2028v'\n"
        "\x0cclass C:\n"
        "    pass\n"
    )
    path = tmp_path / "m.py"
    path.write_bytes((head + "t = 1  # note  # mmlint: ignore\nu = 2\n").encode())
    assert _codes(path) == ["MM009"]
    fix_path(path)
    assert path.read_bytes() == (head + "t = 1  # note\nu = 2\n").encode()


@pytest.mark.slow
def test_fix_on_mmlints_own_source_changes_no_file(tmp_path: Path) -> None:
    tree = tmp_path / "mmlint"
    shutil.copytree(MMLINT_PACKAGE, tree, ignore=shutil.ignore_patterns("__pycache__"))
    before = {path: path.read_bytes() for path in tree.rglob("*.py")}
    report = run_check([tree], load_settings(tmp_path), tmp_path)
    assert [d for d in report.diagnostics if d.code == "MM009"] == []
    fix_report(report, write=True)
    assert {path: path.read_bytes() for path in tree.rglob("*.py")} == before


# --- a property: whatever the comment, only a whole directive is ever removed ----------

_FRAGMENTS = st.sampled_from(
    [
        "#",
        " ",
        "  ",
        "\t",
        "\x0c",
        "mmlint",
        ":",
        " ignore",
        "ignore",
        "[MM001]",
        "[MM001,MM003]",
        "[",
        "]",
        "`",
        "'",
        '"',
        "why",
        "skip-file",
        "\x85",
        "\u2028",
        "IGNORE",
        ",",
    ]
)


@hypothesis_settings(max_examples=200, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=14))
def test_removal_takes_only_a_directive_its_reason_and_its_separating_blanks(fragments: list[str]) -> None:
    comment = "#" + "".join(fragments)
    source = f"x = 1  {comment}\n"
    for suppression in parse_suppressions(source).by_line:
        removed = source[suppression.removal_span.column - 1 : suppression.removal_span.end_column - 1]
        directive = source[suppression.span.column - 1 : suppression.span.end_column - 1]
        taken = removed.strip(" \t\x0c")
        assert taken.startswith(directive)
        reason = taken[len(directive) :]
        # Whatever follows the directive is its reason: after a blank, up to the next `#` segment.
        assert reason == "" or (reason[0] in " \t\x0c" and not re.search(r"[ \t\x0c]#", reason))
        assert directive.startswith("#") and source[suppression.span.column - 2] in " \t\x0c"
        # What is left is the code and the other segments, character for character.
        left = apply_text_edits(source, [Edit(suppression.removal_span, "")])
        assert left == source.replace(removed, "", 1)
        assert left.startswith("x = 1")


@pytest.mark.parametrize("source", ["x = 1  # nothing\n", "import os  # noqa: F401\n", "x = 1  # noqa:E501, W291\n"])
def test_a_text_with_no_directive_for_mmlint_is_not_tokenized(monkeypatch, source: str) -> None:
    import mmlint.facts.suppressions as suppressions

    def tokenize(text):
        raise AssertionError("tokenized a text without a directive")

    monkeypatch.setattr(suppressions, "iter_python_tokens", tokenize)
    assert parse_suppressions(source) == suppressions.FileSuppressions()


# --- ruff's and flake8's noqa comments ----------------------------------------------


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("x = f()  # noqa\n", None),
        ("x = f()  # NOQA\n", None),
        ("x = f()  # noqa: MM001\n", ("MM001",)),
        ("x = f()  # noqa:E501,MM001\n", ("MM001",)),
        ("x = f()  # noqa: E501 MM001 MM003 -- both\n", ("MM001", "MM003")),
        ("x = f()  # type: ignore  # noqa: MM001\n", ("MM001",)),
    ],
)
def test_noqa_directives(line: str, codes: tuple[str, ...] | None) -> None:
    (suppression,) = parse_suppressions(line).by_line
    assert suppression.kind == "noqa" and suppression.codes == codes


@pytest.mark.parametrize(
    "line", ["x = f()  # noqa: E501\n", "x = f()  # noqa:\n", "x = f()  # noqaz\n", "x = '# noqa'\n"]
)
def test_noqa_for_other_tools_or_prose_covers_nothing(line: str) -> None:
    assert parse_suppressions(line).by_line == ()


@pytest.mark.parametrize("comment", ["  # noqa: MM001", "  # noqa", "  # noqa: E501, MM001  # why"])
def test_noqa_suppresses_through_the_command_line_and_is_never_reported_or_edited(tmp_path: Path, comment: str) -> None:
    from cli_support import CliRunner

    from mmlint.cli import cli

    path = tmp_path / "m.py"
    path.write_text(_module(comment) + "async def h():\n    await g()  # noqa: MM003\n")
    runner = CliRunner()
    result = runner.invoke(cli, ["check", "--no-cache", str(path)])
    assert result.exit_code == 0, result.output
    # Unused (MM003 is not reported on its line): other tools share it, so no MM009.
    before = path.read_bytes()
    assert runner.invoke(cli, ["fix", "--no-cache", str(path)]).exit_code == 0
    assert path.read_bytes() == before


def test_respect_noqa_false_turns_noqa_off(tmp_path: Path) -> None:
    from cli_support import CliRunner

    from mmlint.cli import cli

    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.mmlint]\nrespect-noqa = false\n")
    path = tmp_path / "m.py"
    path.write_text(_module("  # noqa: MM001"))
    result = CliRunner().invoke(cli, ["check", "--no-cache", "--config", str(config), str(path)])
    assert result.exit_code == 1 and "MM001" in result.output


# --- multi-line diagnostics ----------------------------------------------------------


MULTI_LINE = (
    "async def f(self, a):\n"
    "    await g()\n"
    "    items, ids, _ = self.process_and_combine_mm_data(\n"
    "        a,\n"
    "        self.mm_tokens,\n"
    "    ){comment}\n"
)


@pytest.mark.parametrize("comment", ["  # mmlint: ignore[MM001]", "  # noqa: MM001"])
def test_a_multi_line_call_is_suppressed_on_its_closing_line(tmp_path: Path, comment: str) -> None:
    path = tmp_path / "m.py"
    path.write_text(MULTI_LINE.format(comment=comment))
    assert _codes(path) == []


def test_a_suppression_on_a_middle_line_of_a_call_covers_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(MULTI_LINE.format(comment="").replace("        a,\n", "        a,  # mmlint: ignore[MM001]\n"))
    assert sorted(_codes(path)) == ["MM001", "MM009"]


@pytest.mark.parametrize("spelling", ["MMLINT", "MmLint", "mmlint"])
def test_any_case_of_the_word_is_still_read(spelling: str) -> None:
    # A directive in another case is malformed (MM009 says so): the shortcut must not hide it.
    found = parse_suppressions(f"x = 1  # {spelling}: ignore[MM001]\n")
    assert found.by_line or found.malformed


def test_an_unused_directive_goes_with_its_reason_and_nothing_else() -> None:
    source = "x = 1  #mmlint: ignore ignore  # kept\n"
    (suppression,) = parse_suppressions(source).by_line
    assert apply_text_edits(source, [Edit(suppression.removal_span, "")]) == "x = 1  # kept\n"
