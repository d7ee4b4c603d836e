"""Discovery hands each file its settings once: every later stage (reading,
the prefilter, the per-file pass, the findings, the filters, the scopes)
carries them, so a run asks the configuration resolver once per file."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from mmlint.check.engine import run_check
from mmlint.config.resolve import ConfigResolver

SOURCE = """\
import time


class P(BaseMultimodalProcessor):
    async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
        time.sleep(1)
        return self.process_and_combine_mm_data(image_data, self.mm_tokens)
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Two configurations (one nested), analysed files and prefiltered ones."""
    root = tmp_path / "proj"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "other").mkdir()
    (root / "pyproject.toml").write_text("[tool.mmlint]\nmin-call-sites = 1\n", encoding="utf-8")
    (root / "pkg" / "sub" / "mmlint.toml").write_text("min-call-sites = 2\n", encoding="utf-8")
    for relative in ("a.py", "pkg/b.py", "pkg/sub/c.py", "other/d.py"):
        (root / relative).write_text(SOURCE, encoding="utf-8")
    for relative in ("plain.py", "pkg/plain.py", "pkg/sub/plain.py"):
        (root / relative).write_text("x = 1\n", encoding="utf-8")
    return root


def _count_lookups(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Each lookup from outside the resolver, by the file it is about: a
    file's own, or its directory's (which answers for every file directly in it)."""
    asked: Counter[str] = Counter()
    depth = [0]
    for name in ("settings_for", "settings_for_directory"):
        real = getattr(ConfigResolver, name)

        def counted(self: ConfigResolver, path: Path, _real=real, _name=name) -> object:
            if depth[0] == 0:
                asked[f"{_name}:{os.path.abspath(path)}"] += 1
            depth[0] += 1
            try:
                return _real(self, path)
            finally:
                depth[0] -= 1

        monkeypatch.setattr(ConfigResolver, name, counted)
    return asked


def _per_file(asked: Counter[str], files: list[Path]) -> dict[str, int]:
    per_file = {}
    for path in files:
        own = asked[f"settings_for:{path}"]
        directory = asked[f"settings_for_directory:{path.parent}"]
        per_file[path.name if path.parent.name == "proj" else f"{path.parent.name}/{path.name}"] = own + directory
    return per_file


@pytest.mark.parametrize("named", [False, True])
@pytest.mark.parametrize("use_cache", [False, True])
def test_a_run_asks_the_resolver_once_per_file(
    tree: Path, monkeypatch: pytest.MonkeyPatch, named: bool, use_cache: bool
) -> None:
    resolver = ConfigResolver(tree)
    files = sorted(path for path in tree.rglob("*.py"))
    asked = _count_lookups(monkeypatch)
    paths = [path.relative_to(tree) for path in files] if named else None
    report = run_check(paths, resolver, tree, use_cache=use_cache, findings_only=use_cache)
    assert report.files_scanned == len(files)
    assert report.diagnostics  # the analysed files were analysed
    assert set(_per_file(asked, files).values()) == {1}, _per_file(asked, files)
