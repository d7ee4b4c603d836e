"""Prefilter verdicts kept between runs (mmlint.check.cache.PrefilterVerdicts):
a `check` the results cache misses (one file edited) prefilters only the
files whose bytes no earlier run judged, reads again only those and the ones
it analyses, and reports what
a fresh run reports; verdicts are keyed by the twin pairs, signed like every
entry, and a bad or forged entry only costs the prefilter again."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from cache_support import SOURCE, signed_entry, unsigned_entry
from cli_support import CliRunner

from mmlint.check import cache as cache_module
from mmlint.check import engine
from mmlint.cli import cli

PLAIN = "def helper(x):\n    return x + 1\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "p.py").write_text(SOURCE, encoding="utf-8")
    (root / "plain.py").write_text(PLAIN, encoding="utf-8")
    (root / "mmlint.toml").write_text("min-call-sites = 1\n", encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["check", "--no-color", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout


@pytest.fixture
def judged(monkeypatch):
    """The names of the files the prefilter judges, run by run (a list per call of ``new_run``)."""
    seen: list[list[str]] = []
    real = engine.Prefilter

    class Counting(real):  # type: ignore[misc, valid-type]
        def could_hold_finding(self, data: bytes) -> bool:
            seen[-1].append(hashlib.sha256(data).hexdigest())
            return super().could_hold_finding(data)

    monkeypatch.setattr(engine, "Prefilter", Counting)

    def new_run(*args: str) -> tuple[tuple[int, str], list[str]]:
        seen.append([])
        return run(*args), seen[-1]

    return new_run


def digest_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def verdict_entries(cache_dir: Path) -> list[Path]:
    return sorted(p for p in (cache_dir / cache_module.PREFILTER_FORMAT).rglob("*") if p.is_file())


def test_an_edit_prefilters_again_only_the_files_not_judged_before(cache_dir, project, judged):
    first, judged_first = judged()
    assert sorted(judged_first) == sorted([digest_of(project / "p.py"), digest_of(project / "plain.py")])
    (project / "p.py").write_text(SOURCE + "# edited\n", encoding="utf-8")
    second, judged_second = judged()
    assert judged_second == [digest_of(project / "p.py")]  # plain.py's bytes were judged: not read again
    assert second == run("--no-cache") == first


def test_a_file_rejected_before_and_edited_is_judged_again(cache_dir, project, judged):
    judged()
    (project / "plain.py").write_text(PLAIN + SOURCE, encoding="utf-8")  # now a processor too
    (code, output), judged_again = judged()
    assert judged_again == [digest_of(project / "plain.py")]
    assert "plain.py:" in output and (code, output) == run("--no-cache")


def test_verdicts_are_kept_per_set_of_twin_pairs(cache_dir, project, judged):
    judged()
    assert len(verdict_entries(cache_dir)) == 1
    (project / "plain.py").write_text(PLAIN + "def use(p):\n    return p.fetch_it(1)\n", encoding="utf-8")
    config = 'min-call-sites = 1\n[[tool.mmlint.twins]]\nsync = "fetch_it"\nasync = "fetch_it_async"\n'
    (project / "mmlint.toml").write_text(config.replace("[[tool.mmlint.twins]]", "[[twins]]"), encoding="utf-8")
    _, judged_again = judged()
    # Other twins: no verdict of the old ones applies, and the twin's name passes plain.py now.
    assert sorted(judged_again) == sorted([digest_of(project / "p.py"), digest_of(project / "plain.py")])
    assert len(verdict_entries(cache_dir)) == 2


def test_a_run_that_learns_nothing_new_writes_no_verdicts(cache_dir, project, judged):
    judged()
    (entry,) = verdict_entries(cache_dir)
    written = entry.stat().st_mtime_ns
    (project / "mmlint.toml").write_text("min-call-sites = 2\n", encoding="utf-8")  # a miss, same files
    _, judged_again = judged()
    assert judged_again == []  # p.py is read for its outcome, but its bytes were judged
    assert verdict_entries(cache_dir) == [entry] and entry.stat().st_mtime_ns == written


def _forge_rejection(cache_dir: Path, project: Path, sign: bool) -> None:
    """Replace the stored verdicts by one that says p.py's bytes cannot hold a finding."""
    (entry,) = verdict_entries(cache_dir)
    fields = [cache_module.PREFILTER_FORMAT, entry.name, [[], [digest_of(project / "p.py")]]]
    if sign:
        entry.write_bytes(signed_entry(cache_dir, fields))
    else:
        entry.write_bytes(unsigned_entry(fields))


def test_a_forged_verdict_is_ignored(cache_dir, project, judged):
    first, _ = judged()
    _forge_rejection(cache_dir, project, sign=False)
    (project / "plain.py").write_text(PLAIN + "# a miss\n", encoding="utf-8")
    (code, output), judged_again = judged()
    assert digest_of(project / "p.py") in judged_again
    assert "MM001" in output and "MM001" in first[1]


def test_the_stored_verdicts_are_what_decides_a_file_unread(cache_dir, project, judged):
    """The reverse of the forgery test: a verdict signed with the user's key is
    trusted, so the entry is what skips the read (and nothing else is)."""
    judged()
    _forge_rejection(cache_dir, project, sign=True)
    (project / "plain.py").write_text(PLAIN + "# a miss\n", encoding="utf-8")
    (_, output), judged_again = judged()
    assert judged_again == [digest_of(project / "plain.py")] and "MM001" not in output


@pytest.mark.parametrize(
    "payload",
    [[], [["not a digest"], []], [[], ["ab" * 31]], {"passed": []}, [[], [], []], [[], [1]]],
    ids=["empty", "bad-text", "short", "object", "three", "number"],
)
def test_a_malformed_verdict_entry_is_a_miss(cache_dir, payload):
    cache_dir.mkdir()
    store = cache_module.PrefilterVerdicts(cache_dir)
    key = store.key(("twins",))
    store._store_payload(key, lambda: payload)
    assert store._path(key).is_file() and store.load(key) == {}


def test_verdicts_roundtrip_under_the_twins_key(cache_dir):
    cache_dir.mkdir()
    store = cache_module.PrefilterVerdicts(cache_dir)
    verdicts = {hashlib.sha256(b"a").digest(): True, hashlib.sha256(b"b").digest(): False}
    store.store(store.key(("one",)), verdicts)
    assert store.load(store.key(("one",))) == verdicts
    assert store.load(store.key(("other",))) == {}


def test_clean_removes_the_verdicts(cache_dir, project):
    run()
    assert verdict_entries(cache_dir)
    assert CliRunner().invoke(cli, ["clean"]).exit_code == 0
    assert verdict_entries(cache_dir) == []
