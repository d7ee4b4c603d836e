"""Gitignore-style glob semantics, table-driven."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmlint.config.globs import compile_glob, matches_any

# (pattern, path, is_dir, expected)
CASES = [
    # `*` and `?` stay within one segment.
    ("*.py", "a.py", False, True),
    ("*.py", "pkg/sub/a.py", False, True),  # no "/": basename at any depth
    ("*.py", "a.pyi", False, False),
    ("a?.py", "ab.py", False, True),
    ("a?.py", "a/.py", False, False),
    ("src/*.py", "src/a.py", False, True),
    ("src/*.py", "src/sub/a.py", False, False),
    ("src/*.py", "other/src/a.py", False, False),  # a "/" anchors to the root
    ("/setup.py", "setup.py", False, True),
    ("/setup.py", "pkg/setup.py", False, False),
    ("./src/*.py", "src/a.py", False, True),
    # `**` spans any number of directories, zero included.
    ("**/tests/**", "tests/a.py", False, True),
    ("**/tests/**", "a/b/tests/c/d.py", False, True),
    ("**/tests/**", "a/b/tests.py", False, False),
    ("**/tests/**", "a/mytests/c.py", False, False),
    ("a/**/b.py", "a/b.py", False, True),
    ("a/**/b.py", "a/x/y/b.py", False, True),
    ("a/**/b.py", "x/a/b.py", False, False),
    ("a/**", "a/x/y.py", False, True),
    ("a/**", "ab/x.py", False, False),
    ("**/base_processor.py", "base_processor.py", False, True),
    ("**/base_processor.py", "srt/multimodal/processors/base_processor.py", False, True),
    ("**/legacy/*.py", "x/legacy/old.py", False, True),
    ("**/legacy/*.py", "x/legacy/deeper/old.py", False, False),
    ("**", "anything/at/all.py", False, True),
    ("a**b.py", "aXXb.py", False, True),  # `**` inside a segment is a plain `*`
    ("a**b.py", "a/b.py", False, False),
    # Character classes.
    ("[ab].py", "a.py", False, True),
    ("[ab].py", "c.py", False, False),
    ("[!ab].py", "c.py", False, True),
    ("[!ab].py", "a.py", False, False),
    ("[^ab].py", "c.py", False, True),
    ("file[0-9].py", "file7.py", False, True),
    ("file[0-9].py", "filex.py", False, False),
    ("[]]x.py", "]x.py", False, True),
    ("[.py", "[.py", False, True),  # an unclosed bracket is literal
    (r"\*.py", "*.py", False, True),  # escaped star is literal
    (r"\*.py", "a.py", False, False),
    ("a.b", "axb", False, False),  # "." is literal
    ("a+b(c).py", "a+b(c).py", False, True),  # regex metacharacters are literal
    # A matched directory excludes everything under it.
    ("build", "build/x.py", False, True),
    ("build", "src/build/x/y.py", False, True),
    ("vendor/pkg", "vendor/pkg/a.py", False, True),
    ("vendor/pkg", "vendor/pkga.py", False, False),
    # A trailing "/" matches directories only.
    ("build/", "build", False, False),
    ("build/", "build", True, True),
    ("build/", "build/x.py", False, True),
    ("build/", "deep/build/x.py", False, True),
    ("gen/out/", "gen/out/a.py", False, True),
    ("gen/out/", "x/gen/out/a.py", False, False),
    # Only slashes: matches nothing.
    ("/", "a.py", False, False),
    ("/", "a/b.py", False, False),
]


@pytest.mark.parametrize(("pattern", "path", "is_dir", "expected"), CASES)
def test_glob_semantics(pattern: str, path: str, is_dir: bool, expected: bool) -> None:
    assert compile_glob(pattern).matches(path, is_dir=is_dir) is expected


def test_leading_dot_slash_in_path_is_ignored() -> None:
    assert compile_glob("src/*.py").matches("./src/a.py")


def test_absolute_paths_match_only_unanchored_patterns() -> None:
    # Files outside the configuration root are given as absolute paths.
    assert compile_glob("*.py").matches("/elsewhere/a.py")
    assert not compile_glob("elsewhere/*.py").matches("/elsewhere/a.py")


def test_compile_is_cached() -> None:
    assert compile_glob("**/x/*.py") is compile_glob("**/x/*.py")


def test_matches_any_accepts_strings_and_compiled_patterns() -> None:
    assert matches_any("a/tests/b.py", ["*.pyi", compile_glob("**/tests/**")])
    assert not matches_any("a/b.py", ["*.pyi", "tests/"])
    assert not matches_any("a/b.py", [])
    assert matches_any("a/build", ["build/"], is_dir=True)


# -- no backtracking blow-up ----------------------------------------------------------

# A configuration is the repository's text: each of these once took exponential
# time against a long name (as a backtracking regex, pathspec's included).
ADVERSARIAL = ["*a" * 12 + "*b", "**/" + "*a" * 12 + "*b", "/".join(["**"] * 12) + "/*b", ("**/a*" * 8) + "/b"]


@pytest.mark.slow
def test_adversarial_globs_finish_fast_through_the_command_line(tmp_path):
    """Every glob key over a tree with 200-character names: a subprocess with a
    generous timeout (minutes per match, before)."""
    import subprocess
    import sys

    globs = ", ".join(f'"{pattern}"' for pattern in ADVERSARIAL)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mmlint]\n"
        f"exclude = [{globs}]\nextend-exclude = [{globs}]\n"
        f"[tool.mmlint.exempt]\npaths = [{globs}]\n"
        "[tool.mmlint.per-file-ignores]\n" + "".join(f'"{pattern}" = ["MM003"]\n' for pattern in ADVERSARIAL)
    )
    deep = tmp_path / "/".join(["a" * 60] * 3)
    deep.mkdir(parents=True)
    (deep / ("a" * 200 + ".py")).write_text(
        "class P:\n    async def f(self):\n        return self.process_and_combine_mm_data(1)\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "--no-cache", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1, result.stderr
    assert '"MM001"' in result.stdout


def _reference_regex(pattern: str) -> tuple[bool, re.Pattern[str], re.Pattern[str]]:
    """The regex translation this module used before (backtracking, but right):
    the reference the linear matcher must agree with."""
    from mmlint.config.globs import split_pattern

    body, directory_only, anchored = split_pattern(pattern)
    core = _reference_body(body) if body else "(?!)"
    prefix = "" if anchored else "(?:.*/)?"
    return (
        directory_only,
        re.compile(f"{prefix}{core}(?:/.*)?\\Z", re.DOTALL),
        re.compile(f"{prefix}{core}/.*\\Z", re.DOTALL),
    )


def _reference_body(body: str) -> str:
    from mmlint.config.globs import _translate_class

    segments = body.split("/")
    parts = []
    for index, segment in enumerate(segments):
        if segment == "**":
            parts.append(".*" if index == len(segments) - 1 else "(?:[^/]*/)*")
            continue
        out, i = [], 0
        while i < len(segment):
            char = segment[i]
            if char == "*":
                while i + 1 < len(segment) and segment[i + 1] == "*":
                    i += 1
                out.append("[^/]*")
            elif char == "?":
                out.append("[^/]")
            elif char == "\\" and i + 1 < len(segment):
                i += 1
                out.append(re.escape(segment[i]))
            elif char == "[":
                end, klass = _translate_class(segment, i)
                if klass is None:
                    out.append(re.escape(char))
                else:
                    out.append(klass)
                    i = end
            else:
                out.append(re.escape(char))
            i += 1
        parts.append("".join(out))
        if index != len(segments) - 1:
            parts.append("/")
    return "".join(parts)


_PATTERN_PIECES = ["a", "b", "*", "?", "**", "/", "[ab]", "[!a]", "\\*", ".", "./"]
_PATH_PIECES = ["a", "b", "/", "*", ".", "ab", "ba"]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_PATTERN_PIECES), min_size=1, max_size=7).map("".join),
    st.lists(st.sampled_from(_PATH_PIECES), min_size=1, max_size=8).map("".join),
    st.booleans(),
)
def test_the_linear_matcher_agrees_with_the_regex_translation(pattern: str, path: str, is_dir: bool) -> None:
    directory_only, self_or_below, strictly_below = _reference_regex(pattern)
    path = path.lstrip("/")
    while path.startswith("./"):
        path = path[2:]
    expected = (strictly_below if directory_only and not is_dir else self_or_below).match(path) is not None
    assert compile_glob(pattern).matches(path, is_dir=is_dir) == expected
