"""MM004 hollow-await: reported on target files only, through the context."""

from __future__ import annotations

from pathlib import Path

from suspension_support import findings, write_project

from mmlint.api import check

FILES = {
    "pkg/__init__.py": "",
    "pkg/helpers.py": """
        async def resize(image):
            return open(image).read()

        async def uses_resize(image):
            return await resize(image)
    """,
    "pkg/proc.py": """
        from pkg.helpers import resize

        class Proc:
            async def run(self, image):
                return await resize(image)

            async def legacy(self, image):
                return await resize(image)  # mmlint: ignore[MM004]
    """,
}


def test_reported_at_the_await_on_every_target(tmp_path: Path) -> None:
    root = write_project(tmp_path, FILES)
    assert findings(root, "MM004") == [("pkg/helpers.py", 5, 12), ("pkg/proc.py", 5, 16)]


def test_a_named_file_is_checked_with_the_rest_as_context(tmp_path: Path) -> None:
    root = write_project(tmp_path, FILES)
    assert findings(root, "MM004", ["pkg/proc.py"]) == [("pkg/proc.py", 5, 16)]


def test_exempt_classes_are_not_reported(tmp_path: Path) -> None:
    root = write_project(tmp_path, FILES, 'paths = ["."]\n[exempt]\nclasses = ["Proc"]\n')
    assert findings(root, "MM004") == [("pkg/helpers.py", 5, 12)]


def test_span_runs_from_await_to_the_end_of_the_call(tmp_path: Path) -> None:
    root = write_project(tmp_path, FILES)
    (diagnostic,) = check(["pkg/helpers.py"], cwd=root, select=["MM004"]).diagnostics
    assert (diagnostic.span.line, diagnostic.span.column, diagnostic.span.end_line, diagnostic.span.end_column) == (
        5,
        12,
        5,
        31,
    )
    assert diagnostic.message == "`await` of a coroutine that never suspends"
    assert diagnostic.help.startswith(
        "`await resize(...)`: `resize` has no suspension point; make `resize` (pkg/helpers.py:1) really yield"
    )
