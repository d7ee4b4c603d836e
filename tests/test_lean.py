"""The lean view (mmlint.facts.lean): libcst parses a file with most sync
bodies replaced by `pass`, the light tier fills every field but the call
sites and the async defs, and the outcome is the one the whole file's parse
gives. Over the fixtures and tests here; over real packages in
tests/ecosystem/test_lean_packages.py."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mmlint.check import per_file
from mmlint.check.per_file import analyse_file
from mmlint.config.settings import DEFAULT_TWINS
from mmlint.core.source import decode_source
from mmlint.facts.anchors import python_tree_of, statement_anchors
from mmlint.facts import lean
from mmlint.facts.lean import LeanView, lean_view
from mmlint.facts.model import FileFacts
from mmlint.facts.outcome import Parsed

REPO = Path(__file__).resolve().parent.parent
FILLED_BY_LIGHT = tuple(f.name for f in dataclasses.fields(FileFacts) if f.name not in ("call_sites", "async_defs"))

SERVICE = """\
import asyncio
from .pool import run


class Processor:
    def prepare(self, items):
        total = 0
        for item in items:
            total += self.weigh(item)
        return total

    def weigh(self, item):
        value = item.size
        return value * 2

    def combine(self, data):
        parts = [data]
        return self.process_and_combine_mm_data(parts)

    async def process(self, request):
        await asyncio.sleep(0)
        return self.prepare(request.items)

    class Inner:
        def deep(self):
            first = 1
            return first


def helper(x):
    y = x + 1
    return y


def importing():
    import json
    return json


def scheduling():
    global STATE
    STATE = 1


def same_line(): return 1


def continued(): \\
    return 2
"""


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _view(text: str):
    tree = python_tree_of(text)
    assert tree is not None
    return lean_view(text, tree, DEFAULT_TWINS)


def test_only_bodies_libcst_does_not_need_are_blanked_each_line_kept() -> None:
    view = _view(SERVICE)
    assert view is not None
    before, after = _lines(SERVICE), _lines(view.text)
    assert len(after) == len(before)
    changed = [number for number, (old, new) in enumerate(zip(before, after), start=1) if old != new]
    # prepare, weigh, Inner.deep and helper: a `pass` where each body started, then empty lines.
    assert changed == [7, 8, 9, 10, 13, 14, 26, 27, 31, 32]
    assert after[6] == "        pass\n" and after[7] == "\n"
    assert after[25] == "            pass\n" and after[30] == "    pass\n"
    # Kept: a twin's name, an await, an import, a global, a body on the def's
    # line, a body after a backslash.
    for kept in (
        "process_and_combine_mm_data(parts)",
        "await asyncio.sleep(0)",
        "import json",
        "global STATE",
        "def same_line(): return 1",
        "    return 2",
    ):
        assert any(kept in line for line in after), kept


_COMMENTED = """\
# -*- coding: utf-8 -*-
# the second line stays too
import asyncio
# between statements: emptied


@decorate(
    # in the decorator's brackets: kept
    1,
)
async def handle(
    # in the header: kept
    request,
):
    # before the first statement of the body: kept (the header runs to it)
    text = \"\"\"
# in a string: kept
\"\"\"
    # between two statements of the body: emptied
    await asyncio.sleep(0)
    try:
        pass
    except (
        # in an except clause's header: kept
        ValueError,
    ):
        pass
    # emptied
