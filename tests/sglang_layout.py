"""A checkout shaped like sglang's, for tests of the README's recipes and the
GitHub Action: ``python/pyproject.toml`` holding the README's configuration
block, the fixture processors as ``python/sglang/srt/multimodal``, and code
outside the configured paths that would be reported if it were scanned."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
FIXTURE_PACKAGE = REPO / "fixtures" / "processors" / "mmproc"
MULTIMODAL = "python/sglang/srt/multimodal"


def configuration_block() -> str:
    """The ```toml block under the README's "Configuration" heading."""
    section = README[README.index("## Configuration") :]
    return re.search(r"```toml\n(.*?)```", section, re.S).group(1)


def make_sglang_layout(root: Path) -> Path:
    shutil.copytree(FIXTURE_PACKAGE, root / MULTIMODAL, ignore=shutil.ignore_patterns("__pycache__"))
    block = configuration_block()
    assert block.startswith("# python/pyproject.toml\n")
    (root / "python" / "pyproject.toml").write_text('[project]\nname = "sglang"\nversion = "0"\n\n' + block)
    (root / "python" / "sglang" / "srt" / "server.py").write_text("async def serve():\n    return 1\n")
    (root / "test" / "srt").mkdir(parents=True)
    (root / "test" / "srt" / "test_vlm.py").write_text(
        "async def test_roundtrip(proc):\n    return proc.process_and_combine_mm_data(1, 2)\n"
    )
    return root
