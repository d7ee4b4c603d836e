"""The file index (mmlint.check.file_index): `check` after an edit reads again
only the files it cannot tell unchanged by their stat signature, and a file
rewritten behind the signature's back (same size, mtime set back) or within
the timestamps' granularity of its recording is read again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_support import CliRunner

from mmlint.check import file_index, reading
from mmlint.check.cache import INDEX_FORMAT
from mmlint.check.file_index import IndexEntry
from mmlint.cli import cli

PROCESSOR = """\
import requests


async def handle(request):
    return requests.get(request.url, timeout=5)
"""
HELPER = "def helper(value):\n    return value\n"
# The same size as HELPER, and a finding of its own once read.
HELPER_ASYNC = "async def hh(u):\n    open(u).read()\n"


@pytest.fixture
def project(tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "app.py").write_text(PROCESSOR, encoding="utf-8")
    (root / "helper.py").write_text(HELPER, encoding="utf-8")
    (root / "mmlint.toml").write_text("", encoding="utf-8")
    monkeypatch.chdir(root)
    # Files written a moment ago are "racily clean" under the real margin: the
    # tests trust anything written before the run, and test the margin apart.
    monkeypatch.setattr(file_index, "RACY_NS", 0)
    return root


def findings() -> list[str]:
    result = CliRunner().invoke(cli, ["check", "--no-color", "--output-format", "concise", "--exit-zero"])
    assert result.exit_code == 0, result.output
    return [line.split(" ")[0] for line in result.stdout.splitlines() if ": MM" in line]


def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = reading._read_within

    def counted(path: Path, budgets: object) -> bytes:
        seen.append(path.name)
        return real(path, budgets)  # type: ignore[arg-type]

    monkeypatch.setattr(reading, "_read_within", counted)
    return seen


def test_a_file_the_prefilter_rejected_is_not_read_again_after_an_edit(project: Path, monkeypatch) -> None:
    assert findings() == ["app.py:5:12:"]
    seen = reads(monkeypatch)
    (project / "app.py").write_text(PROCESSOR + "# edited\n", encoding="utf-8")
    assert findings() == ["app.py:5:12:"]
    assert "helper.py" not in seen and "app.py" in seen
    assert list((project.parent / "cache" / INDEX_FORMAT).rglob("*")), "no index stored"


def test_a_rewrite_that_keeps_size_and_mtime_is_read_again(project: Path) -> None:
    assert findings() == ["app.py:5:12:"]
    helper = project / "helper.py"
    before = helper.stat()
    assert len(HELPER_ASYNC) == len(HELPER)
    helper.write_text(HELPER_ASYNC, encoding="utf-8")
    os.utime(helper, ns=(before.st_atime_ns, before.st_mtime_ns))  # as `touch -r` or a restoring tool would
    assert helper.stat().st_size == before.st_size and helper.stat().st_mtime_ns == before.st_mtime_ns
    assert findings() == ["app.py:5:12:", "helper.py:2:5:"]  # its ctime moved: read, judged anew


def test_a_damaged_index_is_a_miss_and_the_run_reads_every_file(project: Path, monkeypatch) -> None:
    assert findings() == ["app.py:5:12:"]
    (entry,) = [p for p in (project.parent / "cache" / INDEX_FORMAT).rglob("*") if p.is_file()]
    entry.write_bytes(b"0" * 64 + b"not a pickle")
    seen = reads(monkeypatch)
    (project / "app.py").write_text(PROCESSOR + "# edited\n", encoding="utf-8")
    assert findings() == ["app.py:5:12:"]
    assert sorted(set(seen)) == ["app.py", "helper.py"]


def test_an_entry_is_trusted_only_for_its_signature_and_past_the_margin() -> None:
    second = 1_000_000_000
    signature = (10, 100 * second, 100 * second, 7, 1)
    recorded = IndexEntry(signature, 100 * second + file_index.RACY_NS + 1, b"d")
    assert recorded.trusted(signature)
    assert not recorded.trusted((11, *signature[1:]))  # another size
    assert not recorded.trusted((10, 100 * second, 101 * second, 7, 1))  # written since (ctime)
    assert not recorded.trusted((10, 100 * second, 100 * second, 8, 1))  # another file in its place
    racy = IndexEntry(signature, 100 * second + file_index.RACY_NS, b"d")  # recorded within the margin
    assert not racy.trusted(signature)


def test_a_verdict_is_kept_only_for_the_same_bytes(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("x = 1\n", encoding="utf-8")
    index = file_index.FileIndex(None, [path])
    _, signature, when = index.known(path)
    index.record(path, signature, when, b"one", ("words", False))
    index.record(path, signature, when, b"one")  # the results key's read: no verdict, the old one stays
    assert index._known[os.fspath(path)].verdict("words") is False
    index.record(path, signature, when, b"two")  # other bytes: the verdict was of the old ones
    assert index._known[os.fspath(path)].verdict("words") is None
