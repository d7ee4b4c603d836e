"""Fixture projects for mmlint confirm, written under a temporary directory,
and a real `python -m pytest` run of their tests with the plugin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

WORKTREE = Path(__file__).resolve().parent.parent

# Real blocking work, in shapes mmlint reports today (tokenizer and image calls
# by their receivers' names, a file read, sync HTTP, a sleep; the resize in a
# scanned helper, so the wrapped callee is the helper).
SERVICE = """\
import asyncio
import time
import urllib.request
import zlib
from pathlib import Path

from svc import numeric


def shrink(img):
    return img.resize((img.width // 3, img.height // 3), resample=3)


async def nap(seconds):
    time.sleep(seconds)
    await asyncio.sleep(0)


async def warm_cache(seconds):
    time.sleep(seconds)


async def read_blob(path):
    data = Path(path).read_bytes()
    await asyncio.sleep(0)
    return len(data)


async def thumbnail(img):
    small = shrink(img)
    await asyncio.sleep(0)
    return small.size


async def count_tokens(tokenizer, text):
    ids = tokenizer.encode(text).ids
    await asyncio.sleep(0)
    return len(ids)


async def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        body = response.read()
    await asyncio.sleep(0)
    return body


async def pack(data):
    packed = zlib.compress(data)
    await asyncio.sleep(0)
    return packed


async def nap_offloaded(seconds):
    await asyncio.to_thread(time.sleep, seconds)


async def crunch(n):
    total = numeric.sum_squares(n)
    await asyncio.sleep(0)
    return total


async def never_tested(seconds):
    time.sleep(seconds)
    await asyncio.sleep(0)
"""

NUMERIC = """\
def sum_squares(n):
    total = 0
    for i in range(n):
        total += i * i
    return total
"""

TESTS = """\
import http.server
import threading
import time

import pytest

from svc import work


async def test_nap():
    await work.nap(0.06)


async def test_warm_cache():
    await work.warm_cache(0.05)


async def test_read_blob(tmp_path):
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"x" * (64 << 20))
    assert await work.read_blob(blob) == 64 << 20


async def test_thumbnail():
    from PIL import Image

    assert await work.thumbnail(Image.new("RGB", (2400, 2400), (10, 20, 30))) == (800, 800)


async def test_count_tokens():
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {f"w{i}": i for i in range(1000)}
    vocab["[UNK]"] = 1000
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    text = " ".join(f"w{i % 1000}" for i in range(60_000))
    assert await work.count_tokens(tokenizer, text) == 60_000


class SlowHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(0.06)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


async def test_fetch():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SlowHandler)
    server.timeout = 5
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert await work.fetch(f"http://127.0.0.1:{server.server_port}/") == b"ok"
    finally:
        server.shutdown()
        server.server_close()


async def test_pack():
    assert await work.pack(b"tiny")


async def test_nap_offloaded():
    await work.nap_offloaded(0.06)


async def test_crunch():
    await work.crunch(1_500_000)
"""

UVLOOP_CONFTEST = """\
import pytest
import uvloop


@pytest.fixture(scope="session")
def event_loop_policy():
    return uvloop.EventLoopPolicy()
"""

PYPROJECT = """\
[tool.mmlint]
paths = ["svc"]

[tool.pytest.ini_options]
asyncio_mode = "auto"
asyncio_default_fixture_loop_scope = "function"
"""


def write_service(root: Path, *, uvloop: bool = False, tests: str = TESTS) -> Path:
    (root / "svc").mkdir(parents=True)
    (root / "svc" / "__init__.py").write_text("")
    (root / "svc" / "work.py").write_text(SERVICE)
    (root / "svc" / "numeric.py").write_text(NUMERIC)
    (root / "tests").mkdir()
    (root / "tests" / "test_svc.py").write_text(tests)
    if uvloop:
        (root / "tests" / "conftest.py").write_text(UVLOOP_CONFTEST)
    (root / "pyproject.toml").write_text(PYPROJECT)
    return root


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(WORKTREE), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def run_pytest(root: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "mmlint.confirm.plugin", "-p", "no:cacheprovider", "-q", *args],
        cwd=root,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_mmlint(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mmlint", *args],
        cwd=root,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def confirmed_report(root: Path, name: str = "mmlint-confirm.json") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / name).read_text())
    return data


def by_def(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Findings keyed by (code, enclosing def) — the key's middle."""
    return {(f["code"], f["key"].split(":")[-2]): f for f in report["findings"]}


def dedent(text: str) -> str:
    return textwrap.dedent(text)
