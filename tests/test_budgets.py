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
        words in message for words in ("too many nested parentheses", "nested too deeply", "max-nesting-depth = 1,000")
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


@pytest.mark.parametrize(
    ("key", "value"), [("max-file-size", "0"), ("max-nesting-depth", "true"), ("max-file-size", '"8MB"')]
)
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
    assert not mm001[0].fixable and "does not round-trip" in mm001[0].help


# -- cost budgets: estimated before the parse, enforced in the worker (issues 17.11 and 23.3) -----

import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

from cli_support import CliRunner  # noqa: E402

from mmlint.check.cost import estimate  # noqa: E402
from mmlint.cli import cli  # noqa: E402

FINDING = "class P:\n    async def f(self, a):\n        return self.process_and_combine_mm_data(a)\n"
# About 3,000 tokens on one statement: a data table.
TABLE = "async def table():\n    return [" + ", ".join(f"({i}, 'v{i}')" for i in range(600)) + "]\n"


def _cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str, *args: str, stdin: bytes | None = None):
    (tmp_path / "mmlint.toml").write_text(config, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    return CliRunner().invoke(cli, ["check", "--format", "json", *args], input=stdin, catch_exceptions=False)


def _by_file(result) -> dict[str, list[tuple[str, str]]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for d in json.loads(result.stdout)["diagnostics"]:
        found.setdefault(d["path"], []).append((d["code"], d["message"]))
    return found


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ("max-file-memory = 20\n", "over the memory budget (max-file-memory = 20 MiB)"),
        ("max-file-seconds = 1\nmax-file-memory = 4096\n", "over the time budget (max-file-seconds = 1)"),
    ],
)
def test_a_file_estimated_over_its_cost_budget_is_mm999_and_the_others_are_checked(
    tmp_path, monkeypatch, config, words
):
    cost = estimate(TABLE.encode() * 8)
    assert cost.memory_mib > 20 and cost.seconds > 1  # the case is real: the estimate is past both budgets
    (tmp_path / "table.py").write_text(TABLE * 8, encoding="utf-8")
    (tmp_path / "p.py").write_text(FINDING, encoding="utf-8")
    result = _cli(tmp_path, monkeypatch, config, ".")
    found = _by_file(result)
    ((code, message),) = found["table.py"]
    assert code == "MM999" and message.startswith("not analysed: estimated to ") and message.endswith(words), message
    assert {code for code, _ in found["p.py"]} == {"MM001", "MM003"}


@pytest.mark.slow
def test_the_default_budgets_analyse_the_same_table(tmp_path, monkeypatch):
    (tmp_path / "table.py").write_text(TABLE * 8, encoding="utf-8")
    assert _by_file(_cli(tmp_path, monkeypatch, "", ".")).get("table.py", []) == []


@pytest.mark.parametrize(
    ("shape", "deeper"),
    [
        ("x = f(" + ", ".join(["a"] * 2000) + ")\n", "x = f(" + ", ".join(["a"] * 8000) + ")\n"),  # tokens
        ("x = " + "[" * 50 + "]" * 50 + "\n", "x = " + "[" * 100 + "]" * 100 + "\n"),  # depth, squared
    ],
)
def test_the_estimate_grows_with_tokens_and_with_the_square_of_the_depth(shape, deeper):
    small, large = estimate(shape.encode()), estimate(deeper.encode())
    assert large.memory_mib - 16 >= 3.5 * (small.memory_mib - 16) and large.seconds >= 3.5 * small.seconds


def test_an_unbalanced_bracket_in_a_string_costs_only_its_own_statement():
    body = "".join(f"def f{i}(a):\n    return g(a, [1, 2], {{3: 4}})\n" for i in range(2000))
    drifting = "s = '(((((('\n" + body
    assert estimate(drifting.encode()).depth_sum <= estimate(body.encode()).depth_sum + 100


