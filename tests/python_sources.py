"""Generated Python modules for the no-crash properties, built when first drawn.

hypothesmith builds an LALR parser of Python's whole grammar for its
strategy: several seconds, paid at import if the strategy is built in a
decorator. Deferred, only a run that draws from it pays (the fuzz tests are
marked slow, so the fast loop never does), and at most once a process.
"""

from __future__ import annotations

from functools import cache

from hypothesis import strategies as st


@cache
def _from_grammar() -> st.SearchStrategy[str]:
    import hypothesmith

    return hypothesmith.from_grammar(auto_target=False)


@cache
def _from_node() -> st.SearchStrategy[str]:
    import hypothesmith

    return hypothesmith.from_node(auto_target=False)


def python_modules_from_nodes() -> st.SearchStrategy[str]:
    """Source text of modules built from libcst nodes (hypothesmith imports
    in about a second, building node strategies: paid when first drawn)."""
    return st.deferred(lambda: _from_node())


def python_modules() -> st.SearchStrategy[str]:
    """Source text of modules Python's grammar accepts."""
    return st.deferred(lambda: _from_grammar())  # deferred() takes a plain function, not a cached one
