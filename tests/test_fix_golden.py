"""Golden fix cases: fixtures/fix/<case>.py, its exact fixed bytes
<case>.fixed.py and the unified diff <case>.py.diff, plus byte-fidelity variants
(CRLF, BOM, Latin-1 cookie, tabs, trailing spaces) generated from them.

Regenerate the goldens on purpose only, after reviewing the change:

    MMLINT_REGENERATE=1 python -m pytest tests/test_fix_golden.py
"""

from __future__ import annotations

import codecs
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from fix_helpers import FIXTURES, apply_reported_edits, check_file, fix_path, mm001

from mmlint.fix import unified_diff

REGENERATE = os.environ.get("MMLINT_REGENERATE") == "1"
CASES = sorted(p.name[: -len(".py")] for p in FIXTURES.glob("*.py") if not p.name.endswith(".fixed.py"))


def _golden(case: str, suffix: str) -> Path:
    return FIXTURES / f"{case}{suffix}"


def test_every_case_has_its_goldens() -> None:
    assert len(CASES) >= 20
    for case in CASES:
        assert _golden(case, ".fixed.py").exists() or REGENERATE, case
        assert _golden(case, ".py.diff").exists() or REGENERATE, case


@pytest.mark.parametrize("case", CASES)
def test_golden_fix(case: str, tmp_path: Path) -> None:
    target = tmp_path / f"{case}.py"
    shutil.copyfile(FIXTURES / f"{case}.py", target)
    before = target.read_bytes()
    report = check_file(target)

    run = fix_path(target)
    assert not run.errors, [r.error for r in run.errors]
    after = target.read_bytes()
    diff = "".join(unified_diff(r) for r in run.changed)
    if REGENERATE:
        _golden(case, ".fixed.py").write_bytes(after)
        _golden(case, ".py.diff").write_bytes(diff.encode("utf-8"))
    assert after == _golden(case, ".fixed.py").read_bytes()
    assert diff == _golden(case, ".py.diff").read_bytes().decode("utf-8")

    # The collector's plain text edits describe the same rewrite, byte for byte.
    assert apply_reported_edits(before, report) == after
    # Every site the fixer did not rewrite is listed with a reason, and all
    # fixable sites were rewritten.
    fixed_spans = {site.span for result in run.results for site in result.fixed}
    assert fixed_spans == {d.span for d in mm001(report) if d.fixable}
    unfixed = {site.span: site.reason for _, site in run.unfixed}
    assert set(unfixed) == {d.span for d in mm001(report) if not d.fixable}
    assert all(unfixed.values())

    # Idempotent, and the fixed file has no fixable MM001 left.
    again = fix_path(target)
    assert not again.changed and target.read_bytes() == after
    assert not [d for d in mm001(check_file(target)) if d.fixable]


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def _bom(data: bytes) -> bytes:
    return codecs.BOM_UTF8 + data


def _latin1(data: bytes) -> bytes:
    header = "# -*- coding: latin-1 -*-\n# caf\u00e9 cr\u00e8me br\u00fbl\u00e9e\n"
    return (header + data.decode("utf-8")).encode("latin-1")


def _tabs(data: bytes) -> bytes:
    return re.sub(rb"(?m)^((?:    )+)", lambda m: b"\t" * (len(m.group(1)) // 4), data)


def _trailing_spaces(data: bytes) -> bytes:
    return re.sub(rb"(?m)(?<=\S)$", b"  \t", data)


VARIANTS: dict[str, Callable[[bytes], bytes]] = {
    "crlf": _crlf,
    "bom": _bom,
    "latin1": _latin1,
    "tabs": _tabs,
    "trailing_spaces": _trailing_spaces,
}


def _latin1_encodable(case: str) -> bool:
    try:
        (FIXTURES / f"{case}.py").read_text(encoding="utf-8").encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("case", CASES)
def test_byte_fidelity_variant(case: str, variant: str, tmp_path: Path) -> None:
    if variant == "latin1" and not _latin1_encodable(case):
        pytest.skip("the case holds characters Latin-1 cannot encode")
    make = VARIANTS[variant]
    source = make((FIXTURES / f"{case}.py").read_bytes())
    expected = make(_golden(case, ".fixed.py").read_bytes())
    target = tmp_path / f"{case}.py"
    target.write_bytes(source)

    run = fix_path(target)

    assert not run.errors, [r.error for r in run.errors]
    assert target.read_bytes() == expected
    assert not fix_path(target).changed


def test_variants_really_vary_the_bytes() -> None:
    sample = (FIXTURES / "async_with_block.py").read_bytes()
    for name, make in VARIANTS.items():
        assert make(sample) != sample, name
    assert b"\xe9" in _latin1(b"x = 1\n") and b"\r\n" in _crlf(sample) and b"\t" in _tabs(sample)