# emptied at the end
"""


def test_comment_lines_between_statements_are_emptied_for_libcst(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lean, "MIN_BLANKED_SHARE", 0.0)
    text = _COMMENTED + "def f():\n    a = 1\n    b = 2\n"
    view = _view(text)
    assert view is not None
    kept = [line for line in view.text.splitlines() if line.lstrip().startswith("#")]
    assert [line.strip() for line in kept] == [
        "# -*- coding: utf-8 -*-",
        "# the second line stays too",
        "# in the decorator's brackets: kept",
        "# in the header: kept",
        "# before the first statement of the body: kept (the header runs to it)",
        "# in a string: kept",
        "# in an except clause's header: kept",
    ]
    assert len(view.text.splitlines()) == len(text.splitlines())  # every line where it was
    path = tmp_path / "commented.py"
    path.write_text(text, encoding="utf-8")
    assert compare_lean(monkeypatch, [path]) == (1, [])  # the facts of the whole file's parse


def test_its_anchors_are_cpythons_of_the_lean_text() -> None:
    view = _view(SERVICE)
    assert view is not None
    assert view.anchors == statement_anchors(view.text)
    assert view.blanked_lines == 10


def test_line_endings_are_kept_line_by_line() -> None:
    text = "def f(x):\r\n    y = x\r\n    z = y\r    return z\n\ndef g():\n    return 1\n"
    view = _view(text)
    assert view is not None
    # The lone CR's line and the LF line after it stay two lines (a blank between).
    assert view.text == "def f(x):\r\n    pass\r\n\r \n\ndef g():\n    return 1\n"
    assert len(view.text.splitlines()) == len(text.splitlines())
    assert view.anchors == statement_anchors(view.text)


def test_a_file_with_little_to_blank_is_parsed_whole() -> None:
    text = "async def main():\n    await run()\n" * 20 + "def f():\n    a = 1\n    return a\n"
    assert _view(text) is None


def test_a_twin_spelt_with_compatibility_characters_keeps_its_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python reads `ｐrocess_and_combine_mm_data` (a fullwidth p) as the twin's
    name, and so do the facts: the body holding it is a call site's, never blanked."""
    text = (
        "def f(self, parts):\n    x = parts\n    return self.\uff50rocess_and_combine_mm_data(x)\n\n"
        "def g():\n    a = 1\n    return a\n\n\nasync def h():\n    await g()\n"
    )
    view = _view(text)
    assert view is not None
    assert "x = parts" in view.text and "a = 1" not in view.text
    path = tmp_path / "spelt.py"
    path.write_text(text, "utf-8")
    assert compare_lean(monkeypatch, [path]) == (1, [])
    outcome = analyse_file(path.read_bytes(), path, path.as_posix(), DEFAULT_TWINS)
    assert isinstance(outcome, Parsed) and len(outcome.facts.call_sites) == 1


def test_configured_twins_keep_their_callers_bodies() -> None:
    text = "def f(self):\n    x = 1\n    return self.decode_frames(x)\n\ndef g():\n    a = 1\n    return a\n"
    tree = python_tree_of(text)
    assert tree is not None
    from mmlint.core.twins import TwinPair

    view = lean_view(text, tree, (TwinPair("decode_frames", "decode_frames_async"),))
    assert view is not None
    assert "decode_frames(x)" in view.text and "a = 1" not in view.text


def _fixtures() -> list[Path]:
    return sorted((REPO / "fixtures").rglob("*.py"))


def _test_modules() -> list[Path]:
    return sorted((REPO / "tests").glob("*.py"))


def _outcome_without_lean(monkeypatch: pytest.MonkeyPatch, data: bytes, path: Path) -> object:
    with monkeypatch.context() as patched:
        patched.setattr(per_file, "lean_view", lambda *args: None)
        return analyse_file(data, path, path.as_posix(), DEFAULT_TWINS)


def _recording(taken: list[LeanView | None]) -> Callable[..., LeanView | None]:
    """lean_view, each answer also appended to ``taken``."""

    def recorded(*args: Any) -> LeanView | None:
        taken.append(lean_view(*args))
        return taken[-1]

    return recorded


def compare_lean(monkeypatch: pytest.MonkeyPatch, paths: list[Path]) -> tuple[int, list[str]]:
    """(how many files took the lean view, the files whose outcome differs
    from the whole parse's); a file without one is not analysed twice."""
    used = 0
    problems = []
    for path in paths:
        data = path.read_bytes()
        taken: list[LeanView | None] = []
        with monkeypatch.context() as patched:
            patched.setattr(per_file, "lean_view", _recording(taken))
            outcome = analyse_file(data, path, path.as_posix(), DEFAULT_TWINS)
        if not any(view is not None for view in taken):
            continue
        used += 1
        if outcome != _outcome_without_lean(monkeypatch, data, path):
            problems.append(path.as_posix())
    return used, problems


