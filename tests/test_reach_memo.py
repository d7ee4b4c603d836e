"""The reach's memo (mmlint.check.reach_memo): a run over the same files
follows again only the names of files whose bytes changed, and what it
finds is what a run without the memo finds, whatever the edit."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reach_support import followed_files

from mmlint.api import check
from mmlint.check.cache import FactsCache
from mmlint.check.reach_memo import REACH_MEMO, ReachMemo, decode_memo, encode_memo

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "reach"
FILES = sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py"))

# Edits as people make them: a comment, a new helper, a new call in an async
# def of a name some module defines, an import that leads elsewhere, a def removed.
EDITS = {
    "comment": lambda text: text + "\n# edited\n",
    "helper": lambda text: text + "\n\ndef added_helper():\n    import time\n    time.sleep(1)\n",
    "async call": lambda text: text
    + "\n\nasync def added_route():\n    from rpkg import state\n    state.check_alive()\n    added_helper()\n",
    "import": lambda text: "from rpkg.net import wire\n" + text + "\n\ndef added_probe():\n    return wire.poll()\n",
    "emptied": lambda text: "",
}


def facts_and_findings(package: Path) -> tuple[object, ...]:
    report = check(cwd=package)
    return (
        tuple(d.sort_key for d in report.diagnostics),
        tuple((d.code, d.message, d.chain) for d in report.diagnostics),
        {shown: facts for shown, facts in report.project.files.items()},
    )


def copy_of(tmp_path: Path, name: str) -> Path:
    copy = tmp_path / name / "reach"
    shutil.copytree(PACKAGE, copy)
    return copy


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=st.sampled_from(FILES), second=st.sampled_from(FILES), edits=st.lists(st.sampled_from(sorted(EDITS)), min_size=2, max_size=2))
def test_a_run_with_the_memo_finds_what_a_run_without_it_finds(tmp_path_factory, monkeypatch, first, second, edits) -> None:
    """Two edits in a row, each followed by a run with the memo of the run
    before it and a run with an empty cache: the same facts reached, the
    same findings with the same chains."""
    scratch = tmp_path_factory.mktemp("memo")
    package = copy_of(scratch, "package")
    monkeypatch.setenv("MMLINT_CACHE_DIR", str(scratch / "cache"))
    check(cwd=package)  # fills the cache and the memo
    for shown, edit in zip((first, second), edits):
        path = package / shown
        path.write_text(EDITS[edit](path.read_text("utf-8")), "utf-8")
        monkeypatch.setenv("MMLINT_CACHE_DIR", str(scratch / "cache"))
        remembered = facts_and_findings(package)
        monkeypatch.setenv("MMLINT_CACHE_DIR", str(scratch / f"fresh-{shown.replace('/', '-')}-{edit}"))
        assert remembered == facts_and_findings(package), (shown, edit)


def test_only_the_changed_files_names_are_followed_again(tmp_path: Path, monkeypatch) -> None:
    package = copy_of(tmp_path, "package")
    monkeypatch.setenv("MMLINT_CACHE_DIR", str(tmp_path / "cache"))
    followed = followed_files(monkeypatch)
    check(cwd=package)
    assert "rpkg/service.py" in followed and "rpkg/state.py" in followed
    followed.clear()
    check(cwd=package)  # nothing changed: every step remembered
    assert followed == []
    service = package / "rpkg" / "service.py"
    service.write_text(service.read_text("utf-8") + "\n# edited\n", "utf-8")
    check(cwd=package)
    assert set(followed) == {"rpkg/service.py"}  # its bytes changed; the modules it leads to did not


def test_a_new_file_starts_a_memo_of_its_own(tmp_path: Path, monkeypatch) -> None:
    """Which files the scan holds decides what a name denotes: a memo made
    with other files is not used."""
    package = copy_of(tmp_path, "package")
    monkeypatch.setenv("MMLINT_CACHE_DIR", str(tmp_path / "cache"))
    check(cwd=package)
    (package / "rpkg" / "net" / "extra.py").write_text("def poll():\n    return 1\n", "utf-8")
    loaded: list[ReachMemo | None] = []
    real = FactsCache.load_reach_memo

    def recorded(self: FactsCache, key: str) -> ReachMemo | None:
        loaded.append(real(self, key))
        return loaded[-1]

    monkeypatch.setattr(FactsCache, "load_reach_memo", recorded)
    check(cwd=package)
    assert loaded == [None]


def test_a_memo_not_of_its_shape_is_a_miss(tmp_path: Path) -> None:
    cache = FactsCache(tmp_path)
    memo = ReachMemo(b"i" * 32, {"state": ["rpkg/state.py"]}, {"rpkg/state.py": (b"d" * 32, {"check_alive": (None, (), ())})})
    key = cache.key(b"i" * 32, Path("x"), "x", REACH_MEMO)
    cache.store_reach_memo(key, memo)
    assert cache.load_reach_memo(key) == memo
    assert decode_memo(encode_memo(memo)) == memo
    for bad in [
        (b"i", {}, {"f": (b"d", {"n": ("g", ("a",), (("f",),))})}),  # a pair of one
        (b"i", {}, {"f": (b"d", {"n": ("g", "a", ())})}),  # names not a tuple
        (b"i", {"x": "f"}, {}),  # an index entry not a list
        ("i", {}, {}),
        (b"i", {}),
    ]:
        with pytest.raises(ValueError):
            decode_memo(bad)
        cache._store_payload(key, lambda bad=bad: bad)
        assert cache.load_reach_memo(key) is None
