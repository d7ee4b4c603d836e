"""The server's code actions in-process, on hostile text: every action's
result compiles, a suppression suppresses, and one analysed text is fixed
once whatever the actions asked for (mmlint.server.actions.ActionPlan)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mmlint.server.actions as actions
from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.fix.text_edits import apply_text_edits
from mmlint.server.actions import ActionPlan, CommentPlaces, suppressed_text, text_of
from mmlint.server.analysis import Analyser, DocumentResult
from mmlint.server.settings import ServerSettings
from test_fix_properties import module

TWIN = "self.process_and_combine_mm_data"


def _mm001(line: int, end_line: int | None = None) -> Diagnostic:
    return Diagnostic("a.py", Span(line, 5, end_line or line, 20), "MM001", "sync-twin-call", "message")


def _compiles(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<action>", "exec", dont_inherit=True)
    except SyntaxError:
        return False
    return True


# -- where a suppression goes ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("    x = f(a)", "    x = f(a)  # mmlint: ignore[MM001]"),
        ("    x = f(a)   \t", "    x = f(a)  # mmlint: ignore[MM001]"),  # trailing blanks go
        ("\tx = f(a)\f", "\tx = f(a)\f  # mmlint: ignore[MM001]"),  # a form feed is not a blank of the line's end
        ("    x = f(a)  # why", "    x = f(a)  # why  # mmlint: ignore[MM001]"),
        ("    x = f(a)  # why \\", "    x = f(a)  # why \\  # mmlint: ignore[MM001]"),  # a backslash in a comment
        ("    x = f(a)  # mmlint: ignore[MM003]", "    x = f(a)  # mmlint: ignore[MM003, MM001]"),
        # A malformed directive (an empty list) is left for MM009 to report, never edited.
        ("    x = f(a)  # mmlint: ignore[]", "    x = f(a)  # mmlint: ignore[]  # mmlint: ignore[MM001]"),
        ("    x = f(a)  # mmlint: ignore[MM003] -- why", "    x = f(a)  # mmlint: ignore[MM003, MM001] -- why"),
        ("    x = f(a)  # noqa: E501", "    x = f(a)  # noqa: E501  # mmlint: ignore[MM001]"),  # a noqa is never edited
        ("    x = 'é😀' + f(a)", "    x = 'é😀' + f(a)  # mmlint: ignore[MM001]"),
    ],
)
@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r", ""])
def test_a_suppression_goes_at_the_end_of_the_line_whatever_ends_it(line: str, expected: str, ending: str) -> None:
    text = f"async def g(self):\n{line}{ending}"
    assert suppressed_text(text, _mm001(2)) == f"async def g(self):\n{expected}{ending}"


def test_a_backslash_continuation_or_a_string_running_on_takes_no_suppression_there() -> None:
    continued = f"async def g(self):\n    x = {TWIN}(a) + \\\n        1\n"
    assert suppressed_text(continued, _mm001(2)) is None  # after the backslash, a comment is an error
    in_string = f'async def g(self):\n    x = f"""{{{TWIN}(a)}}\n    """\n'
    assert suppressed_text(in_string, _mm001(2)) is None
    assert CommentPlaces.of(in_string).suppression(_mm001(2)) is None


def test_a_multi_line_call_is_suppressed_on_its_closing_line_when_its_first_cannot_be() -> None:
    # The filter also reads the line where the flagged code ends (mmlint.check.filters).
    text = f'async def g(self):\n    {TWIN}("""\n    text""")\n    y = 1\n'
    assert suppressed_text(text, _mm001(2, 3)) == (
        f'async def g(self):\n    {TWIN}("""\n    text""")  # mmlint: ignore[MM001]\n    y = 1\n'
    )
    opened = f"async def g(self):\n    x = 1 + \\\n        {TWIN}(\n            a)\n"
    assert suppressed_text(opened, _mm001(3, 4)) == (
        f"async def g(self):\n    x = 1 + \\\n        {TWIN}(  # mmlint: ignore[MM001]\n            a)\n"
    )


def test_no_suppression_where_a_bare_ignore_is_nor_for_mm999_and_mm009() -> None:
    assert suppressed_text(f"async def g(self):\n    x = {TWIN}(a)  # mmlint: ignore\n", _mm001(2)) is None
    syntax_error = Diagnostic("a.py", Span(1, 1, 1, 1), "MM999", "syntax-error", "bad")
    assert suppressed_text("x = (\n", syntax_error) is None
    # No directive suppresses MM009 (`check` still reports `ignore[MM003, MM009]`): none is offered.
    unused = Diagnostic("a.py", Span(1, 8, 1, 31), "MM009", "unused-suppression", "unused suppression: MM003")
    assert suppressed_text("x = 1  # mmlint: ignore[MM003]\n", unused) is None


# -- every action on analysed text -----------------------------------------------------------


def _analysed(tmp_path: Path, text: str) -> tuple[Analyser, Path, DocumentResult]:
    path = tmp_path / "proc.py"
    data = text.encode("utf-8")
    path.write_bytes(data)
    analyser = Analyser(tmp_path, ServerSettings(), use_cache=False)
    return analyser, path, analyser.analyse({path: data})[path]


def _check_every_action(analyser: Analyser, path: Path, result: DocumentResult) -> None:
    """Each action's text compiles where the analysed text did; a suppression suppresses."""
    text = text_of(result.data)
    assert text is not None
    plan = ActionPlan(result, text)
    compiled = _compiles(text)
    for diagnostic in result.diagnostics:
        edits = plan.fix_edits(diagnostic)
        if edits:
            assert _compiles(apply_text_edits(text, edits)) or not compiled, diagnostic
        suppression = plan.places.suppression(diagnostic)
        if suppression is None:
            continue
        suppressed = apply_text_edits(text, [suppression])
        assert _compiles(suppressed) or not compiled, diagnostic
        after = analyser.analyse_one(path, suppressed.encode("utf-8"), {})
        start = (diagnostic.code, diagnostic.span.line, diagnostic.span.column)
        assert start not in [(d.code, d.span.line, d.span.column) for d in after.diagnostics], diagnostic
    everything = plan.fix_all(lambda data: analyser.analyse_one(path, data, {}))
    if everything is not None:
        assert _compiles(text_of(everything) or "(") or not compiled


