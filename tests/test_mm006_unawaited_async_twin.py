"""MM006 unawaited-async-twin: dropped coroutines, and the ways one is kept."""

from __future__ import annotations

from pathlib import Path

from suspension_support import findings, write_project

SOURCE = """
import asyncio


class Proc(Base):
    async def dropped(self, out):
        self.process_and_combine_mm_data_async(out, self.mm_tokens)
        return await self.other()

    async def kept(self, outs):
        first = self.process_and_combine_mm_data_async(outs[0], self.mm_tokens)
        wrapped = asyncio.create_task(self.process_and_combine_mm_data_async(outs[1], self.mm_tokens))
        together = asyncio.gather(*[self.process_and_combine_mm_data_async(o, self.mm_tokens) for o in outs])
        later = self.process_and_combine_mm_data_async(outs[2], self.mm_tokens)
        task = asyncio.ensure_future(later)
        return await first, await wrapped, await together, await task

    async def bound_but_never_awaited(self, out):
        lost = self.process_and_combine_mm_data_async(out, self.mm_tokens)
        return await self.other(lost)

    def factory(self, out):
        return self.process_and_combine_mm_data_async(out, self.mm_tokens)

    def sync_drop(self, out):
        self.process_and_combine_mm_data_async(out, self.mm_tokens)
"""


def test_only_dropped_coroutines_are_reported(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"proc.py": SOURCE})
    assert [line for _, line, _ in findings(root, "MM006")] == [6, 18, 25]
