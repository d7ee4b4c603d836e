"""One glob semantics, and why it is ours: exclude, extend-exclude,
per-file-ignores, exempt.paths and .gitignore all match through
mmlint.config.globs, which agrees with pathspec's gitignore matching on
generated cases except one documented difference (README, Configuration),
while matching in time bounded by the product of the lengths (pathspec
translates to a backtracking regular expression)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pathspec
import pytest

from mmlint.config.globs import matches_any

PACKAGE = Path(__file__).resolve().parent.parent / "mmlint"
SEGMENTS = ["a", "b", "ab", "*", "?", "**", "[ab]", "[!a]", "a*", "*b", "a?"]
NAMES = ["a", "b", "ab", "ba", "aa", "abb"]


def _cases(count: int, seed: int = 20):
    rng = random.Random(seed)
    for _ in range(count):
        pattern = "/".join(rng.choice(SEGMENTS) for _ in range(rng.randint(1, 3)))
        if rng.random() < 0.2:
            pattern = "/" + pattern
        if rng.random() < 0.2:
            pattern += "/"
        path = "/".join(rng.choice(NAMES) for _ in range(rng.randint(1, 4)))
        yield pattern, path, rng.random() < 0.3


@pytest.mark.slow
def test_globs_agree_with_pathspec_but_for_the_directory_a_trailing_double_star_names() -> None:
    cases = differ = 0
    for pattern, path, is_dir in _cases(12000):
        ours = matches_any(path, [pattern], is_dir=is_dir)
        theirs = pathspec.GitIgnoreSpec.from_lines([pattern]).match_file(path + ("/" if is_dir else ""))
        cases += 1
        if ours == theirs:
            continue
        differ += 1
        # The one difference: for `x/**` (and `x/**/`) pathspec also matches the
        # directory `x` itself (so, with `x/**/`, the files directly in it); ours, as
        # git does ("abc/**" matches everything inside "abc"), only what lies inside.
        assert pattern.rstrip("/").endswith("**") and theirs and not ours, (pattern, path, is_dir)
        assert matches_any(path + "/x", [pattern], is_dir=True), (pattern, path, is_dir)
    assert differ / cases < 0.01, (differ, cases)


def test_every_path_glob_goes_through_config_globs() -> None:
    """No other module matches paths itself: the discovery walk (exclude), the
    filters (per-file-ignores, exempt.paths) and .gitignore import globs.py, and
    nothing imports pathspec or matches paths with fnmatch."""
    importers = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            module = node.module if isinstance(node, ast.ImportFrom) else None
            assert "pathspec" not in names and module != "pathspec", path
            if module == "mmlint.config.globs":
                importers.add(path.relative_to(PACKAGE).as_posix())
            if "fnmatch" in names or module == "fnmatch":
                # Call patterns of the knowledge sets (`*.get_frames`), not paths.
                assert path.relative_to(PACKAGE).as_posix() == "analysis/weight.py", path
    assert {"check/discovery.py", "check/filters.py", "check/gitignore.py", "config/load.py"} <= importers
