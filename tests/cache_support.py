"""What the cache tests share: a processor with findings (MM001 and MM003).
Their `cache_dir` fixture is in conftest.py."""

from __future__ import annotations

SOURCE = """\
class P(BaseMultimodalProcessor):
    async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
        return self.process_and_combine_mm_data(image_data, self.mm_tokens)
"""


def cache_entries(cache_dir):
    """Every file of the cache but its key: the entries (and temp files)."""
    from mmlint.check.cache import KEY_FILE

    return sorted(p for p in cache_dir.rglob("*") if p.is_file() and p != cache_dir / KEY_FILE)


def signed_entry(cache_dir, fields: list) -> bytes:
    """An entry file holding ``fields`` (format, key, payload) with the MAC the
    user's own mmlint gives it: what only someone holding the key can write."""
    import hashlib
    import hmac
    import json

    from mmlint.check.cache import KEY_FILE

    signed = json.dumps(fields, separators=(",", ":"))[:-1].encode()
    mac = hmac.new((cache_dir / KEY_FILE).read_bytes(), signed, hashlib.sha256).hexdigest()
    return signed + b',"' + mac.encode() + b'"]'
