"""The whole program's reach (issue 18 point 1, mmlint.check.reach): sync
helpers in plain modules (no `async def`, so the prefilter passes them by)
are followed from the async defs that call them, however many modules deep,
with light-tier facts (mmlint.facts.light), cached, and only for the files
of the scan that the calls reach."""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from expectations import assert_diagnostics_match, expected_findings

import mmlint.check.reach as reach_module
from mmlint.api import check
from mmlint.check.cache import FactsCache, group_sync_defs, light_entry
from mmlint.check.prefilter import Prefilter
from mmlint.check.reach import LIGHT_TIER
from mmlint.config.settings import DEFAULT_TWINS, Budgets
from mmlint.facts.light import light_facts
from mmlint.facts.light_groups import LightEntry
from mmlint.facts.outcome import Unparsed

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "reach"
CODES = ("MM003", "MM004", "MM005")
PLAIN = ("rpkg/state.py", "rpkg/health.py", "rpkg/net/__init__.py", "rpkg/net/wire.py", "rpkg/plugins.py")
# Plain modules that only star imports lead to (rpkg/restart.py's calls).
BY_STAR = ("rpkg/compat.py", "rpkg/snapshots.py", "rpkg/retry.py", "rpkg/backoff.py")


@pytest.fixture
def package(tmp_path: Path) -> Path:
    copy = tmp_path / "reach"
    shutil.copytree(PACKAGE, copy)
    return copy


def test_a_blocking_helper_three_plain_modules_away_is_mm005_at_the_async_defs_call() -> None:
    report = check(cwd=PACKAGE)
    assert_diagnostics_match(expected_findings(PACKAGE, PACKAGE), report.diagnostics, CODES)
    (found,) = [d for d in report.diagnostics if d.code == "MM005" and d.path == "rpkg/service.py"]
    # The chain names the plain modules' defs like any other sync def.
    assert [step.split(" at ")[-1].rstrip("`") for step in found.chain[:-1]] == [
        "rpkg/state.py:7",
        "rpkg/health.py:6",
        "rpkg/net/wire.py:6",
    ]


def test_star_imports_lead_on_as_named_imports_do() -> None:
    """A name imported from a shim whose `from m import *` binds it (m's
    `__all__`), and a name a plain module's own star import binds (every
    public name of a module without `__all__`): the modules behind them are
    reached, and their blocking calls end the chains."""
    report = check(cwd=PACKAGE)
    chains = {d.span.line: d.chain for d in report.diagnostics if d.path == "rpkg/restart.py"}
    assert chains == {
        11: ("`load_snapshot` at rpkg/snapshots.py:7", "`open`"),
        13: ("`reconnect` at rpkg/retry.py:6", "`pause_between` at rpkg/backoff.py:6", "`time.sleep`"),
    }


def test_plain_modules_are_reached_not_analysed_and_unreached_ones_are_not_read() -> None:
    report = check(cwd=PACKAGE)
    for shown in (*PLAIN, *BY_STAR):
        assert report.outcomes[shown] == Unparsed("prefilter")  # no rule reports in them
        assert shown in report.project.files and not report.project.files[shown].async_defs
    assert "rpkg/unused.py" not in report.project.files  # nothing calls into it


def test_an_excluded_module_is_never_reached(package: Path) -> None:
    pyproject = package / "pyproject.toml"
    pyproject.write_text(pyproject.read_text("utf-8") + 'exclude = ["rpkg/net/wire.py"]\n', "utf-8")
    report = check(cwd=package)
    assert "rpkg/net/wire.py" not in report.project.files
    assert not [d for d in report.diagnostics if d.code == "MM005" and d.path == "rpkg/service.py"]


