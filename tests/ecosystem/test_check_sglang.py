"""`mmlint check` over real sglang releases, against an independent stdlib-`ast` scan.

0.5.14 is the release whose processors call the sync twin directly (32 calls in
30 files by our count) and whose base class has no async twin yet: nothing
there is MM001, since there is nothing to rewrite to. In 0.5.23 every
processor awaits the async twin and the only sync call left is the base
class's own delegation.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from expectations import is_delegation, scan_twin_calls

from mmlint.api import check
from mmlint.audit import build_audit

pytestmark = pytest.mark.ecosystem

TWINS = [("process_and_combine_mm_data", "process_and_combine_mm_data_async")]
BASE_PROCESSOR = "base_processor.py"


def _release_root(multimodal: Path) -> Path:
    """``<root>/sglang/srt/multimodal`` → ``<root>``; checks run from there."""
    return multimodal.parents[2]


def _write_config(directory: Path, multimodal: Path, *, exempt_base: bool) -> Path:
    """A mmlint.toml outside the release tree (the shared cache stays untouched);
    configured `paths` cannot leave the configuration's directory, so the
    release is named as PATH (see _check)."""
    lines = ["[exempt]", f"paths = [{json.dumps('**/' + BASE_PROCESSOR)}]"] if exempt_base else []
    config = directory / "mmlint.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def _check(config: Path, multimodal: Path):
    return check([multimodal], config=config, cwd=_release_root(multimodal))


def _python_files(multimodal: Path) -> list[Path]:
    return sorted(
        file
        for file in multimodal.rglob("*")
        if file.suffix in (".py", ".pyi")
        and file.is_file()
        and not any(part.startswith(".") or part == "__pycache__" for part in file.relative_to(multimodal).parts)
    )


def _independent_scan(multimodal: Path, *, exempt_base: bool) -> tuple[set[tuple[str, int]], set[tuple[str, int]], int]:
    """(MM001 sites, MM002 sites, all twin calls) as (display path, line), by stdlib `ast`."""
    root = _release_root(multimodal)
    sync_calls: set[tuple[str, int]] = set()
    unawaitable: set[tuple[str, int]] = set()
    total = 0
    for file in _python_files(multimodal):
        sites = scan_twin_calls(file.read_bytes(), TWINS)
        assert sites is not None, f"{file} does not parse with ast"
        total += len(sites)
        if exempt_base and file.name == BASE_PROCESSOR:
            continue
        shown = file.relative_to(root).as_posix()
        for site in sites:
            if not site.is_async_twin and not is_delegation(site, TWINS):
                sync_calls.add((shown, site.line))
            if site.scope != "async def":
                unawaitable.add((shown, site.line))
    return sync_calls, unawaitable, total


@pytest.fixture(scope="module")
def report_0_5_14(sglang_0_5_14: Path, tmp_path_factory: pytest.TempPathFactory):
    """0.5.14 checked once with the base processor exempt (shared by two tests)."""
    config = _write_config(tmp_path_factory.mktemp("config-0.5.14"), sglang_0_5_14, exempt_base=True)
    return _check(config, sglang_0_5_14)


def _sites(report, code: str) -> set[tuple[str, int]]:
    return {(d.path, d.span.line) for d in report.diagnostics if d.code == code}


def _defines(multimodal: Path, name: str) -> list[str]:
    """Files whose code defines ``name`` (def, async def, assignment, attribute), by stdlib `ast`."""
    found = []
    for file in _python_files(multimodal):
        for node in ast.walk(ast.parse(file.read_bytes())):
            named = getattr(node, "name", None) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
            if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store):
                named = node.id if isinstance(node, ast.Name) else node.attr
            if named == name:
                found.append(file.name)
    return found


def test_0_5_14_has_no_async_twin_so_no_mm001(sglang_0_5_14: Path, report_0_5_14):
    """32 direct calls of the sync body, and no async twin anywhere: a rewrite
    would raise AttributeError at the first multimodal request."""
    report = report_0_5_14
    sync_calls, unawaitable, total = _independent_scan(sglang_0_5_14, exempt_base=True)

    # Sanity anchors: the independent scan still sees the release we know.
    assert len(sync_calls) == 32
    assert len({path for path, _ in sync_calls}) == 30
    assert _defines(sglang_0_5_14, "process_and_combine_mm_data") == [BASE_PROCESSOR]
    assert _defines(sglang_0_5_14, "process_and_combine_mm_data_async") == []

    assert _sites(report, "MM001") == set()
    assert _sites(report, "MM013") == set()
    assert _sites(report, "MM002") == unawaitable == set()
    assert _sites(report, "MM999") == set()
    assert report.call_sites == total
    assert report.files_scanned == len(_python_files(sglang_0_5_14))
    assert build_audit(report).missing_twins == (
        ("process_and_combine_mm_data", "process_and_combine_mm_data_async", 32),
    )


def test_0_5_14_migrated_ahead_of_its_base_is_mm013(sglang_copy: Callable[[str], Path], tmp_path: Path):
    """A half-done migration: one processor rewritten to the twin its base lacks."""
    copied = sglang_copy("0.5.14")
    target = copied / "processors" / "clip.py"
    text = target.read_text(encoding="utf-8")
    assert text.count("self.process_and_combine_mm_data(") == 1
    target.write_text(
        text.replace("self.process_and_combine_mm_data(", "await self.process_and_combine_mm_data_async("),
        encoding="utf-8",
    )
    (tmp_path / "cfg").mkdir()
    report = _check(_write_config(tmp_path / "cfg", copied, exempt_base=True), copied)
    line = next(
        n for n, t in enumerate(target.read_text(encoding="utf-8").splitlines(), 1) if "_async(" in t and "combine" in t
    )
    assert _sites(report, "MM013") == {(target.relative_to(_release_root(copied)).as_posix(), line)}
    assert _sites(report, "MM001") == set()


def test_0_5_23_with_a_misspelt_twin_is_mm013(sglang_copy: Callable[[str], Path], tmp_path: Path):
    copied = sglang_copy("0.5.23")
    target = copied / "processors" / "clip.py"
    text = target.read_text(encoding="utf-8")
    assert text.count("self.process_and_combine_mm_data_async(") == 1
    target.write_text(
        text.replace("process_and_combine_mm_data_async(", "process_and_combine_mm_data_asycn("), encoding="utf-8"
    )
    (tmp_path / "cfg").mkdir()
    report = _check(_write_config(tmp_path / "cfg", copied, exempt_base=True), copied)
    [finding] = [d for d in report.diagnostics if d.code == "MM013"]
    assert finding.path.endswith("processors/clip.py") and "process_and_combine_mm_data_asycn" in finding.help
    assert "did you mean `self.process_and_combine_mm_data_async(...)`" in finding.help


def test_0_5_23_is_clean(sglang_0_5_23: Path, tmp_path: Path):
    config = _write_config(tmp_path, sglang_0_5_23, exempt_base=True)
    report = _check(config, sglang_0_5_23)
    sync_calls, unawaitable, total = _independent_scan(sglang_0_5_23, exempt_base=True)

    assert sync_calls == unawaitable == set()
    assert _sites(report, "MM001") == set()
    assert _sites(report, "MM002") == set()
    assert _sites(report, "MM999") == set()
    assert report.call_sites == total


def test_0_5_23_base_delegation_is_not_flagged_without_exemption(sglang_0_5_23: Path, tmp_path: Path):
    config = _write_config(tmp_path, sglang_0_5_23, exempt_base=False)
    report = _check(config, sglang_0_5_23)

    base = next(file for file in _python_files(sglang_0_5_23) if file.name == BASE_PROCESSOR)
    delegations = [site for site in scan_twin_calls(base.read_bytes(), TWINS) if is_delegation(site, TWINS)]
    assert delegations, "0.5.23's base processor delegates to the sync body inside the async twin"

    assert _sites(report, "MM001") == set()
    assert _sites(report, "MM002") == set()
    assert _sites(report, "MM999") == set()


def test_copy_of_a_release_checks_like_the_cache(
    sglang_0_5_14: Path, report_0_5_14, sglang_copy: Callable[[str], Path], tmp_path: Path
):
    copied = sglang_copy("0.5.14")
    cached = report_0_5_14
    (tmp_path / "copy-config").mkdir()
    copied_config = _write_config(tmp_path / "copy-config", copied, exempt_base=True)
    from_copy = _check(copied_config, copied)

    assert copied != sglang_0_5_14
    assert from_copy.files_scanned == cached.files_scanned
    assert [(d.path, d.span.line, d.code) for d in from_copy.diagnostics] == [
        (d.path, d.span.line, d.code) for d in cached.diagnostics
    ]
