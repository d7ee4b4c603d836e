"""MM005 blocking-call-in-async: the default list, imports, futures, patterns."""

from __future__ import annotations

from pathlib import Path

from suspension_support import findings, write_project

SOURCE = """
import asyncio
import subprocess as sp
import urllib.request
from concurrent.futures import Future
from os import system
from time import sleep

import requests


async def blocking(executor, url, cmd, lock):
    async with lock:
        sleep(1)
        requests.get(url)
        urllib.request.urlopen(url)
        sp.run(cmd)
        system(cmd)
        executor.submit(len, url).result()
        pending = executor.submit(len, url)
        pending.result()
        made = Future()
        made.result()


async def fine(executor, url, loop, task):
    await asyncio.sleep(1)
    await asyncio.to_thread(requests.get, url)
    await loop.run_in_executor(executor, sleep, 1)
    task.result()

    def nested():
        sleep(1)

    return nested


def sync_code(url):
    sleep(1)
    return requests.get(url)
"""


def test_default_list_through_imports_and_futures(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"m.py": SOURCE})
    assert [line for _, line, _ in findings(root, "MM005")] == [13, 14, 15, 16, 17, 18, 20, 22]


def test_extend_patterns_with_wildcards(tmp_path: Path) -> None:
    files = {
        "video.py": """
            import decord


            async def frames(path, slots):
                async with slots:
                    reader = decord.VideoReader(path)
                    batch = reader.get_frames_as_tensor([0, 1])
                    other = reader.get_batch([0, 1])
                    return batch, other
        """
    }
    config = 'paths = ["."]\n[blocking-calls]\nextend = ["decord.VideoReader", "*.get_frames_as_tensor"]\n'
    root = write_project(tmp_path / "with", files, config)
    assert [line for _, line, _ in findings(root, "MM005")] == [6, 7]
    root = write_project(tmp_path / "without", files)
    # decord.VideoReader and get_frames_as_tensor are in the default knowledge
    # (image-decoding); `get_batch` on a receiver not named as a reader is opt-in.
    assert [line for _, line, _ in findings(root, "MM005")] == [6, 7]