@pytest.mark.parametrize(
    ("key", "value"), [("max-file-memory", "0"), ("max-file-seconds", "1.5"), ("max-file-memory", '"1GiB"')]
)
def test_cost_budget_values_are_validated(tmp_path: Path, key: str, value: str) -> None:
    test_budget_values_are_validated(tmp_path, key, value)


# -- the size budget holds before the read ----------------------------------------------------------

# Runs the CLI in this interpreter, then prints the process's own peak RSS (KiB):
# VmHWM, which belongs to the memory the process has since its exec. (Linux keeps
# ru_maxrss across exec, so a child of a large pytest process would report the
# parent's size at the fork.)
_PEAK_PROBE = """
import re, sys
from mmlint.cli import main
sys.argv = ["mmlint", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    code = exit.code
with open("/proc/self/status") as status:
    peak = re.search(r"^VmHWM:\\s+(\\d+) kB", status.read(), re.M).group(1)
print(peak, code, file=sys.stderr)
"""


def _probe(tmp_path: Path, args: list[str], stdin=None) -> tuple[int, int, str]:
    env = {**os.environ, "MMLINT_NO_CACHE": "1", "PWD": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", _PEAK_PROBE, *args], cwd=tmp_path, env=env, stdin=stdin, capture_output=True, timeout=120
    )
    peak, code = result.stderr.decode().split()[-2:]
    return int(peak) // 1024, int(code), result.stdout.decode()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/status VmHWM, sparse files")
@pytest.mark.slow
def test_a_file_over_the_size_budget_is_refused_without_being_read(tmp_path):
    (tmp_path / "mmlint.toml").write_text("", encoding="utf-8")
    big = tmp_path / "huge.py"
    with open(big, "wb") as file:  # a sparse GiB: it costs no disk, but reading it would cost a GiB of memory
        file.truncate(1024**3)
    peak_mib, code, stdout = _probe(tmp_path, ["check", "--format", "json", "huge.py"])
    ((diagnostic,),) = [json.loads(stdout)["diagnostics"]]
    assert code == 1 and diagnostic["message"] == (
        "not analysed: 1,073,741,824 bytes, over the size budget (max-file-size = 8,388,608)"
    )
    assert peak_mib < 300, f"{peak_mib} MiB: the file was read"
    # Standard input is read no further than one byte past the budget.
    with open(big, "rb") as stdin:
        peak_mib, code, stdout = _probe(tmp_path, ["check", "--format", "json", "-"], stdin=stdin)
    ((diagnostic,),) = [json.loads(stdout)["diagnostics"]]
    assert code == 1 and diagnostic["message"] == (
        "not analysed: more than 8,388,608 bytes, over the size budget (max-file-size = 8,388,608)"
    )
    assert peak_mib < 300, f"{peak_mib} MiB: standard input was read whole"


def test_a_file_over_the_size_budget_is_not_read_past_its_size(tmp_path, monkeypatch):
    """In process: the size is taken before the read, and no read asks for the file's bytes."""
    import builtins

    (tmp_path / "big.py").write_text(FINDING + "x = 1\n" * 400, encoding="utf-8")
    (tmp_path / "p.py").write_text(FINDING, encoding="utf-8")
    opened: list[str] = []
    real_open = builtins.open

    def watching_open(file, mode="r", *args, **kwargs):
        if str(file).endswith("big.py") and "b" in mode:
            handle = real_open(file, mode, *args, **kwargs)
            opened.append("opened")
            read = handle.read
            handle.read = lambda size=-1: opened.append(f"read {size}") or read(size)  # type: ignore[method-assign]
            return handle
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", watching_open)
    read_bytes = Path.read_bytes
    monkeypatch.setattr(
        Path, "read_bytes", lambda self: pytest.fail("read whole") if self.name == "big.py" else read_bytes(self)
    )
    found = _by_file(_cli(tmp_path, monkeypatch, "max-file-size = 1000\n", "."))
    assert found["big.py"] == [
        ("MM999", f"not analysed: {len(FINDING) + 2400:,} bytes, over the size budget (max-file-size = 1,000)")
    ]
    assert {code for code, _ in found["p.py"]} == {"MM001", "MM003"}
    assert opened and not [event for event in opened if event.startswith("read")]


