"""Display paths: relative to the working directory with `/` separators, as
pathlib writes them, with undecodable bytes escaped; built without a Path for
the common case, so checked here against pathlib itself."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from mmlint.check.discovery import _path_order
from mmlint.core.paths import display_path

_SEGMENTS = st.sampled_from(["a", "b", ".", "..", "", "x.py", ".hidden", "a-b", "\udcff", "é"])
_PATHS = st.lists(_SEGMENTS, min_size=1, max_size=5).map("/".join)


def _reference(path: str, cwd: str) -> str:
    base = cwd if cwd.endswith("/") else cwd + "/"
    if path == cwd:
        return "."
    shown = Path(path[len(base) :]).as_posix() if path.startswith(base) else Path(path).as_posix()
    return shown.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@given(_PATHS, st.sampled_from(["/r", "/r/", "/r/a", "/"]), st.booleans())
def test_display_path_agrees_with_pathlib(tail: str, cwd: str, under_cwd: bool) -> None:
    path = (cwd.rstrip("/") + "/" + tail) if under_cwd else "/" + tail
    assert display_path(path, cwd) == _reference(path, cwd)


# What the walk yields: absolute, normalised paths (no `.`, `..` or empty segment).
_WALKED = st.lists(st.sampled_from(["a", "b", "x.py", ".hidden", "a-b", "a.b", "\udcff", "é"]), min_size=1, max_size=5)


@given(st.lists(_WALKED.map(lambda segments: "/r/" + "/".join(segments)), max_size=8))
def test_files_are_ordered_as_pathlib_orders_them(paths: list[str]) -> None:
    assert [Path(p) for p in sorted(paths, key=_path_order)] == sorted(Path(p) for p in paths)
