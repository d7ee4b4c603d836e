"""The facts cache unpickles only what the user's own mmlint signed: real
outcomes round-trip, a planted pickle never runs (unsigned, or signed with
another key), an entry of the wrong format, key or type is a miss, a
directory someone else can write is refused with one warning, `mmlint clean`
empties the cache and a size cap prunes the least recently used entries."""

from __future__ import annotations

import os
import pickle
import time
from pathlib import Path

import pytest
from cache_support import SOURCE, cache_entries, entry_fields, signed_entry, unsigned_entry
from cli_support import CliRunner
from conftest import FIXTURES_DIR

from mmlint.api import check
from mmlint.check import cache as cache_module
from mmlint.check.cache import FORMAT, RESULTS_FORMAT, FactsCache
from mmlint.check.per_file import analyse_file
from mmlint.check.results import RunResults
from mmlint.cli import cli
from mmlint.core.diagnostics import Span
from mmlint.facts.light_groups import LightEntry
from mmlint.facts.model import TwinPair
from mmlint.facts.outcome import FileOutcome, Parsed, ParseFailure, Unparsed

TWINS = (TwinPair("process_and_combine_mm_data", "process_and_combine_mm_data_async"),)


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "p.py").write_text(SOURCE)
    monkeypatch.chdir(tmp_path / "proj")
    monkeypatch.setenv("PWD", str(tmp_path / "proj"))
    return tmp_path / "proj"


def entries(cache_dir):
    return cache_entries(cache_dir)


def codes(report):
    return [(d.path, d.span.line, d.code) for d in report.diagnostics]


def fixture_outcomes() -> list[FileOutcome]:
    files = sorted(FIXTURES_DIR.rglob("*.py"))
    return [analyse_file(path.read_bytes(), path, path.relative_to(FIXTURES_DIR).as_posix(), TWINS) for path in files]


def test_real_outcomes_roundtrip_through_the_cache(tmp_path):
    outcomes = fixture_outcomes() + [Unparsed("skip-file"), ParseFailure(Span(3, 1, 3, 4), "bad \udcff bytes")]
    parsed = [o for o in outcomes if isinstance(o, Parsed)]
    assert len(parsed) > 50 and any(o.facts.async_defs and o.facts.async_defs[0].body for o in parsed)
    assert any(o.suppressions.by_line for o in parsed) and any(o.facts.call_sites for o in parsed)
    cache = FactsCache(tmp_path)
    for number, outcome in enumerate(outcomes):
        key = f"{number:064x}"
        cache.store(key, outcome)
        assert cache.load(key) == outcome


def test_a_planted_pickle_never_runs(cache_dir, project, tmp_path):
    expected = codes(check(cwd=project))
    marker = tmp_path / "marker"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    [entry] = entries(cache_dir)
    entry.write_bytes(pickle.dumps(Payload()))
    assert codes(check(cwd=project)) == expected
    assert not marker.exists()


def planted(key: str, value, form: str = FORMAT) -> bytes:
    """An entry signed with the user's key: what the MAC and type checks see."""
    return signed_entry(Path(os.environ["MMLINT_CACHE_DIR"]), [form, key, value])


HIDING = Unparsed("prefilter")  # an outcome that hides the file's findings


@pytest.mark.parametrize(
    "make_entry",
    [
        lambda key: planted(key, ("Unparsed", "prefilter")),  # the codec's plain data: a tuple, not an outcome
        lambda key: planted(key, "prefilter"),  # another type
        lambda key: planted(key, RunResults((), (), 0, True)),  # another cache's type
        lambda key: planted(key, LightEntry(None)),  # the light tier's type, where an outcome is asked for
        lambda key: planted(key, [HIDING]),
        lambda key: planted(key, HIDING, "facts-v2"),  # another format
        lambda key: unsigned_entry([FORMAT, key, HIDING]),  # unsigned
        lambda key: planted(key, HIDING)[1:],  # the MAC cut short
        lambda key: planted("0" * 64, HIDING),  # another key
        lambda key: planted(key, HIDING)[:-3],  # truncated
        lambda key: b"\xff\xfe",
        lambda key: b"",
    ],
)
def test_an_entry_that_does_not_fit_is_a_miss(cache_dir, project, make_entry):
    expected = codes(check(cwd=project))
    assert expected
    [entry] = entries(cache_dir)
    entry.write_bytes(make_entry(entry.name))
    assert codes(check(cwd=project)) == expected
    assert type(entry_fields(entry)[2]) is Parsed  # stored again


