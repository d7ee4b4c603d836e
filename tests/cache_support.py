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


def signed_entry(cache_dir, fields) -> bytes:
    """An entry file holding ``fields`` (format, key, value) with the MAC the
    user's own mmlint gives it: what only someone holding the key can write.
    Written out here, not through mmlint's own writer, so a test of what the
    reader accepts does not lean on it."""
    import hashlib
    import hmac
    import pickle

    from mmlint.check.cache import KEY_FILE

    signed = pickle.dumps(tuple(fields), pickle.HIGHEST_PROTOCOL)
    return hmac.new((cache_dir / KEY_FILE).read_bytes(), signed, hashlib.sha256).hexdigest().encode() + signed


def unsigned_entry(fields) -> bytes:
    """The same layout with a MAC of zeros: what someone without the key writes."""
    import pickle

    return b"0" * 64 + pickle.dumps(tuple(fields), pickle.HIGHEST_PROTOCOL)


def entry_fields(path):
    """(format, key, value) of an entry file, its MAC not checked (a test's own cache)."""
    import pickle

    return pickle.loads(path.read_bytes()[64:])
