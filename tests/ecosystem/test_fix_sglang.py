"""`mmlint fix` on a copy of sglang 0.5.14's multimodal package (base_processor.py
exempt, as the upstream test does): 32 sites fixed, `check` is then free of
MM001, every changed line differs only by `await ` and `_async`, and a second
run changes nothing."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from fix_helpers import mm001

from mmlint.check.engine import run_check
from mmlint.config.load import load_settings
from mmlint.fix import fix_report

pytestmark = pytest.mark.ecosystem

SYNC = "process_and_combine_mm_data"
ASYNC = SYNC + "_async"
EXPECTED_SITES = 32


def _snapshot(tree: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in sorted(tree.rglob("*.py"))}


def _run(config_dir: Path, *, write: bool):
    settings = load_settings(config_dir)
    report = run_check(None, settings, config_dir)
    return report, fix_report(report, write=write)


def _only_await_and_suffix(old: str, new: str) -> bool:
    """``new`` is ``old`` with `await ` inserted before, and `_async` appended to,
    some occurrences of the sync twin's call (nothing else)."""
    pattern = re.escape(SYNC)
    pieces = re.split(f"({pattern})", old)
    # Each occurrence may become `await <receiver>.<twin>_async`: rebuild a
    # regex from the old line allowing exactly those insertions.
    regex = ""
    for index, piece in enumerate(pieces):
        if index % 2:
            regex += re.escape(piece) + "(?:_async)?"
        else:
            # `await ` may be inserted before any receiver expression start.
            regex += "".join(re.escape(char) + ("(?:await )?" if char in " (=[,{" else "") for char in piece)
    if not re.fullmatch("(?:await )?" + regex, new):
        return False
    return new.count("await ") - old.count("await ") == new.count(ASYNC) - old.count(ASYNC) >= 1


def test_fix_sglang_0_5_14(sglang_copy: Callable[[str], Path], tmp_path: Path) -> None:
    multimodal = sglang_copy("0.5.14")
    # The configuration sits at the copy's root: configured paths stay inside its directory.
    config_dir = multimodal.parents[2]
    (config_dir / "mmlint.toml").write_text(
        f"paths = [{json.dumps(multimodal.relative_to(config_dir).as_posix())}]\n\n[exempt]\npaths = [\"**/base_processor.py\"]\n",
        encoding="utf-8",
    )
    before = _snapshot(multimodal)

    report, run = _run(config_dir, write=True)
    assert [d for d in report.diagnostics if d.code == "MM999"] == []
    assert not run.errors, [(r.path, r.error) for r in run.errors]
    assert run.sites_fixed == EXPECTED_SITES
    # The one site left: MM010's ernie45_vl call of `resize_image`, whose async twin never suspends.
    assert [(Path(path).name, site.span.line, site.code) for path, site in run.unfixed] == [("ernie45_vl.py", 403, "MM010")]

    after = _snapshot(multimodal)
    assert after.keys() == before.keys()
    changed_files = [path for path in before if before[path] != after[path]]
    assert len(changed_files) == len(run.changed)
    for path in changed_files:
        old_lines = before[path].decode("utf-8").splitlines(keepends=True)
        new_lines = after[path].decode("utf-8").splitlines(keepends=True)
        assert len(old_lines) == len(new_lines), path
        for old, new in zip(old_lines, new_lines):
            if old != new:
                assert _only_await_and_suffix(old, new), f"{path}: {old!r} -> {new!r}"
        assert os.path.basename(path) != "base_processor.py"

    check_after, again = _run(config_dir, write=True)
    assert mm001(check_after) == []
    assert again.changed == () and _snapshot(multimodal) == after