HOSTILE = f'''\
class P(Base):
    async def run(self, out):  # the entry
        a = {TWIN}(out) + \\
            1
        b = 1 + \\
            {TWIN}(out)
        c = {TWIN}("""
        text""")  # a note
        d = f"""{{{TWIN}(out)}}
        """
        e = {TWIN}(out)  # mmlint: ignore[MM003]
        f = {TWIN}(out)  # noqa: E501
        g = 'é😀' + {TWIN}(out)\f


def sync(self, out):
\treturn {TWIN}(out)'''


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_every_action_on_hostile_lines_compiles_and_suppressions_suppress(tmp_path, ending) -> None:
    analyser, path, result = _analysed(tmp_path, HOSTILE.replace("\n", ending))
    codes = [d.code for d in result.diagnostics]
    assert codes.count("MM001") >= 7 and "MM002" in codes
    _check_every_action(analyser, path, result)


def test_a_bom_and_a_cookie_are_kept_by_every_action(tmp_path) -> None:
    for data in (
        b"\xef\xbb\xbf" + HOSTILE.encode("utf-8"),
        b"# -*- coding: latin-1 -*-\n" + HOSTILE.replace("\U0001f600", "").encode("latin-1"),
    ):
        path = tmp_path / "proc.py"
        path.write_bytes(data)
        analyser = Analyser(tmp_path, ServerSettings(), use_cache=False)
        result = analyser.analyse({path: data})[path]
        assert result.data == data and result.diagnostics
        _check_every_action(analyser, path, result)


def test_one_analysed_text_is_fixed_once_for_every_diagnostic_it_has(tmp_path, monkeypatch) -> None:
    fixed: list[bytes] = []
    original = actions.fix_file
    monkeypatch.setattr(
        actions, "fix_file", lambda file, **options: fixed.append(options["source"]) or original(file, **options)
    )
    body = "".join(f"        a{i} = {TWIN}(out)\n" for i in range(60))
    _, _, result = _analysed(tmp_path, f"class P(Base):\n    async def run(self, out):\n{body}")
    fixable = [d for d in result.diagnostics if d.fixable]
    assert len(fixable) == 60
    plan = ActionPlan(result, text_of(result.data) or "")
    sliced = [plan.fix_edits(d) for d in fixable]
    assert len(fixed) == 1  # the whole file, once; each site's edits are its share of it
    for diagnostic, edits in zip(fixable, sliced):
        assert edits is not None and apply_text_edits(plan.text, edits).encode() == actions.fix_one(result, diagnostic)


def test_a_refused_whole_fix_falls_back_to_fixing_the_site_alone(tmp_path, monkeypatch) -> None:
    _, _, result = _analysed(tmp_path, f"class P(Base):\n    async def run(self, out):\n        a = {TWIN}(out)\n")
    original = actions.fix_file
    calls: list[int] = []

    def refusing(file, **options):
        calls.append(len(file.diagnostics))
        outcome = original(file, **options)
        return outcome if len(calls) > 1 else type(outcome)(outcome.path, outcome.abs_path, error="refused")

    monkeypatch.setattr(actions, "fix_file", refusing)
    plan = ActionPlan(result, text_of(result.data) or "")
    (diagnostic,) = [d for d in result.diagnostics if d.fixable]
    (edit,) = plan.fix_edits(diagnostic) or ()
    assert apply_text_edits(plan.text, [edit]).encode() == actions.fix_one(result, diagnostic)


# -- generated modules -------------------------------------------------------------------------


@st.composite
def hostile_module(draw) -> str:
    """A generated module (test_fix_properties) with hostile shapes added:
    comments and blanks after its calls' lines, line endings, no final line break."""
    text = draw(module())
    lines = text.split("\n")
    tails = ["", "  # note", "  # mmlint: ignore[MM003]", "  # noqa: E501", " \t", "\f"]
    lines = [line + draw(st.sampled_from(tails)) if "process_and_combine" in line else line for line in lines]
    extra = draw(
        st.sampled_from(
            [
                "",
                f"\nasync def h(self):\n    x = {TWIN}(1) + \\\n        2\n",
                f'\nasync def h(self):\n    x = {TWIN}("""\n    a""")\n',
            ]
        )
    )
    text = "\n".join(lines) + extra
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n", "\r"])))
    return text.rstrip("\r\n") if draw(st.booleans()) else text


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(text=hostile_module())
def test_every_action_on_generated_modules_compiles_and_suppressions_suppress(tmp_path, text) -> None:
    analyser, path, result = _analysed(tmp_path, text)
    _check_every_action(analyser, path, result)
