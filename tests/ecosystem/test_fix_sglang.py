"""`mmlint fix` on real sglang releases (base_processor.py exempt, as the
upstream test does).

0.5.14's base class has no async twin: fix writes nothing there (a rewrite
would raise AttributeError at the first request). 0.5.23 with its migration
undone (every `await self.X_async(` back to `self.X(`) is the shape fix was
made for: fix turns it back into the released bytes, every changed line
differing only by `await ` and `_async`, and a second run changes nothing."""

from __future__ import annotations

import json
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
# Calls of the async twin in 0.5.23's processors: the sites an undone migration gives back.
MIGRATED_SITES = 40


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


def _write_config(config_dir: Path, multimodal: Path) -> None:
    # The configuration sits at the copy's root: configured paths stay inside its directory.
    (config_dir / "mmlint.toml").write_text(
        f'paths = [{json.dumps(multimodal.relative_to(config_dir).as_posix())}]\n\n[exempt]\npaths = ["**/base_processor.py"]\n',
        encoding="utf-8",
    )


def test_fix_writes_nothing_on_0_5_14(sglang_copy: Callable[[str], Path]) -> None:
    multimodal = sglang_copy("0.5.14")
    config_dir = multimodal.parents[2]
    _write_config(config_dir, multimodal)
    before = _snapshot(multimodal)

    report, run = _run(config_dir, write=True)
    assert [d for d in report.diagnostics if d.code in ("MM001", "MM013", "MM999")] == []
    assert not run.errors, [(r.path, r.error) for r in run.errors]
    assert run.sites_fixed == 0 and run.changed == ()
    # The one site left: MM010's ernie45_vl call of `resize_image`, whose async twin never suspends.
    assert [(Path(path).name, site.span.line, site.code) for path, site in run.unfixed] == [
        ("ernie45_vl.py", 403, "MM010")
    ]
    assert _snapshot(multimodal) == before


def test_fix_undoes_an_undone_migration_of_0_5_23_byte_for_byte(sglang_copy: Callable[[str], Path]) -> None:
    multimodal = sglang_copy("0.5.23")
    config_dir = multimodal.parents[2]
    _write_config(config_dir, multimodal)
    released = _snapshot(multimodal)
    undone = 0
    for path, data in released.items():
        if path.name == "base_processor.py":
            continue
        text = data.decode("utf-8")
        count = text.count(f"await self.{ASYNC}(")
        if count:
            path.write_bytes(text.replace(f"await self.{ASYNC}(", f"self.{SYNC}(").encode("utf-8"))
            undone += count
    assert undone == MIGRATED_SITES
    before = _snapshot(multimodal)

    report, run = _run(config_dir, write=True)
    assert [d for d in report.diagnostics if d.code in ("MM013", "MM999")] == []
    assert len(mm001(report)) == MIGRATED_SITES
    assert not run.errors, [(r.path, r.error) for r in run.errors]
    assert run.sites_fixed == MIGRATED_SITES

    after = _snapshot(multimodal)
    assert after == released
    for path in (path for path in before if before[path] != after[path]):
        old_lines = before[path].decode("utf-8").splitlines(keepends=True)
        new_lines = after[path].decode("utf-8").splitlines(keepends=True)
        assert len(old_lines) == len(new_lines), path
        for old, new in zip(old_lines, new_lines):
            if old != new:
                assert _only_await_and_suffix(old, new), f"{path}: {old!r} -> {new!r}"

    check_after, again = _run(config_dir, write=True)
    assert mm001(check_after) == [] and [d for d in check_after.diagnostics if d.code == "MM013"] == []
    assert again.changed == () and _snapshot(multimodal) == after
