"""Identifiers are compared as Python compares them, NFKC-normalised (PEP 3131):
`self.process_and_combine_mm_dａta(x)` (a fullwidth `a`) calls the sync twin."""

from __future__ import annotations

import json

from cli_support import CliRunner

from mmlint.check.prefilter import Prefilter
from mmlint.cli import cli
from mmlint.config.settings import DEFAULT_TWINS

FILES = {
    # The only twin call is spelled with a fullwidth `a`, in an async def.
    "clip.py": "class Clip:\n    async def process(self, x):\n        return self.process_and_combine_mm_dａta(x)\n",
    # No ASCII twin name and no async def: the prefilter must still let it through.
    "module_level.py": "items = processor.process_and_combine_mm_dａta(1)\n",
    # A blocking call spelled with a fullwidth `e`.
    "sleepy.py": "import time\n\nasync def wait():\n    time.slｅep(1)\n    await other()\n",
    # Resolution: a package twin pair defined with one spelling and called with another.
    "resize.py": (
        "import asyncio\n\n\nclass Resizer:\n    def ｒesize(self, image):\n        return image\n\n"
        "    async def resize_async(self, image):\n        return await asyncio.to_thread(self.resize, image)\n\n"
        "    async def handle(self, image):\n        await asyncio.sleep(0)\n        return self.resｉze(image)\n"
    ),
    # A configured twin written with a fullwidth `a` in the configuration.
    "audio.py": "class A:\n    async def run(self, x):\n        await self.encode_audio_async(x)\n        return self.encode_audio(x)\n",
}


def _tree(tmp_path, monkeypatch):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mmlint]\n[[tool.mmlint.twins]]\nsync = "encode_ａudio"\nasync = "encode_ａudio_async"\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))


def test_compatibility_spellings_are_the_same_names(tmp_path, monkeypatch):
    _tree(tmp_path, monkeypatch)
    result = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "json", "--select", "MM001,MM002,MM005,MM010"])
    found = {(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)["diagnostics"]}
    assert found == {
        ("clip.py", 3, 16, "MM001"),
        ("module_level.py", 1, 9, "MM001"),
        ("module_level.py", 1, 9, "MM002"),
        ("sleepy.py", 4, 5, "MM005"),
        ("resize.py", 13, 16, "MM010"),
        ("audio.py", 4, 16, "MM001"),
    }, result.output


def test_fix_rewrites_a_compatibility_spelling(tmp_path, monkeypatch):
    _tree(tmp_path, monkeypatch)
    result = CliRunner().invoke(cli, ["fix", "--no-cache", "clip.py"])
    assert result.exit_code == 0, result.output
    assert (
        (tmp_path / "clip.py")
        .read_text(encoding="utf-8")
        .endswith("        return await self.process_and_combine_mm_data_async(x)\n")
    )


def test_the_prefilter_normalises_only_text_that_needs_it():
    prefilter = Prefilter(DEFAULT_TWINS)
    assert prefilter.could_hold_finding(FILES["module_level.py"].encode())
    # Chinese prose with fullwidth punctuation is no identifier: still skipped unparsed.
    assert not prefilter.could_hold_finding("# 中文注释，（全角）：ＯＫ\nx = 1\n".encode())
    assert not prefilter.could_hold_finding("x = 'ｆｕｌｌｗｉｄｔｈ'\n".encode())


def test_a_name_whose_normal_form_is_longer_moves_no_position(tmp_path, monkeypatch):
    # `ﬁ` (a ligature) is `fi` to Python: were it rewritten, every column after it would move.
    (tmp_path / "lig.py").write_text(
        "class P:\n    async def f(self, x):\n        ﬁ = self.process_and_combine_mm_data(x)\n        return ﬁ\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    result = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "json", "--select", "MM001"])
    [found] = json.loads(result.stdout)["diagnostics"]
    assert (found["line"], found["column"]) == (3, 13)
    fixed = CliRunner().invoke(cli, ["fix", "--no-cache"])
    assert fixed.exit_code == 0, fixed.output
    assert "        ﬁ = await self.process_and_combine_mm_data_async(x)\n" in (tmp_path / "lig.py").read_text(
        encoding="utf-8"
    )
