"""The build fingerprint every cache key holds (mmlint.check.build_fingerprint):
two builds of mmlint sharing one cache directory never take each other's
entries. Every file of the package is in it, and a run of an altered copy of
the package over a cache an unaltered copy filled reports what the altered
code finds, not what was stored."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cache_support import SOURCE

import mmlint
from mmlint.check import build_fingerprint
from mmlint.check.build_fingerprint import package_digest

PACKAGE = Path(mmlint.__file__).resolve().parent


def _copy_package(root: Path) -> Path:
    """A copy of the package under test at ``root``/mmlint, without bytecode."""
    copy = root / "mmlint"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return copy


def test_every_file_of_the_package_changes_the_digest(tmp_path):
    copy = _copy_package(tmp_path)
    before = package_digest(copy)
    files = sorted(path for path in copy.rglob("*") if path.is_file())
    assert copy / "py.typed" in files and copy / "check" / "cache.py" in files and len(files) > 100
    for path in files:
        original = path.read_bytes()
        path.write_bytes(original + b"\n")
        assert package_digest(copy) != before, path.relative_to(copy)
        path.write_bytes(original[:-1] + bytes([original[-1] ^ 1]) if original else b"x")  # same size
        assert package_digest(copy) != before, path.relative_to(copy)
        path.write_bytes(original)
    assert package_digest(copy) == before


def test_a_file_added_removed_or_renamed_changes_the_digest_and_bytecode_does_not(tmp_path):
    copy = _copy_package(tmp_path)
    before = package_digest(copy)
    (copy / "rules" / "mm099_new.py").write_text("", encoding="utf-8")
    added = package_digest(copy)
    assert added != before
    (copy / "rules" / "mm099_new.py").rename(copy / "rules" / "mm098_new.py")
    assert package_digest(copy) not in (before, added)
    (copy / "rules" / "mm098_new.py").unlink()
    assert package_digest(copy) == before
    (copy / "data.json").write_text("{}", encoding="utf-8")  # a data file counts as code does
    assert package_digest(copy) != before
    (copy / "data.json").unlink()
    (copy / "rules" / "__pycache__").mkdir()
    (copy / "rules" / "__pycache__" / "base.cpython-311.pyc").write_bytes(b"bytecode")
    (copy / "stray.pyc").write_bytes(b"bytecode")
    assert package_digest(copy) == before


def test_an_unreadable_file_is_hashed_by_its_error(tmp_path):
    copy = _copy_package(tmp_path)
    before = package_digest(copy)
    module = copy / "rules" / "base.py"
    module.chmod(0)
    try:
        if os.access(module, os.R_OK):
            pytest.skip("running as a user who reads any file (root)")
        assert package_digest(copy) != before
    finally:
        module.chmod(0o644)


def test_the_fingerprint_holds_the_versions(monkeypatch):
    base = build_fingerprint.build_fingerprint.__wrapped__()
    assert base == build_fingerprint.build_fingerprint()
    monkeypatch.setattr(build_fingerprint, "installed_libcst_version", lambda: "another libcst")
    assert build_fingerprint.build_fingerprint.__wrapped__() != base
    monkeypatch.undo()
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    assert build_fingerprint.build_fingerprint.__wrapped__() != base
    monkeypatch.undo()
    monkeypatch.setattr(build_fingerprint, "package_digest", lambda root: b"another package")
    assert build_fingerprint.build_fingerprint.__wrapped__() != base
    monkeypatch.undo()
    monkeypatch.setattr(build_fingerprint.pickle, "HIGHEST_PROTOCOL", build_fingerprint.pickle.HIGHEST_PROTOCOL + 1)
    assert build_fingerprint.build_fingerprint.__wrapped__() != base  # the protocol the cache writes


def test_every_cache_key_holds_the_fingerprint(monkeypatch, tmp_path):
    from mmlint.check.cache import FactsCache
    from mmlint.check.results import run_key

    def keys() -> tuple[str, str]:
        facts = FactsCache(tmp_path).key(b"0" * 32, tmp_path / "p.py", "p.py", ())
        return facts, run_key([("p.py", tmp_path / "p.py", b"0" * 32)], [], None, tmp_path)

    before = keys()
    monkeypatch.setattr(build_fingerprint, "build_fingerprint", lambda: b"another build")
    after = keys()
    assert all(old != new for old, new in zip(before, after))


def _run(root: Path, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("MMLINT_")}
    env.update(PYTHONPATH=str(root), MMLINT_CACHE_DIR=str(cache), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(
        [sys.executable, *args], cwd=root.parent, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_running_build_is_fingerprinted(tmp_path):
    root = tmp_path / "build"
    copy = _copy_package(root)
    show = ("-c", "from mmlint.check import build_fingerprint as b; print(b.PACKAGE, b.build_fingerprint().hex())")
    first = _run(root, tmp_path / "cache", *show)
    assert first.returncode == 0 and first.stdout.split()[0] == str(copy), first.stderr
    with open(copy / "reporters" / "text.py", "a", encoding="utf-8") as module:
        module.write("\n# another build\n")
    second = _run(root, tmp_path / "cache", *show)
    assert second.stdout.split()[0] == str(copy) and second.stdout != first.stdout


@pytest.mark.parametrize(
    ("module", "old", "new", "finding"),
    [
        # The per-file pass's budgets (a module the facts key once left out):
        # every file is refused, the stored facts of the parse must not answer.
        (
            "check/cost.py",
            "    if cost.memory_mib > budgets.max_file_memory:",
            "    if True:",
            "over the memory budget",
        ),
        # What a rule reports: the stored findings must not answer.
        (
            "rules/mm001_sync_twin_call.py",
            '"sync twin bypasses the worker pool"',
            '"(another build) bypasses the worker pool"',
            "(another build) bypasses",
        ),
    ],
)
def test_another_build_over_the_same_cache_reports_its_own_findings(tmp_path, module, old, new, finding):
    root = tmp_path / "build"
    copy = _copy_package(root)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "p.py").write_text(SOURCE, encoding="utf-8")
    cache = tmp_path / "cache"
    check = ("-m", "mmlint", "check", "--no-color", str(project))

    first = _run(root, cache, *check)
    assert first.returncode == 1 and "MM001" in first.stdout, first.stdout + first.stderr
    assert any(cache.rglob("facts-v*/*/*")), "the first run stored its facts"
    text = (copy / module).read_text(encoding="utf-8")
    assert old in text
    (copy / module).write_text(text.replace(old, new, 1), encoding="utf-8")

    cached = _run(root, cache, *check)
    fresh = _run(root, cache, *check[:3], "--no-cache", *check[3:])
    assert cached.stdout == fresh.stdout and cached.returncode == fresh.returncode, cached.stdout + fresh.stdout
    assert finding in cached.stdout
