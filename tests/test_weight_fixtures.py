"""Weight of never-suspending coroutines and blocking chains (fixtures/weight):
with defaults exactly the `# expect:` markers; chains, related locations,
route advice and the report-light setting."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_support import CliRunner
from expectations import assert_diagnostics_match, expected_findings

from mmlint.analysis.weight import HEAVY, LIGHT, STUB
from mmlint.api import check
from mmlint.cli import cli
from mmlint.config.load import ConfigError
from mmlint.reporters import json_report, sarif

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "weight"
CODES = ("MM003", "MM004", "MM005")


def test_defaults_report_exactly_the_markers() -> None:
    report = check(cwd=PACKAGE)
    assert_diagnostics_match(expected_findings(PACKAGE, PACKAGE), report.diagnostics, CODES)


def test_transitive_blocking_names_the_chain_two_calls_deep() -> None:
    report = check(["wpkg/bench.py"], cwd=PACKAGE, select=["MM005"])
    (found,) = report.diagnostics
    assert found.span.line == 24
    assert found.chain == (
        "`wait_for_service` at wpkg/bench.py:14",
        "`fetch_status` at wpkg/bench.py:10",
        "`requests.get`",
    )
    assert found.message == "blocks the event loop: waits for a network round trip"
    assert found.help.startswith("`wait_for_service(...)` in `async def ")


def test_weights_of_every_kind() -> None:
    report = check(cwd=PACKAGE)
    weights = report.project.weight(report.settings.heavy_calls)
    analysis = report.project.suspension
    by_name = {(key[0], analysis.defs[key].qualname): weights.weight(key) for key in analysis.defs}
    kinds = {name: weight.kind for name, weight in by_name.items() if weight is not None}
    assert kinds[("wpkg/media.py", "decode_async")] == HEAVY  # one-line delegation to a heavy def
    assert kinds[("wpkg/media.py", "load")] == HEAVY  # awaits a heavy one
    assert kinds[("wpkg/routes.py", "thumbnail")] == HEAVY
    assert kinds[("wpkg/routes.py", "health")] == LIGHT
    assert kinds[("wpkg/bench.py", "status_text")] == LIGHT
    assert kinds[("wpkg/media.py", "FakeWebSocket.__aenter__")] == LIGHT
    assert kinds[("wpkg/media.py", "FakeWebSocket.send")] == LIGHT
    assert kinds[("wpkg/media.py", "FakeWebSocket.__aexit__")] == STUB
    assert kinds[("wpkg/media.py", "Adapter.on_close")] == STUB


def test_a_heavy_route_gets_the_plain_def_advice() -> None:
    report = check(["wpkg/routes.py"], cwd=PACKAGE, select=["MM003"])
    assert all(
        "or make the route a plain `def` if that work is safe on a worker thread" in d.help for d in report.diagnostics
    )
    assert all(d.context == "route" for d in report.diagnostics)
    assert len(report.diagnostics) == 2


def test_report_light_reports_light_ones_but_never_stubs(tmp_path: Path) -> None:
    # The package copied beside its own configuration (configured paths must
    # lie inside the configuration's directory).
    shutil.copytree(PACKAGE / "wpkg", tmp_path / "wpkg")
    config = tmp_path / "mmlint.toml"
    config.write_text('paths = ["wpkg"]\n\n[fake-async]\nreport-light = true\n', encoding="utf-8")
    report = check(cwd=tmp_path, config=config, select=["MM003", "MM004"])
    flagged = {(d.path, d.span.line, d.code) for d in report.diagnostics}
    assert ("wpkg/routes.py", 13, "MM003") not in flagged  # a light route: FastAPI wants it a coroutine
    # __aenter__ must be a coroutine (the protocol says so): light there is not a finding.
    assert ("wpkg/media.py", 23, "MM003") not in flagged
    # One finding per root cause: the light callee, with the await as its related location.
    assert ("wpkg/media.py", 45, "MM003") in flagged and ("wpkg/media.py", 50, "MM004") not in flagged
    (light_value,) = [d for d in report.diagnostics if d.span.line == 45 and d.path == "wpkg/media.py"]
    assert [(r.path, r.span.line) for r in light_value.related] == [("wpkg/media.py", 50)]
    assert not any(line in (26, 37) for path, line, _ in flagged if path == "wpkg/media.py")  # stubs
    assert "its body is light" in light_value.message


def test_report_light_must_be_a_boolean(tmp_path: Path) -> None:
    config = tmp_path / "mmlint.toml"
    config.write_text('[fake-async]\nreport-light = "yes"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="report-light"):
        check(cwd=PACKAGE, config=config)


def test_one_finding_per_root_cause_with_the_awaits_as_related_locations() -> None:
    report = check(cwd=PACKAGE, select=["MM003", "MM004"])
    assert not [d for d in report.diagnostics if d.code == "MM004"]  # folded into the root's MM003
    (root,) = [d for d in report.diagnostics if d.code == "MM003" and d.span.line == 9]
    assert [(r.path, r.span.line) for r in root.related] == [("wpkg/media.py", 14)]
    assert root.weight == "heavy" and root.chain == ("`decode_frames` at wpkg/media.py:4", "`decord.VideoReader`")
    payload = json.loads(json_report.render(report))
    (entry,) = [d for d in payload["diagnostics"] if d["code"] == "MM003" and d["line"] == 9]
    assert entry["related"][0]["path"] == "wpkg/media.py" and entry["related"][0]["line"] == 14
    assert entry["weight"] == "heavy" and entry["chain"][-1] == "`decord.VideoReader`"
    assert entry["reason"] == "`decord.VideoReader(...)` decodes an image or video"
    log = json.loads(sarif.render(report))
    (result,) = [
        r
        for r in log["runs"][0]["results"]
        if r["ruleId"] == "MM003" and r["locations"][0]["physicalLocation"]["region"]["startLine"] == 9
    ]
    assert result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 14
    assert result["properties"]["weight"] == "heavy" and result["properties"]["chain"] == entry["chain"]


def test_audit_shows_weight_and_blocking_chain_per_async_def(monkeypatch) -> None:
    monkeypatch.chdir(PACKAGE)
    text = CliRunner().invoke(cli, ["audit", "--show-defs", "--no-cache"]).output
    data = json.loads(CliRunner().invoke(cli, ["audit", "--format", "json", "--no-cache"]).output)
    assert "wpkg/routes.py:13 health: never, light\n" in text
    assert "wpkg/media.py:26 FakeWebSocket.__aexit__: never, stub\n" in text
    assert "wpkg/media.py:9 decode_async: never, heavy (`decord.VideoReader(...)` decodes an image or video)\n" in text
    assert (
        "wpkg/bench.py:23 run_benchmark: always\n"
        "    blocks: `wait_for_service` at wpkg/bench.py:14 → `fetch_status` at wpkg/bench.py:10 → `requests.get`\n"
    ) in text
    offloaded = next(d for d in data["defs"] if d["qualname"] == "run_benchmark_offloaded")
    assert offloaded["blocking"] == [] and offloaded["weight"] == ""


def test_explain_documents_weight_chains_and_the_setting() -> None:
    def explain(code: str) -> str:
        return " ".join(CliRunner().invoke(cli, ["explain", code]).output.split())

    mm003 = explain("MM003")
    assert "report-light = true" in mm003 and "heavy" in mm003 and "plain" in mm003
    mm004 = explain("MM004")
    assert "relatedLocations" in mm004
    mm005 = explain("MM005")
    assert "`wait_for_service` → `requests.get`" in mm005 and "to_thread" in mm005


def test_each_callee_is_matched_against_the_patterns_once(monkeypatch) -> None:
    """The fixed points ask of every call every round: the answer is kept per callee."""
    from mmlint.analysis import weight as weight_module

    asked: list[str] = []
    real = weight_module.matching_pattern

    def counting(dotted: str, patterns: tuple[str, ...]) -> str | None:
        asked.append(dotted)
        return real(dotted, patterns)

    monkeypatch.setattr(weight_module, "matching_pattern", counting)
    report = check(cwd=PACKAGE)
    analysis = report.project.weight(report.settings.heavy_calls)
    analysis.transitive_blocking()
    assert asked and len(asked) == len(set(asked))
    assert analysis.matching("requests.get") == real("requests.get", report.settings.heavy_calls) is not None


def test_each_callee_is_resolved_once_per_class_and_file(monkeypatch, tmp_path) -> None:
    """Calls of one callee from one method of one class of one file resolve
    alike (the calling method matters: a subclass overriding it cuts the path):
    the resolver works each out once, and scans a class's defs for
    a sync method once per name."""
    from mmlint.analysis import resolve as resolve_module
    from mmlint.analysis.resolve import Resolver

    (tmp_path / "engine.py").write_text(
        "import time\n\n\nclass Engine:\n"
        "    def poll(self):\n        time.sleep(1)\n\n"
        "    def status(self):\n        return self.poll()\n\n"
        "    async def start(self):\n        self.poll()\n        self.poll()\n        self.status()\n\n\n"
        "class Fast(Engine):\n    async def run(self):\n        self.poll()\n",
        encoding="utf-8",
    )
    asked: list[tuple[str, str | None, object, str | None]] = []
    scanned: list[tuple[str, str, str]] = []
    real_resolve, real_scan = Resolver._resolve_sync_call, resolve_module._method_sync_def

    def resolving(self, facts, class_name, ref, method):  # type: ignore[no-untyped-def]
        asked.append((facts.path, class_name, ref, method))
        return real_resolve(self, facts, class_name, ref, method)

    def scanning(facts, class_name, name):  # type: ignore[no-untyped-def]
        scanned.append((facts.path, class_name, name))
        return real_scan(facts, class_name, name)

    monkeypatch.setattr(Resolver, "_resolve_sync_call", resolving)
    monkeypatch.setattr(resolve_module, "_method_sync_def", scanning)
    report = check(cwd=tmp_path, select=["MM005"])
    assert [d.span.line for d in report.diagnostics] == [12, 13, 14, 19]  # self.poll() blocks, self.status() through it
    assert ("engine.py", "Engine", "poll") in scanned and len(scanned) == len(set(scanned))
    # From Engine: self.poll and self.status in start, self.poll in status,
    # time.sleep in poll; self.poll in Fast.run; however often each is called.
    assert len(asked) == len(set(asked)) == 5


def test_password_hashing_is_the_named_cause() -> None:
    """`bcrypt.hashpw` / `checkpw` are slow by design (the `password-hashing`
    set): on the loop each is a finding, offloaded none is, and a chain names
    bcrypt rather than a digest of the password before it (wpkg/passwords.py)."""
    report = check(["wpkg/passwords.py"], cwd=PACKAGE, select=["MM005"])
    found = {d.span.line: d for d in report.diagnostics}
    assert sorted(found) == [18, 23, 28]
    assert found[18].message == "blocks the event loop: hashes a password (slow by design)"
    assert found[23].chain == ("`prehash` at wpkg/passwords.py:9", "`bcrypt.hashpw`")
