"""Per-file budgets and Python's own verdict: hostile or generated files end in
one MM999 diagnostic that names the cause, quickly, instead of taking the run's
time and memory (libcst's cost grows with the square of the nesting depth)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmlint.api import check

TWIN = "self.process_and_combine_mm_data(a)"

DEEP_FORMS = {
    "parentheses": "async def f(self, a):\n    return " + "(" * 10_000 + TWIN + ")" * 10_000 + "\n",
    "lists": "async def f(self, a):\n    return " + "[" * 10_000 + "]" * 10_000 + "\n",
    "calls": "async def f(self, a):\n    return " + "g(" * 10_000 + ")" * 10_000 + "\n",
    "lambdas": "async def f(self, a):\n    return " + "lambda: " * 10_000 + "1\n",
    "not": "async def f(self, a):\n    return " + "not " * 10_000 + "a\n",
    "plus-chain": "async def f(self, a):\n    return " + " + ".join(["a"] * 30_000) + "\n",
    "continued-plus-chain": "async def f(self, a):\n    return a" + " + \\\n        a" * 3_000 + "\n",
}


def _mm999(tmp_path: Path, source: str, config: str = "") -> list[str]:
    (tmp_path / "mmlint.toml").write_text(config, encoding="utf-8")
    (tmp_path / "m.py").write_text(source, encoding="utf-8")
    report = check(["m.py"], cwd=tmp_path)
    return [d.message for d in report.diagnostics if d.code == "MM999"]


@pytest.mark.parametrize("form", sorted(DEEP_FORMS))
def test_ten_thousand_deep_forms_end_in_one_diagnostic(tmp_path: Path, form: str) -> None:
    (message,) = _mm999(tmp_path, DEEP_FORMS[form])
    assert any(
        words in message
        for words in ("too many nested parentheses", "nested too deeply", "max-nesting-depth = 1,000")
    ), message


def test_nesting_budget_is_configurable(tmp_path: Path) -> None:
    source = "async def f(self, a):\n    return " + " + ".join(["a"] * 300) + "\n"
    assert _mm999(tmp_path, source) == []  # within the default budget: analysed
    (message,) = _mm999(tmp_path, source * 8, config="max-nesting-depth = 100\n")
    assert message.startswith("not analysed: syntax tree nested more than 100 levels deep")


def test_size_budget_names_the_budget_and_the_size(tmp_path: Path) -> None:
    source = "async def f(self, a):\n    return " + TWIN + "\n" + "x = 1\n" * 200
    (message,) = _mm999(tmp_path, source, config="max-file-size = 1000\n")
    assert message == f"not analysed: {len(source):,} bytes, over the size budget (max-file-size = 1,000)"


def test_a_file_python_cannot_compile_gets_pythons_message(tmp_path: Path) -> None:
    (message,) = _mm999(tmp_path, "async def f(self, a):\n    return (" * 60 + "\n")
    assert message.startswith("could not parse: ")


@pytest.mark.parametrize(("key", "value"), [("max-file-size", "0"), ("max-nesting-depth", "true"), ("max-file-size", '"8MB"')])
def test_budget_values_are_validated(tmp_path: Path, key: str, value: str) -> None:
    from mmlint.config.load import ConfigError

    (tmp_path / "mmlint.toml").write_text(f"{key} = {value}\n", encoding="utf-8")
    (tmp_path / "m.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=key):
        check(["m.py"], cwd=tmp_path)


def test_utf7_file_cannot_slip_past_the_prefilter(tmp_path: Path) -> None:
    # `+AGE-` is "a" and `+AF8-` is "_" in UTF-7: the bytes hold neither `async def` nor the twin's name.
    source = (
        b"# -*- coding: utf-7 -*-\nclass P:\n    +AGE-sync def f(self, a):\n"
        b"        return self.process+AF8-and+AF8-combine+AF8-mm+AF8-data(a)\n"
    )
    (tmp_path / "mmlint.toml").write_text("", encoding="utf-8")
    (tmp_path / "m.py").write_bytes(source)
    report = check(["m.py"], cwd=tmp_path)
    mm001 = [d for d in report.diagnostics if d.code == "MM001"]
    assert len(mm001) == 1
    # Decoding and encoding back changes those bytes: `check` says so instead of a `[*]` that `fix` refuses.
    assert not mm001[0].fixable and "does not round-trip" in mm001[0].message