def test_a_signed_entry_that_does_not_unpickle_is_a_miss(cache_dir, project):
    """A class gone from this build (an entry the key does not tell apart):
    unpickling fails, and the run reads the file again."""
    import hashlib
    import hmac

    expected = codes(check(cwd=project))
    [entry] = entries(cache_dir)
    signed = pickle.dumps((FORMAT, entry.name, Unparsed("prefilter")), pickle.HIGHEST_PROTOCOL)
    signed = signed.replace(b"Unparsed", b"Vanished")
    secret = (cache_dir / cache_module.KEY_FILE).read_bytes()
    entry.write_bytes(hmac.new(secret, signed, hashlib.sha256).hexdigest().encode() + signed)
    assert codes(check(cwd=project)) == expected
    assert type(entry_fields(entry)[2]) is Parsed


@pytest.mark.parametrize("signed_with", ["nothing", "another key"])
def test_a_pickle_in_the_entry_layout_never_runs_without_the_users_key(cache_dir, project, tmp_path, signed_with):
    """The MAC is checked before anything is unpickled."""
    import hashlib
    import hmac

    expected = codes(check(cwd=project))
    marker = tmp_path / "marker"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    [entry] = entries(cache_dir)
    signed = pickle.dumps((FORMAT, entry.name, Payload()), pickle.HIGHEST_PROTOCOL)
    mac = b"0" * 64 if signed_with == "nothing" else hmac.new(b"guess" * 7, signed, hashlib.sha256).hexdigest().encode()
    entry.write_bytes(mac + signed)
    assert codes(check(cwd=project)) == expected
    assert not marker.exists()


def test_a_valid_entry_under_its_key_is_trusted(cache_dir, project):
    """An entry the user's own key signed is trusted whole (it is unpickled):
    which is why the key and the directory must be the user's own."""
    check(cwd=project)
    [entry] = entries(cache_dir)
    entry.write_bytes(planted(entry.name, HIDING))
    assert codes(check(cwd=project)) == []


def plant_hiding_entry(cache_dir, project):
    check(cwd=project)
    [entry] = entries(cache_dir)
    entry.write_bytes(planted(entry.name, HIDING))


@pytest.mark.skipif(os.name != "posix", reason="owner and mode are POSIX")
@pytest.mark.parametrize("which", ["root", FORMAT, RESULTS_FORMAT])
@pytest.mark.parametrize("mode, who", [(0o777, "group and others"), (0o770, "group"), (0o702, "others")])
def test_a_directory_others_can_write_is_refused_with_one_warning(cache_dir, project, which, mode, who):
    plant_hiding_entry(cache_dir, project)
    unsafe = cache_dir if which == "root" else cache_dir / which
    unsafe.chmod(mode)
    result = CliRunner().invoke(cli, ["check", "--quiet"])
    assert result.exit_code == 1 and "MM001" in result.stdout
    assert (
        result.stderr == f"mmlint: warning: not using the cache at {unsafe}: it is writable by {who} (mode {mode:o})\n"
    )


@pytest.mark.skipif(os.name != "posix", reason="owner and mode are POSIX")
def test_a_foreign_owned_directory_is_refused(cache_dir, project, monkeypatch):
    plant_hiding_entry(cache_dir, project)
    monkeypatch.setattr(os, "geteuid", lambda: os.stat(cache_dir).st_uid + 1)
    result = CliRunner().invoke(cli, ["check"])
    assert result.exit_code == 1 and "MM001" in result.stdout
    assert result.stderr.count("mmlint: warning: not using the cache at") == 1
    assert "it is owned by uid" in result.stderr


@pytest.mark.skipif(os.name != "posix", reason="owner and mode are POSIX")
def test_refused_directory_gets_nothing_written_and_warns_once_per_fix_run(cache_dir, project):
    cache_dir.mkdir(mode=0o700)
    cache_dir.chmod(0o777)
    result = CliRunner().invoke(cli, ["fix"])  # fixes, then scans again: two scans
    assert "await self.process_and_combine_mm_data_async(" in (project / "p.py").read_text()
    assert result.stderr.count("mmlint: warning: not using the cache") == 1, result.stderr
    assert list(cache_dir.iterdir()) == []


def test_a_new_cache_directory_is_private(cache_dir, project):
    check(cwd=project)
    if os.name == "posix":
        assert cache_dir.stat().st_mode & 0o077 == 0 and (cache_dir / FORMAT).stat().st_mode & 0o077 == 0


