"""Gitignore-style glob semantics, table-driven."""

from __future__ import annotations

import pytest

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