def test_reached_facts_come_from_the_cache_the_second_time(package: Path, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MMLINT_CACHE_DIR", str(tmp_path / "cache"))
    first = check(cwd=package)
    (package / "rpkg" / "service.py").write_text((package / "rpkg" / "service.py").read_text("utf-8") + "\n", "utf-8")

    def not_again(*args: object) -> None:
        raise AssertionError("a light-tier file was parsed again")

    monkeypatch.setattr("mmlint.facts.light.light_facts", not_again)
    second = check(cwd=package)  # a miss of the results cache: the facts cache answers
    assert {d.code for d in second.diagnostics} == {d.code for d in first.diagnostics} == {"MM005"}


def test_a_light_entry_has_a_key_of_its_own(tmp_path: Path) -> None:
    cache = FactsCache(tmp_path)
    real = PACKAGE / "rpkg" / "state.py"
    digest = b"\0" * 32
    assert cache.key(digest, real, "rpkg/state.py", LIGHT_TIER) != cache.key(
        digest, real, "rpkg/state.py", (DEFAULT_TWINS, Budgets())
    )


def test_the_cost_grows_with_what_is_reached(package: Path, monkeypatch) -> None:
    for index in range(30):  # plain modules nothing calls into
        (package / "rpkg" / f"filler_{index}.py").write_text(f"def filler():\n    return {index}\n", "utf-8")
    parsed: list[str] = []
    original = reach_module.light_tier_facts

    def counted(data: object, real: object, shown: str, *rest: object) -> object:
        parsed.append(shown)
        return original(data, real, shown, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(reach_module, "light_tier_facts", counted)
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    check(cwd=package)
    # The package's __init__ too: `from rpkg import state` may name a re-export.
    assert sorted(parsed) == sorted((*PLAIN, *BY_STAR, "rpkg/__init__.py"))


def test_reached_files_read_in_worker_processes_give_the_same_findings(package: Path, monkeypatch) -> None:
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    monkeypatch.setenv("MMLINT_JOBS", "1")
    in_process = check(cwd=package)
    monkeypatch.setenv("MMLINT_JOBS", "2")  # a pool for any number of files
    pooled = check(cwd=package)
    assert pooled.diagnostics == in_process.diagnostics and in_process.diagnostics


def test_a_reached_file_holds_what_was_asked_of_it_and_what_dispatch_may_run() -> None:
    """rpkg/plugins.py is reached for `register`; `SlowEngine.prepare`
    overrides the hook a `self.` call in the analysed base runs (the MM005 in
    rpkg/engine.py); nothing leads to `Ledger.flush` or `compact`."""
    report = check(cwd=PACKAGE)
    reached = report.project.files["rpkg/plugins.py"]
    assert [info.qualname for info in reached.sync_defs] == ["register", "SlowEngine.prepare"]
    whole = light_facts(
        (PACKAGE / "rpkg" / "plugins.py").read_bytes(), PACKAGE / "rpkg" / "plugins.py", "rpkg/plugins.py"
    )
    assert whole is not None
    assert [info.qualname for info in whole.sync_defs] == ["register", "SlowEngine.prepare", "Ledger.flush", "compact"]
    assert replace(whole, sync_defs=reached.sync_defs) == reached  # the rest of the facts whole


def test_the_reach_loses_nothing_against_every_file_analysed(monkeypatch) -> None:
    """With the prefilter passing every file there is nothing to reach: the
    fixture's findings are the same (the ecosystem test asks it of sglang and vLLM)."""
    monkeypatch.setenv("MMLINT_NO_CACHE", "1")
    default = check(cwd=PACKAGE)
    monkeypatch.setattr(Prefilter, "could_hold_finding", lambda self, data: True)
    everything = check(cwd=PACKAGE)
    assert default.diagnostics and everything.diagnostics == default.diagnostics
    assert everything.project.files["rpkg/plugins.py"].sync_defs != default.project.files["rpkg/plugins.py"].sync_defs


def test_reached_facts_are_the_same_from_the_cache_and_from_a_parse(package: Path, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MMLINT_CACHE_DIR", str(tmp_path / "cache"))
    parsed = check(cwd=package)
    (package / "rpkg" / "engine.py").write_text((package / "rpkg" / "engine.py").read_text("utf-8") + "\n", "utf-8")
    stored = check(cwd=package)  # the light tier from the facts cache, group by group
    for shown in (*PLAIN, *BY_STAR):
        assert stored.project.files[shown] == parsed.project.files[shown]
    assert stored.diagnostics == parsed.diagnostics


def _entry_of(shown: str) -> tuple[LightEntry, Path]:
    real = PACKAGE / shown
    facts = light_facts(real.read_bytes(), real, shown)
    return light_entry(facts), real


def test_a_stored_group_that_does_not_decode_is_read_again_from_the_file() -> None:
    entry, real = _entry_of("rpkg/plugins.py")
    broken = replace(entry, bodies=tuple(b"[" for _ in entry.bodies))
    data = real.read_bytes()
    reads: list[str] = []

    def reread() -> tuple[bool, object]:
        reads.append("read")
        return reach_module.light_tier_facts(data, real, "rpkg/plugins.py", hashlib.sha256(data).digest())

    file = reach_module._LightFile.stored(broken, reread)
    assert [info.qualname for info in file.defs_of("compact")] == ["compact"]
    assert [info.qualname for info in file.defs_of("register")] == ["register"] and reads == ["read"]
    assert [info.qualname for info in file.assembled().sync_defs] == ["register", "compact"]
    assert not file.broken


def test_a_file_that_no_longer_reads_as_hashed_is_left_out_when_its_group_does_not_decode() -> None:
    entry, _ = _entry_of("rpkg/plugins.py")
    file = reach_module._LightFile.stored(
        replace(entry, bodies=tuple(b"[" for _ in entry.bodies)), lambda: (False, None)
    )
    assert file.defs_of("register") == () and file.broken


def test_groups_are_what_the_reach_asks_for() -> None:
    entry, _ = _entry_of("rpkg/plugins.py")
    assert entry.groups == ("register", "SlowEngine.prepare", "Ledger.flush", "compact")
    assert entry.positions == ((0,), (1,), (2,), (3,)) and entry.facts is not None and not entry.facts.sync_defs


def test_a_stored_group_decodes_once_per_process() -> None:
    """`mmlint server` keeps light entries in memory and asks for the same groups at every change."""
    entry, _ = _entry_of("rpkg/plugins.py")
    body = entry.bodies[entry.groups.index("register")]
    first = group_sync_defs(body)
    assert [info.qualname for info in first] == ["register"] and group_sync_defs(body) is first


def test_a_module_named_as_a_link_is_reached_by_its_targets_name(tmp_path: Path) -> None:
    """Only files named on the command line can be symbolic links (a walk
    passes none): the reach indexes a walked file by its own name with no
    system call, and resolves a named one, whose module is its target's."""
    service = tmp_path / "app" / "pkg"
    service.mkdir(parents=True)
    (service / "__init__.py").write_text("", encoding="utf-8")
    (service / "svc.py").write_text(
        "from pkg import helpers\n\n\nasync def handle():\n    helpers.block()\n", encoding="utf-8"
    )
    store = tmp_path / "store" / "pkg"
    store.mkdir(parents=True)
    (store / "helpers.py").write_text("import time\n\n\ndef block():\n    time.sleep(5)\n", encoding="utf-8")
    aside = tmp_path / "aside"
    aside.mkdir()
    try:
        (aside / "alias.py").symlink_to(store / "helpers.py")
    except OSError:
        pytest.skip("symlinks are not available here")
    named = check([service, aside / "alias.py"], cwd=tmp_path)
    assert [(d.path, d.code) for d in named.diagnostics if d.code == "MM005"] == [("app/pkg/svc.py", "MM005")]
    walked = check([service, aside], cwd=tmp_path)  # the walk passes the link by: nothing leads on
    assert not [d for d in walked.diagnostics if d.code == "MM005"]
