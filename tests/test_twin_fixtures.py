"""The twin fixture package (fixtures/twins), end to end: MM010 (and MM001 for
the configured pair) report exactly the `# expect:` markers; each site's
fixability and reason are the `# fixable` / `# unfixable: ...` notes; `fix`
rewrites exactly the fixable sites; the audit lists the pairs."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from cli_support import CliRunner
from expectations import assert_diagnostics_match, expected_findings

from mmlint.api import check
from mmlint.cli import cli

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "twins"
CODES = ("MM001", "MM010")
NOTE = re.compile(r"#\s*(?P<kind>fixable|unfixable: (?P<reason>[^#]+?))\s*#\s*expect:")


def notes() -> dict[tuple[str, int], str | None]:
    """(path, line) -> None for a fixable site, else the words its reason must hold."""
    found = {}
    for file in sorted(PACKAGE.rglob("*.py")):
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            match = NOTE.search(line)
            if match:
                found[(file.relative_to(PACKAGE).as_posix(), number)] = match.group("reason")
    return found


def test_full_scan_reports_exactly_the_markers() -> None:
    report = check(cwd=PACKAGE)
    assert_diagnostics_match(expected_findings(PACKAGE, PACKAGE), report.diagnostics, CODES)


def test_fixable_marker_and_reason_agree_with_the_notes() -> None:
    report = check(cwd=PACKAGE, select=["MM010"])
    reported = {(d.path, d.span.line): d for d in report.diagnostics}
    expected = notes()
    assert set(reported) == set(expected)
    for place, reason in expected.items():
        diagnostic = reported[place]
        if reason is None:
            assert diagnostic.fixable and diagnostic.edits, diagnostic.message
            assert "not auto-fixable" not in diagnostic.help
        else:
            assert not diagnostic.fixable and not diagnostic.edits, diagnostic.message
            assert "(not auto-fixable: " in diagnostic.help and reason in diagnostic.help, diagnostic.help


def test_the_message_names_both_twins_and_the_help_where_the_async_one_is() -> None:
    report = check(["twinpkg/processors/image.py"], cwd=PACKAGE, select=["MM010"])
    first = min(report.diagnostics, key=lambda d: d.span)
    assert first.message == "sync twin on the event loop; `preprocess_async` exists"
    assert first.help == (
        "`preprocess_async` is defined at twinpkg/processors/image.py:46; use `await self.preprocess_async(...)`"
    )


def test_a_configured_pair_is_mm001s_only() -> None:
    report = check(cwd=PACKAGE)
    by_place: dict[tuple[str, int, int], set[str]] = {}
    for d in report.diagnostics:
        by_place.setdefault((d.path, d.span.line, d.span.column), set()).add(d.code)
    assert not [place for place, codes in by_place.items() if {"MM001", "MM010"} <= codes]
    assert any(codes == {"MM001"} for codes in by_place.values())


def _copy_with_config(tmp_path: Path, settings: str) -> Path:
    """The fixture package copied beside a configuration of its own (configured
    paths must lie inside the configuration's directory)."""
    shutil.copytree(PACKAGE / "twinpkg", tmp_path / "twinpkg")
    config = tmp_path / "mmlint.toml"
    config.write_text('paths = ["twinpkg"]\n' + settings, encoding="utf-8")
    return config


def test_auto_twins_off_reports_nothing(tmp_path: Path) -> None:
    config = _copy_with_config(tmp_path, "auto-twins = false\n")
    report = check(cwd=tmp_path, config=config, select=["MM010"])
    assert report.diagnostics == ()


def test_twin_patterns_decide_the_pairs(tmp_path: Path) -> None:
    """Only the `{name}_async` pattern: the `async_X` and `aX` pairs are gone (and
    without the configured pair, `render` is discovered like any other)."""
    config = _copy_with_config(tmp_path, 'twin-patterns = ["{name}_async"]\n')
    report = check(cwd=tmp_path, config=config, select=["MM010"])
    twins = {d.message.split("; `")[1].split("` exists")[0] for d in report.diagnostics}
    assert twins == {
        "preprocess_async",
        "resize_async",
        "fetch_async",
        "decode_async",
        "crop_async",
        "normalize_async",
        "prepare_async",
        "warmup_async",
        "render_async",
    }


def test_fix_rewrites_exactly_the_fixable_sites(tmp_path: Path) -> None:
    work = tmp_path / "twins"
    shutil.copytree(PACKAGE, work)
    before = check(cwd=work, select=["MM010"]).diagnostics
    fixable = sum(d.fixable for d in before)
    assert _run(["fix", "--select", "MM010"], work).exit_code == 1  # unfixable sites remain
    after = check(cwd=work, select=["MM010"]).diagnostics
    assert len(after) == len(before) - fixable and not any(d.fixable for d in after)
    text = (work / "twinpkg/processors/image.py").read_text(encoding="utf-8")
    assert "first = (await self.async_tokenize(text))[0]" in text
    assert "batch = await super().preprocess_async(item)" in text
    assert "listed = [await self.preprocess_async(i) for i in items]" in text
    assert "small = await media.resize_async(item, (4, 4))" in text
    # A second run changes nothing.
    fixed = {path: path.read_bytes() for path in work.rglob("*.py")}
    again = _run(["fix", "--select", "MM010"], work)
    assert "Nothing to fix" in again.output
    assert {path: path.read_bytes() for path in work.rglob("*.py")} == fixed


def test_fix_lists_each_unfixable_site_with_its_reason(tmp_path: Path) -> None:
    work = tmp_path / "twins"
    shutil.copytree(PACKAGE, work)
    text = _run(["fix", "--select", "MM010", "--diff"], work).output
    assert "the default of `mode` differs" in text
    assert "`normalize_async` never suspends" in text


def test_audit_lists_pairs_calls_and_contract() -> None:
    code, data = _audit_json()
    pairs = {(p["sync"], p["async"]): p for p in data["twins"]}
    resize = pairs[("resize", "resize_async")]
    assert resize["sync_defined"] == "twinpkg/media.py:6"
    assert resize["async_defined"] == "twinpkg/media.py:10"
    assert resize["accepts_same_arguments"] is True and resize["suspends"] == "always"
    assert {c["line"] for c in resize["calls"]} >= {73}
    assert pairs[("tokenize", "async_tokenize")]["suspends"] == "some"
    assert pairs[("normalize", "normalize_async")]["suspends"] == "never"
    assert pairs[("decode", "decode_async")]["accepts_same_arguments"] is False
    assert pairs[("decode", "decode_async")]["arguments_problem"] == "the default of `mode` differs"
    # The configured pair is not discovered: it is MM001's.
    assert ("render", "render_async") not in pairs
    # A pair nobody calls from async code is listed too, with no calls.
    assert ("encode", "async_encode") in pairs and pairs[("encode", "async_encode")]["calls"] == []


def _audit_json():
    result = _run(["audit", "--format", "json"], PACKAGE)
    return result.exit_code, json.loads(result.stdout)


def _run(args: list[str], cwd: Path):
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, args, catch_exceptions=False)
    finally:
        os.chdir(previous)
