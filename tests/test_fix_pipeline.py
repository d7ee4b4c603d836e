"""The fix pipeline's safety: atomic writes keep permission bits and leave the
original intact on failure, verification refuses a wrong edit, bad input is a
per-file error, and the comment (MM009) stage only touches comments."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from fix_helpers import check_file, fix_path

import mmlint.core.write as write_module
import mmlint.fix.pipeline as pipeline
from mmlint.core.diagnostics import Diagnostic, Edit, Span
from mmlint.core.write import write_atomically
from mmlint.fix import FileToFix, fix_file
from mmlint.fix.call_rewrite import plan_call_edits, rewrite_calls
from mmlint.fix.model import CallFix
from mmlint.fix.verify import (
    VerificationFailed,
    verify_call_rewrite,
    verify_comment_edit,
)

SOURCE = b"""class P(Base):
    async def run(self, out):
        items, ids, _ = self.process_and_combine_mm_data(
            out,  # the base output
            self.mm_tokens,
        )
        return items
"""
FIXED = SOURCE.replace(b"= self.process_and_combine_mm_data(", b"= await self.process_and_combine_mm_data_async(")


def _tree_files(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()}


@pytest.mark.parametrize("mode", [0o640, 0o755, 0o600])
def test_permission_bits_are_kept(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "proc.py"
    target.write_bytes(SOURCE)
    target.chmod(mode)
    run = fix_path(target)
    assert run.sites_fixed == 1
    assert target.read_bytes() == FIXED
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert _tree_files(tmp_path) == {"proc.py"}


def test_a_symlinked_file_is_fixed_through_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "proc.py").write_bytes(SOURCE)
    link = tmp_path / "proc.py"
    link.symlink_to(real / "proc.py")
    run = fix_path(link)
    assert run.sites_fixed == 1
    assert link.is_symlink()
    assert (real / "proc.py").read_bytes() == FIXED
    assert _tree_files(real) == {"proc.py"}


def test_failed_rename_leaves_original_and_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "proc.py"
    target.write_bytes(SOURCE)

    def refuse(src, dst, **dir_fds):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(write_module.os, "replace", refuse)
    run = fix_path(target)
    assert target.read_bytes() == SOURCE
    assert _tree_files(tmp_path) == {"proc.py"}
    assert len(run.errors) == 1 and "could not write" in run.errors[0].error
    assert not run.changed and not run.clean


def test_failed_write_leaves_original_and_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "proc.py"
    target.write_bytes(SOURCE)

    def broken_fsync(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(write_module.os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        write_atomically(target, FIXED)
    assert target.read_bytes() == SOURCE
    assert _tree_files(tmp_path) == {"proc.py"}


def test_read_only_directory_is_a_file_error(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root can write into a read-only directory")
    folder = tmp_path / "ro"
    folder.mkdir()
    target = folder / "proc.py"
    target.write_bytes(SOURCE)
    folder.chmod(0o555)
    try:
        run = fix_path(target)
    finally:
        folder.chmod(0o755)
    assert target.read_bytes() == SOURCE
    assert run.errors and "could not write" in run.errors[0].error


def test_verification_failure_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "proc.py"
    target.write_bytes(SOURCE)
    real_rewrite = pipeline.rewrite_calls

    def sloppy_rewrite(source, fixes):
        # The promised rewrite plus one unplanned change elsewhere in the file.
        result = real_rewrite(source, fixes)
        return type(result)(result.new.replace(b"return items", b"return ids"), result.fixed, result.unfixed)

    monkeypatch.setattr(pipeline, "rewrite_calls", sloppy_rewrite)
    run = fix_path(target)
    assert target.read_bytes() == SOURCE
    assert len(run.errors) == 1 and run.errors[0].error.startswith("fix not applied")
    assert not run.changed


def test_unreadable_file_is_a_file_error(tmp_path: Path) -> None:
    missing = tmp_path / "gone.py"
    file = FileToFix("gone.py", missing, (), None)
    result = fix_file(file, write=True)
    assert result.error is not None and result.error.startswith("could not read")


def test_syntax_error_file_is_left_untouched(tmp_path: Path) -> None:
    target = tmp_path / "broken.py"
    broken = b"async def f(self):\n    self.process_and_combine_mm_data(\n"
    target.write_bytes(broken)
    run = fix_path(target)
    assert target.read_bytes() == broken
    assert run.errors and "parse" in run.errors[0].error


def test_verify_rejects_a_changed_argument() -> None:
    fix = CallFix(Span(3, 25, 6, 10), "process_and_combine_mm_data", "process_and_combine_mm_data_async")
    rewrite = rewrite_calls(SOURCE, [fix])
    verify_call_rewrite(SOURCE, rewrite.new, [fix], rewrite.fixed)
    with pytest.raises(VerificationFailed):
        verify_call_rewrite(SOURCE, rewrite.new.replace(b"out,", b"ids,"), [fix], rewrite.fixed)
    with pytest.raises(VerificationFailed):
        verify_call_rewrite(SOURCE, rewrite.new.replace(b"await ", b""), [fix], rewrite.fixed)


def test_unmatched_span_is_reported_not_guessed() -> None:
    fix = CallFix(Span(3, 26, 6, 10), "process_and_combine_mm_data", "process_and_combine_mm_data_async")
    rewrite = rewrite_calls(SOURCE, [fix])
    assert rewrite.new == SOURCE and not rewrite.fixed
    assert [site.span for site in rewrite.unfixed] == [fix.span]


def test_fstring_site_is_left_with_a_reason() -> None:
    source = b'async def f(p):\n    return f"{p.process_and_combine_mm_data(1)}"\n'
    fix = CallFix(Span(2, 15, 2, 47), "process_and_combine_mm_data", "process_and_combine_mm_data_async")
    rewrite = rewrite_calls(source, [fix])
    assert rewrite.new == source
    assert [site.reason for site in rewrite.unfixed] == ["inside an f-string"]


def test_sites_beside_fstrings_are_fixed_and_those_inside_are_not() -> None:
    twin = "p.process_and_combine_mm_data(1)"
    lines = [f"x = {twin}", f'y = f"{{{twin}}}" + {twin}', f'z = "{{{twin}}}" or {twin}', f'w = f"a" f"{{{twin}!r}}"']
    source = ("async def f(p):\n" + "".join(f"    {line}\n" for line in lines)).encode()
    fixes = []
    for number, line in enumerate(lines, start=2):
        start = -1
        while (start := line.find(twin, start + 1)) >= 0:
            column = start + 5  # 4 of indentation, 1-based
            fixes.append(CallFix(Span(number, column, number, column + len(twin)), twin[2:-3], twin[2:-3] + "_async"))
    rewrite = rewrite_calls(source, fixes)
    reasons = {(site.span.line, site.span.column): site.reason for site in rewrite.unfixed}
    fixed = {(site.span.line, site.span.column) for site in rewrite.fixed}
    assert fixed == {(2, 9), (3, 49), (4, 49)}
    # A call inside a plain string is no call at all; inside an f-string it is one, left with its reason.
    assert reasons == {
        (3, 12): "inside an f-string",
        (4, 11): "no call of the twin starts and ends at this position",
        (5, 17): "inside an f-string",
    }


def test_locating_many_sites_reads_the_tokens_a_bounded_number_of_times(monkeypatch) -> None:
    # Each site used to scan the tokens from the start for f-strings: a file's fix was quadratic in its sites.
    import mmlint.fix.call_rewrite as call_rewrite

    reads = 0

    class Counted(list):
        def __iter__(self):
            nonlocal reads
            for item in super().__iter__():
                reads += 1
                yield item

        def __getitem__(self, index):
            nonlocal reads
            reads += 1
            return super().__getitem__(index)

    tokens: list = []
    original = call_rewrite.python_tokens
    monkeypatch.setattr(
        call_rewrite, "python_tokens", lambda text: tokens.append(Counted(original(text))) or tokens[-1]
    )
    sites = 400
    twin = "self.process_and_combine_mm_data(data)"
    source = "async def f(self, data):\n" + "".join(f"    a{i} = {twin}\n" for i in range(sites))
    fixes = [
        CallFix(
            Span(line, 9 + len(str(line - 2)), line, 9 + len(str(line - 2)) + len(twin)),
            "process_and_combine_mm_data",
            "process_and_combine_mm_data_async",
        )
        for line in range(2, sites + 2)
    ]
    edits, fixed, unfixed = plan_call_edits(source, fixes)
    assert len(fixed) == sites and not unfixed
    assert reads <= 20 * len(tokens[0])


@pytest.mark.parametrize(
    ("expression", "parens"),
    [
        ("x.f()[0]", True),
        ("x.f().a", True),
        ("x.f()()", True),
        ("x.f() (1)", True),
        ("g(x.f())", False),
        ("x.f() ** 2", False),
        ("2 ** x.f()", False),
        ("-x.f()", False),
        ("a[x.f()]", False),
        ("x.f() if c else d", False),
        # Parentheses already around the call enclose the whole `await`.
        ("(x.f())[0]", False),
    ],
)
def test_parentheses_are_added_only_before_a_trailer(expression: str, parens: bool) -> None:
    column = expression.index("x.f()") + 1
    fix = CallFix(Span(1, column, 1, column + len("x.f()")), "f", "f_async")
    edits, fixed, unfixed = plan_call_edits(expression + "\n", [fix])
    assert not unfixed and [site.parenthesized for site in fixed] == [parens]


def _mm009(line: int, column: int, end_column: int) -> Diagnostic:
    return Diagnostic(
        path="proc.py",
        span=Span(line, column, line, end_column),
        code="MM009",
        name="unused-suppression",
        message="unused suppression",
        fixable=True,
        edits=(Edit(Span(line, column, line, end_column), ""),),
    )


def test_comment_fix_removes_dead_suppression(tmp_path: Path) -> None:
    target = tmp_path / "proc.py"
    source = b"x = 1  # mmlint: ignore[MM003]\r\ny = 2\r\n"
    target.write_bytes(source)
    file = FileToFix("proc.py", target, (_mm009(1, 6, 31),), None)
    result = fix_file(file, write=True)
    assert result.error is None and [s.code for s in result.fixed] == ["MM009"]
    assert target.read_bytes() == b"x = 1\r\ny = 2\r\n"


def test_comment_fix_and_call_fix_in_one_file(tmp_path: Path) -> None:
    target = tmp_path / "proc.py"
    source = SOURCE.replace(b"    async def run", b"    # mmlint: ignore\n    async def run")
    target.write_bytes(source)
    report = check_file(target)
    calls = tuple(d for d in report.diagnostics if d.code == "MM001")
    # A whole comment line removed shifts the call one line up.
    dead = Diagnostic(
        "proc.py", Span(2, 5, 3, 1), "MM009", "unused-suppression", "unused", True, (Edit(Span(2, 1, 3, 1), ""),)
    )
    file = FileToFix("proc.py", target, calls + (dead,), report.project.files["proc.py"])
    result = fix_file(file, write=True)
    assert result.error is None, result.error
    assert target.read_bytes() == FIXED
    assert sorted(s.code for s in result.fixed) == ["MM001", "MM009"]
    assert [s.span for s in result.fixed if s.code == "MM001"] == [calls[0].span]


def test_comment_verifier_rejects_code_changes() -> None:
    verify_comment_edit(b"x = 1  # a\n", b"x = 1\n")
    with pytest.raises(VerificationFailed):
        verify_comment_edit(b"x = 1  # a\n", b"x = 2  # a\n")


def test_comment_fix_touching_code_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "proc.py"
    target.write_bytes(b"x = 1  # mmlint: ignore\n")
    file = FileToFix("proc.py", target, (_mm009(1, 1, 6),), None)
    result = fix_file(file, write=True)
    assert result.error is not None and result.error.startswith("fix not applied")
    assert target.read_bytes() == b"x = 1  # mmlint: ignore\n"


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_non_ascii_before_the_call_on_the_same_line(tmp_path: Path, encoding: str) -> None:
    # Columns are code points for the engine, UTF-8 bytes for `ast`: the
    # verifier must convert, whatever the file's own encoding.
    text = (
        f"# -*- coding: {encoding} -*-\n"
        "async def f(self):\n"
        "    x = ('d\u00e9j\u00e0', self.process_and_combine_mm_data(1)[0], '\u00e9')\n"
    )
    target = tmp_path / "proc.py"
    target.write_bytes(text.encode(encoding))
    run = fix_path(target)
    assert not run.errors, [r.error for r in run.errors]
    expected = text.replace(
        "self.process_and_combine_mm_data(1)[0]", "(await self.process_and_combine_mm_data_async(1))[0]"
    )
    assert target.read_bytes() == expected.encode(encoding)


def test_temp_file_creation_refused_is_a_file_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # What a read-only directory does to a non-root user.
    target = tmp_path / "proc.py"
    target.write_bytes(SOURCE)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(write_module, "_create_temp", refuse)
    run = fix_path(target)
    assert target.read_bytes() == SOURCE
    assert run.errors and run.errors[0].error == "could not write: Permission denied"


def test_a_file_fixed_meanwhile_is_not_overwritten_nor_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two `mmlint fix` runs over one tree: the one that finds the file already
    rewritten by the other as it would have written it writes nothing, claims no
    fixed site, and counts it a success."""
    target = tmp_path / "proc.py"
    target.write_bytes(SOURCE)
    real_rewrite = pipeline.rewrite_calls

    def rewrite_while_another_run_writes(source, fixes):
        result = real_rewrite(source, fixes)
        target.write_bytes(FIXED)  # the other run got there first
        return result

    monkeypatch.setattr(pipeline, "rewrite_calls", rewrite_while_another_run_writes)
    run = fix_path(target)
    assert target.read_bytes() == FIXED
    assert not run.changed and run.sites_fixed == 0
    assert not run.errors and run.already_fixed == ("proc.py",) and run.clean