FIXTURE_PACKAGES = sorted(path.name for path in (REPO / "fixtures").iterdir() if path.is_dir())


@pytest.mark.parametrize("package", FIXTURE_PACKAGES)
def test_every_fixture_has_the_outcome_of_its_whole_parse(package: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every fixture with one body to blank takes the view here, however little it saves.
    monkeypatch.setattr(lean, "MIN_BLANKED_SHARE", 0.0)
    used, problems = compare_lean(monkeypatch, sorted((REPO / "fixtures" / package).rglob("*.py")))
    assert problems == [], f"{used} files took the lean view"


def test_the_fixture_comparison_is_not_vacuous(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the threshold at zero, nearly every fixture takes the light
    tier's path, and a fair number have bodies blanked (counted here, so that
    the comparison above cannot pass by comparing nothing)."""
    monkeypatch.setattr(lean, "MIN_BLANKED_SHARE", 0.0)
    views = []
    for path in _fixtures():
        text = decode_source(path.read_bytes())
        tree = python_tree_of(text)
        views.append(None if tree is None else lean_view(text, tree, DEFAULT_TWINS))
    assert sum(view is not None for view in views) >= 100
    assert sum(view is not None and view.blanked_lines > 0 for view in views) >= 20


@pytest.mark.slow
def test_every_test_module_has_the_outcome_of_its_whole_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    used, problems = compare_lean(monkeypatch, _test_modules())
    assert problems == []
    assert used >= 50  # not vacuous: most of these files take the lean view


def test_the_service_sample_agrees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "service.py"
    path.write_text(SERVICE)
    used, problems = compare_lean(monkeypatch, [path])
    assert (used, problems) == (1, [])
    outcome = analyse_file(path.read_bytes(), path, path.as_posix(), DEFAULT_TWINS)
    assert isinstance(outcome, Parsed)
    # Blanked for libcst, read by the light tier from the original text:
    prepare = next(sync for sync in outcome.facts.sync_defs if sync.name == "prepare")
    assert prepare.has_loop and [call.callee.text for call in prepare.calls] == ["weigh"]
    assert [info.name for info in outcome.facts.async_defs] == ["process"]


def test_a_file_cpython_refuses_takes_no_lean_view(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "odd.py"
    path.write_text("async def main():\n    await run()\n\ndef f(\n")
    taken: list[LeanView | None] = []
    monkeypatch.setattr(per_file, "lean_view", _recording(taken))
    outcome = analyse_file(path.read_bytes(), path, path.as_posix(), DEFAULT_TWINS)
    assert not isinstance(outcome, Parsed) and taken == []  # no tree, so no view asked for


def test_a_lean_view_libcst_rejects_falls_back_to_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What libcst says of a file is said of all of it: a view it cannot read
    (none should be) costs a second parse, never the file's facts."""
    path = tmp_path / "service.py"
    path.write_text(SERVICE)
    whole = _outcome_without_lean(monkeypatch, path.read_bytes(), path)
    monkeypatch.setattr(per_file, "lean_view", lambda *args: LeanView("def (:\n", [], 1))
    assert analyse_file(path.read_bytes(), path, path.as_posix(), DEFAULT_TWINS) == whole
    assert isinstance(whole, Parsed) and whole.facts.async_defs


def test_the_lean_parse_is_the_cheaper_one() -> None:
    """Its reason to exist, checked by size, not by time: the lean view's
    libcst tree has fewer nodes (here a sixth fewer: small bodies; a real
    processor's has about two fifths fewer, benchmarks/scan.py)."""
    import libcst as cst

    def nodes(text: str) -> int:
        count = 0
        stack: list[cst.CSTNode] = [cst.parse_module(text)]
        while stack:
            node = stack.pop()
            count += 1
            stack.extend(node.children)
        return count

    view = _view(SERVICE)
    assert view is not None
    assert nodes(view.text) < 0.9 * nodes(SERVICE)
    assert isinstance(ast.parse(view.text), ast.Module)
