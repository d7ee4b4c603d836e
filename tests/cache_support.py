"""What the cache tests share: a processor with findings (MM001 and MM003).
Their `cache_dir` fixture is in conftest.py."""

from __future__ import annotations

SOURCE = """\
class P(BaseMultimodalProcessor):
    async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
        return self.process_and_combine_mm_data(image_data, self.mm_tokens)
"""