def test_write_atomically_refuses_when_the_file_is_not_what_was_read(tmp_path: Path) -> None:
    target = tmp_path / "proc.py"
    target.write_bytes(b"now\n")
    with pytest.raises(write_module.ChangedMeanwhile):
        write_atomically(target, b"new\n", expected=b"then\n")
    assert target.read_bytes() == b"now\n" and _tree_files(tmp_path) == {"proc.py"}
    write_atomically(target, b"new\n", expected=b"now\n")
    assert target.read_bytes() == b"new\n"


def test_a_later_round_failing_does_not_hide_an_earlier_write(tmp_path: Path) -> None:
    """Round 1 wrote the file, round 2 failed on it: the summary says it was
    fixed in part, not that it was left untouched."""
    from mmlint.cli.fix import render_summary
    from mmlint.fix.model import FileFixResult, FixedSite
    from mmlint.fix.run import FixRun, merge_rounds

    site = FixedSite(Span(3, 25, 6, 10), "MM001")
    first = FileFixResult("proc.py", tmp_path / "proc.py", fixed=(site,), old=SOURCE, new=FIXED)
    second = FileFixResult("proc.py", tmp_path / "proc.py", error="fix not applied: boom", old=FIXED, new=FIXED)
    run = merge_rounds([FixRun((first,)), FixRun((second,))])
    assert run.changed and run.sites_fixed == 1 and run.errors and not run.untouched_by_errors
    text = "\n".join(line for line, _ in render_summary(run, mode="write", quiet=False))
    assert "Fixed 1 site in 1 file." in text
    assert "fixed only in part because of errors" in text and "left untouched" not in text