def test_clean_removes_the_entries_and_says_how_much(cache_dir, project):
    check(cwd=project)
    old_format = cache_dir / "facts-v1" / "ab"
    old_format.mkdir(parents=True)
    (old_format / ("ab" + "0" * 62)).write_bytes(b"x" * 100)
    unrelated = cache_dir / "notes.txt"
    unrelated.write_text("mine")
    stray = cache_dir / FORMAT / "ab" / "not-an-entry"
    stray.parent.mkdir(exist_ok=True)
    stray.write_text("mine too")
    size = sum(p.stat().st_size for p in entries(cache_dir)) - len("mine") - len("mine too")
    result = CliRunner().invoke(cli, ["clean"])
    assert result.exit_code == 0
    assert (
        result.stdout == f"Removed 2 cache entries ({size / 1024:.1f} KiB) from {cache_dir}\n"
        or result.stdout == f"Removed 2 cache entries ({size} bytes) from {cache_dir}\n"
    )
    assert sorted(entries(cache_dir)) == [stray, unrelated]
    assert not (cache_dir / "facts-v1").exists()
    again = CliRunner().invoke(cli, ["clean"])
    assert again.exit_code == 0 and again.stdout == f"Nothing to clean in {cache_dir}\n"


def test_clean_without_a_cache_directory(cache_dir):
    result = CliRunner().invoke(cli, ["clean"])
    assert result.exit_code == 0 and result.stdout == f"Nothing to clean in {cache_dir}\n"
    assert not cache_dir.exists()


def fill(directory: Path, count: int, size: int) -> list[Path]:
    """Entries with mtimes one minute apart, oldest first."""
    made = []
    now = time.time()
    for number in range(count):
        path = directory / "00" / f"{number:064x}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * size)
        os.utime(path, (now - 3600 + number * 60,) * 2)
        made.append(path)
    return made


def test_the_cap_prunes_the_least_recently_used_entries(cache_dir, project, monkeypatch):
    monkeypatch.setenv("MMLINT_CACHE_MAX_MB", str(10_000 / (1024 * 1024)))  # 10,000 bytes
    made = fill(cache_dir / FORMAT, 10, 1500)  # 15,000 bytes: over
    check(cwd=project)  # stores one entry, then prunes down to 8,000 bytes
    left = entries(cache_dir)
    assert sum(p.stat().st_size for p in left) <= 8_000
    assert [p for p in made if p in left] == made[-len([p for p in made if p in left]) :]  # the newest stay
    assert any(entry_fields(p)[0] == FORMAT for p in left if p not in made)  # and this run's


def test_a_run_of_hits_does_not_prune(cache_dir, project, monkeypatch):
    check(cwd=project)
    # 4,096 bytes: over it with the fillers, not with the one real entry (an
    # entry larger than the whole cap is never read: mmlint.core.safe_read).
    monkeypatch.setenv("MMLINT_CACHE_MAX_MB", str(4 / 1024))
    fill(cache_dir / FORMAT, 3, 4000)
    check(cwd=project)
    assert len(entries(cache_dir)) == 4


def test_a_hit_refreshes_an_old_entrys_time(cache_dir, project):
    check(cwd=project)
    [entry] = entries(cache_dir)
    os.utime(entry, (0, 0))
    check(cwd=project)
    assert time.time() - entry.stat().st_mtime < 3600


@pytest.mark.parametrize("value", ["abc", "0", "-5", "inf"])
def test_a_bad_size_cap_is_a_warning_and_an_uncached_run(cache_dir, project, monkeypatch, value):
    monkeypatch.setenv("MMLINT_CACHE_MAX_MB", value)
    result = CliRunner().invoke(cli, ["check"])
    assert result.exit_code == 1 and "MM001" in result.stdout
    assert result.stderr == (
        f"mmlint: warning: not using the cache at {cache_dir}: "
        f"MMLINT_CACHE_MAX_MB must be a positive number of MiB, not {value!r}\n"
    )
    assert entries(cache_dir) == []


