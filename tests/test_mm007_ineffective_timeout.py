"""MM007 ineffective-timeout: wait_for and timeout blocks around hollow work."""

from __future__ import annotations

from pathlib import Path

from suspension_support import findings, write_project

FILES = {
    "work.py": """
        import asyncio


        async def decode(path):
            return open(path, "rb").read()


        async def fetch(path):
            return await asyncio.to_thread(decode_sync, path)
    """,
    "use.py": """
        import asyncio
        import asyncio as aio
        from asyncio import timeout, wait_for

        import work
        from work import decode, fetch


        async def main(path, coro):
            await wait_for(decode(path), 1)
            await aio.wait_for(work.decode(path), timeout=1)
            await asyncio.wait_for(fetch(path), 1)
            await asyncio.wait_for(coro, 1)
            await asyncio.wait_for(asyncio.to_thread(len, path), 1)
            async with timeout(1):
                data = await decode(path)
            async with asyncio.timeout(1):
                data = await fetch(path)
            async with asyncio.timeout(1):
                if data:
                    await fetch(path)
            return data
    """,
}


def test_timeouts_around_work_that_never_suspends(tmp_path: Path) -> None:
    root = write_project(tmp_path, FILES)
    assert findings(root, "MM007") == [("use.py", 10, 11), ("use.py", 11, 11), ("use.py", 15, 16)]
