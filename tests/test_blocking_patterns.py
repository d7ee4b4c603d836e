"""Blocking-call patterns: the fast matcher (exact names, ``*suffix`` by
``endswith``, one regex for the rest) decides as the definition does: the
first pattern that fnmatch-matches the dotted callee, or (a wildcard
pattern) its attribute chain."""

from __future__ import annotations

from fnmatch import fnmatchcase

from hypothesis import given, settings
from hypothesis import strategies as st

from mmlint.analysis.weight import matching_pattern
from mmlint.config.settings import DEFAULT_BLOCKING_CALLS

_PIECES = ["", "*", "?", "[ab]", "[!a]", ".", "()", "a", "b", "wait", "encode", "tokenizer", "self", "<expr>", "_"]
_pieces = st.lists(st.sampled_from(_PIECES), max_size=5).map("".join)


def _by_definition(dotted: str, patterns: tuple[str, ...]) -> str | None:
    """The first pattern that matches the callee, or (a wildcard pattern) its attribute chain."""
    chain = dotted[6:] if dotted.startswith("<expr>.") else f".{dotted}"
    wildcard = [any(char in p for char in "*?[") for p in patterns]
    return next(
        (p for p, wild in zip(patterns, wildcard) if fnmatchcase(dotted, p) or (wild and fnmatchcase(chain, p))), None
    )


@settings(max_examples=400, deadline=None)
@given(patterns=st.lists(_pieces, max_size=6).map(tuple), dotted=_pieces.filter(lambda text: "*" not in text))
def test_the_fast_matcher_agrees_with_the_definition(patterns: tuple[str, ...], dotted: str) -> None:
    assert matching_pattern(dotted, patterns) == _by_definition(dotted, patterns)


@settings(max_examples=200, deadline=None)
@given(dotted=_pieces)
def test_the_defaults_agree_with_the_definition(dotted: str) -> None:
    for text in (dotted, f"<expr>.{dotted}", f"self.{dotted}.wait"):
        assert matching_pattern(text, DEFAULT_BLOCKING_CALLS) == _by_definition(text, DEFAULT_BLOCKING_CALLS)


def test_a_suffix_pattern_matches_where_its_text_ends_the_callee_or_its_chain() -> None:
    patterns = ("*event.wait", "*", "time.sleep")
    assert matching_pattern("self.stop_event.wait", patterns) == "*event.wait"
    assert matching_pattern("event.wait", patterns) == "*event.wait"
    assert matching_pattern("time.sleep", patterns) == "*"  # the first that matches wins, exact or not
    assert matching_pattern("time.sleep", ("time.sleep", "*")) == "time.sleep"