def _forged_results(cache_dir: Path, project: Path) -> list[Path]:
    """Overwrite the stored findings of a run with "nothing found", as someone
    who can compute the run key (all its inputs are public) but lacks the key
    file would: unsigned, or signed with a guessed key."""
    import hashlib
    import hmac

    first = CliRunner().invoke(cli, ["check", "--quiet"])
    assert first.exit_code == 1 and "MM001" in first.stdout
    stored = sorted(p for p in (cache_dir / RESULTS_FORMAT).rglob("*") if p.is_file())
    assert len(stored) == 1
    nothing = RunResults((), (), 0, True)
    signed = pickle.dumps((RESULTS_FORMAT, stored[0].name, nothing), pickle.HIGHEST_PROTOCOL)
    return [
        stored[0],
        unsigned_entry((RESULTS_FORMAT, stored[0].name, nothing)),
        hmac.new(b"guess", signed, hashlib.sha256).hexdigest().encode() + signed,
    ]


@pytest.mark.parametrize("variant", [1, 2])
def test_a_planted_results_entry_is_ignored_and_the_findings_reported(cache_dir, project, variant):
    entry, *forgeries = _forged_results(cache_dir, project)
    entry.write_bytes(forgeries[variant - 1])
    result = CliRunner().invoke(cli, ["check"])
    assert result.exit_code == 1 and "MM001" in result.stdout and "All checks passed" not in result.stdout


def test_the_key_file_is_private_and_refused_when_it_is_not(cache_dir, project):
    from mmlint.check.cache import KEY_FILE

    check(cwd=project)
    key = cache_dir / KEY_FILE
    if os.name == "posix":
        assert key.stat().st_mode & 0o777 == 0o600
        key.chmod(0o644)
        result = CliRunner().invoke(cli, ["check", "--quiet"])
        assert result.exit_code == 1 and "MM001" in result.stdout
        assert (
            result.stderr
            == f"mmlint: warning: not using the cache at {cache_dir}: its key file is open to group or others (mode 644)\n"
        )


@pytest.mark.parametrize("where", ["scanned", "repository"])
def test_a_cache_inside_the_checked_tree_is_not_used(tmp_path, project, monkeypatch, where):
    """A CI job pointing the cache into the checkout lets the code under check
    write it, key file and all: such a cache is refused."""
    (project / ".git").mkdir()
    (project / "src").mkdir()
    (project / "p.py").rename(project / "src" / "p.py")
    inside = project / ".mmlint-cache"
    monkeypatch.setenv("MMLINT_CACHE_DIR", str(inside))
    monkeypatch.delenv("MMLINT_NO_CACHE", raising=False)
    args = ["check", "src"] if where == "repository" else ["check"]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 1 and "MM001" in first.stdout
    assert first.stderr == (
        f"mmlint: warning: not using the cache at {inside}: it lies inside {project}, "
        "which this run checks and could have written it\n"
    )
    assert not inside.exists()


def test_a_runs_formats_walk_the_cache_once(cache_dir, project, monkeypatch):
    """Facts and findings are stored by one run one after another: the first
    to finish measures the cache, the other adds what it stored to that
    measurement instead of walking every entry again."""
    walks = []
    real_prune = cache_module.prune
    monkeypatch.setattr(cache_module, "prune", lambda *a, **k: walks.append(a) or real_prune(*a, **k))
    result = CliRunner().invoke(cli, ["check", "--exit-zero", "."])
    assert result.exit_code == 0, result.output
    stored = {entry_fields(p)[0] for p in entries(cache_dir)}
    assert stored >= {FORMAT, RESULTS_FORMAT}, stored
    assert len(walks) == 1


def test_a_measurement_over_the_cap_or_too_old_is_walked_again(cache_dir, project, monkeypatch):
    walks = []
    real_prune = cache_module.prune
    monkeypatch.setattr(cache_module, "prune", lambda *a, **k: walks.append(a) or real_prune(*a, **k))
    check(cwd=project)
    assert len(walks) == 1
    (project / "p.py").write_text(SOURCE + "\n# changed\n")
    monkeypatch.setattr(cache_module._MeasuredSizes, "MEASURE_SECONDS", 0.0)
    check(cwd=project)  # stores the changed file's facts: the measurement is too old to trust
    assert len(walks) == 2
    monkeypatch.setattr(cache_module._MeasuredSizes, "MEASURE_SECONDS", 3600.0)
    monkeypatch.setenv("MMLINT_CACHE_MAX_MB", str(1 / 1024))  # 1,024 bytes: what was measured is over it
    (project / "p.py").write_text(SOURCE + "\n# changed again\n")
    check(cwd=project)
    assert len(walks) == 3
    assert sum(p.stat().st_size for p in entries(cache_dir)) <= 1024 or len(entries(cache_dir)) <= 1