def test_standard_input_over_the_size_budget_is_refused(tmp_path, monkeypatch):
    source = (FINDING + "x = 1\n" * 400).encode()
    result = _cli(tmp_path, monkeypatch, "max-file-size = 1000\n", "-", stdin=source)
    assert _by_file(result) == {
        "-": [("MM999", "not analysed: more than 1,000 bytes, over the size budget (max-file-size = 1,000)")]
    }


def test_fix_passes_standard_input_over_the_budget_through_unchanged(tmp_path, monkeypatch):
    source = (FINDING + "x = 1\n" * 400).encode()
    (tmp_path / "mmlint.toml").write_text("max-file-size = 1000\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    result = CliRunner().invoke(cli, ["fix", "--no-cache", "-"], input=source, catch_exceptions=False)
    assert result.stdout_bytes == source
    assert "over the size budget (max-file-size = 1,000)" in result.stderr


@pytest.mark.parametrize(
    ("shape", "why"),
    [
        # One call of 500,000 arguments, 1 MB: libcst takes about 36 s and 2.9 GiB for it.
        ("x = f(" + "1," * 500_000 + ")\n", "tokens), over the memory budget (max-file-memory = 1,024 MiB)"),
        # Fifty lines each nesting 150 lists, 23 KB: about 1 GiB, the square of the depth.
        ("".join(f"x{i} = " + "[" * 150 + "]" * 150 + "\n" for i in range(50)), "over the memory budget"),
    ],
    ids=["a megabyte-long call", "nested lists"],
)
def test_costly_shapes_are_refused_under_the_default_budgets_before_the_parse(tmp_path, monkeypatch, shape, why):
    import libcst

    monkeypatch.setattr(libcst, "parse_module", lambda *args, **kwargs: pytest.fail("parsed"))
    monkeypatch.setenv("MMLINT_JOBS", "1")  # in this process, where the stand-in parser is
    (tmp_path / "shape.py").write_text("async def f():\n    return 1\n" + shape, encoding="utf-8")
    ((code, message),) = _by_file(_cli(tmp_path, monkeypatch, "", "shape.py"))["shape.py"]
    assert code == "MM999" and message.startswith("not analysed: estimated to need ") and why in message, message


def test_a_file_is_read_asking_for_its_size_not_the_budget(tmp_path, monkeypatch):
    """A buffered read allocates all it is asked for: asking for the budget
    (8 MiB) per file left tens of MiB of the heap in pieces on a large scan."""
    import builtins

    from mmlint.check import reading
    from mmlint.config.settings import Budgets

    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n" * 100)
    asked: list[int] = []
    real_open = builtins.open

    def watching_open(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        read = handle.read
        handle.read = lambda size=-1: asked.append(size) or read(size)  # type: ignore[method-assign]
        return handle

    monkeypatch.setattr(builtins, "open", watching_open)
    assert reading._read_within(path, Budgets()) == b"x = 1\n" * 100
    assert asked == [601]


@pytest.mark.parametrize(("length", "refused"), [(900, False), (1000, False), (1001, True)])
def test_a_file_that_grew_since_its_size_was_taken_is_read_to_the_budget(tmp_path, monkeypatch, length, refused):
    """The size is stale (the file grew, or it is no regular file): the read
    goes on to one byte past the budget, as for a file of unknown size."""
    from mmlint.check import reading
    from mmlint.config.settings import Budgets

    path = tmp_path / "m.py"
    path.write_bytes(b"#" * length)
    real_fstat = os.fstat
    monkeypatch.setattr(reading.os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 10, *real_fstat(fd)[7:])))
    budgets = Budgets(max_file_size=1000)
    if refused:
        with pytest.raises(reading._OverSizeBudget, match="more than 1,000 bytes"):
            reading._read_within(path, budgets)
    else:
        assert reading._read_within(path, budgets) == b"#" * length
