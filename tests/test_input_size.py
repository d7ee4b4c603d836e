"""Inputs short by construction (issue 40, mmlint.facts.input_size): a call
whose cost grows with its input is light when every positional argument is
built from literals, names short by their meaning, or a value tested to be
an http(s) URL; anything else stays of unknown size."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from mmlint.api import check
from mmlint.facts.collect import collect_facts
from mmlint.facts.input_size import short_meaning
from mmlint.facts.model import FileFacts

FINDINGS = Path(__file__).resolve().parent.parent / "fixtures" / "findings"


def _facts(source: str, tmp_path: Path) -> FileFacts:
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    return collect_facts(cst.parse_module(source), path, "m.py", ())


def _judged(source: str, tmp_path: Path) -> dict[int, tuple[bool, str]]:
    """(bounded_input, input_bound) of each `hashlib`, `base64` or tokenizer
    call, by line, from the sync defs' and the async defs' calls alike."""
    facts = _facts(source, tmp_path)
    found: dict[int, tuple[bool, str]] = {}
    for sync in facts.sync_defs:
        lines = iter(_lines(source, sync.line))
        for call in sync.calls:
            if call.dotted.startswith(("hashlib.", "base64.")) or "tokenizer" in call.dotted:
                found[next(lines)] = (call.bounded_input, call.input_bound)
    for info in facts.async_defs:
        for fact in info.calls:
            if fact.dotted.startswith(("hashlib.", "base64.")) or "tokenizer" in fact.dotted:
                found[fact.span.line] = (fact.bounded_input, fact.input_bound)
    return found


def _lines(source: str, after: int) -> list[int]:
    """The lines after ``after`` that call a sized call, one each (the sync
    defs' CallRefs carry no position)."""
    return [
        number
        for number, line in enumerate(source.splitlines(), 1)
        if number > after and ("hashlib." in line or "base64." in line or "tokenizer." in line)
    ]


def test_identifiers_names_and_paths_are_short_by_their_meaning(tmp_path: Path) -> None:
    source = (
        "import base64, hashlib\n"
        "def f(request, model_name, shard_id, file_path):\n"
        "    a = hashlib.sha256(request.rid.encode())\n"
        "    b = hashlib.md5(f'{model_name}:{shard_id}'.encode())\n"
        "    c = base64.b64encode(file_path.encode('utf-8'))\n"
    )
    judged = _judged(source, tmp_path)
    assert judged[3] == (True, "`request.rid` is an identifier, short by its meaning")
    assert judged[4] == (True, "`model_name` is a name, short by its meaning")
    assert judged[5] == (True, "`file_path` is a file path, short by its meaning")


def test_payloads_urls_keys_and_token_ids_are_of_unknown_size(tmp_path: Path) -> None:
    source = (
        "import hashlib\n"
        "def f(request, url, key, input_ids, prompt):\n"
        "    a = hashlib.sha256(request.body)\n"
        "    b = hashlib.sha256(url.encode())\n"
        "    c = hashlib.sha256(key.encode())\n"
        "    d = self.tokenizer.decode(input_ids)\n"
        "    e = self.tokenizer.encode(prompt)\n"
        "    g = hashlib.new('sha256', request.body)\n"
        "    h = hashlib.sha256(request.rid.encode() + request.body)\n"
    )
    judged = _judged(source, tmp_path)
    assert judged == {line: (False, "") for line in range(3, 10)}


def test_a_value_tested_to_be_an_http_url_is_short_where_the_test_holds(tmp_path: Path) -> None:
    source = (
        "import hashlib\n"
        "async def f(frame, cache, session):\n"
        "    await session.ready()\n"
        "    if cache and isinstance(frame, str) and frame.lower().startswith(('http://', 'https://')):\n"
        "        a = hashlib.sha256(frame.encode('utf-8')).hexdigest()\n"
        "    else:\n"
        "        b = hashlib.sha256(frame.encode('utf-8')).hexdigest()\n"
        "    c = hashlib.sha256(frame.encode('utf-8')).hexdigest()\n"
    )
    judged = _judged(source, tmp_path)
    assert judged[5] == (True, "`frame` is tested to be an http(s) URL")
    assert judged[7] == (False, "") and judged[8] == (False, "")


def test_after_an_early_exit_or_an_assert_the_test_holds(tmp_path: Path) -> None:
    source = (
        "import hashlib\n"
        "def exits(url):\n"
        "    if not url.startswith('https://') or url.endswith('/'):\n"
        "        raise ValueError(url)\n"
        "    return hashlib.sha256(url.encode())\n"
        "def logs(url, log):\n"
        "    if not url.startswith('https://'):\n"
        "        log(url)\n"
        "    return hashlib.sha256(url.encode())\n"
        "def asserts(url):\n"
        "    assert url.startswith(('http://', 'https://'))\n"
        "    return hashlib.sha256(url.encode())\n"
    )
    judged = _judged(source, tmp_path)
    assert judged[5] == (True, "`url` is tested to be an http(s) URL")
    assert judged[9] == (False, "")  # the body does not exit: the rest runs for any url
    assert judged[12] == (True, "`url` is tested to be an http(s) URL")


@pytest.mark.parametrize(
    "test",
    [
        "url.startswith(('http://', 'data:'))",  # a data URL passes it
        "url.startswith('http')",  # not a scheme's prefix
        "url.endswith('https://')",
        "url.startswith(PREFIXES)",  # not a literal
        "other.startswith('https://')",  # another value
    ],
)
def test_other_tests_say_nothing_of_the_size(tmp_path: Path, test: str) -> None:
    source = f"import hashlib\ndef f(url, other):\n    if {test}:\n        return hashlib.sha256(url.encode())\n"
    assert _judged(source, tmp_path)[4] == (False, "")


def test_a_value_assigned_after_the_test_is_of_unknown_size(tmp_path: Path) -> None:
    source = (
        "import hashlib\n"
        "def f(url, fetch):\n"
        "    if url.startswith('https://'):\n"
        "        url = fetch(url)\n"
        "        return hashlib.sha256(url)\n"
        "    return None\n"
    )
    assert _judged(source, tmp_path)[5] == (False, "")


def test_a_local_is_short_when_each_of_its_assignments_is(tmp_path: Path) -> None:
    source = (
        "import hashlib\n"
        "def f(request, items, body):\n"
        "    key = f'{request.model_name}:{request.rid}'\n"
        "    a = hashlib.sha256(key.encode())\n"
        "    mixed = request.rid\n"
        "    if items:\n"
        "        mixed = body\n"
        "    b = hashlib.sha256(mixed.encode())\n"
        "    for looped in items:\n"
        "        c = hashlib.sha256(looped.encode())\n"
        "    label = 'v1-' + 'cache'\n"
        "    d = hashlib.sha256(label.encode())\n"
        "    grown = request.rid\n"
        "    grown += body\n"
        "    e = hashlib.sha256(grown.encode())\n"
    )
    judged = _judged(source, tmp_path)
    assert judged[4] == (True, "`request.model_name` is a name, short by its meaning")
    assert judged[8] == (False, "") and judged[10] == (False, "") and judged[15] == (False, "")
    assert judged[12] == (True, "`label` is built from literals")


def test_a_list_local_may_grow_and_a_tokenizer_call_is_not_judged_by_meaning(tmp_path: Path) -> None:
    """A list display is a literal, but `.extend` grows it; a tokenizer call
    has a fixed cost of its own, made per token (`decode(token_id)` in a loop
    over the output): a short input is no evidence of a light def there."""
    source = (
        "import hashlib, zlib\n"
        "def f(request, token_id, parts):\n"
        "    ids = []\n"
        "    ids.extend(parts)\n"
        "    a = zlib.compress(ids)\n"
        "    b = tokenizer.decode(token_id)\n"
        "    c = self.tokenizer.encode(request.model_name)\n"
        "    d = zlib.compress(request.model_name.encode())\n"
        "    label = f'{PREFIX}-v1'\n"
        "    e = self.tokenizer.encode(label)\n"
    )
    judged = _judged(source, tmp_path)
    assert judged[6] == (False, "") and judged[7] == (False, "")
    assert judged[10] == (True, "`label` is built from literals")  # the source fixes it: any sized call
    calls = [call for call in _facts(source, tmp_path).sync_defs[0].calls if call.dotted == "zlib.compress"]
    assert [call.bounded_input for call in calls] == [False, True]


def test_a_call_on_a_calls_value_does_not_lend_it_its_judgement(tmp_path: Path) -> None:
    """`f(x).g(y)` starts where `f(x)` does: the collector takes each call's
    judgement by its whole span, so `g`'s short input is not `f`'s."""
    source = (
        "import zlib\n"
        "async def f(request, session):\n"
        "    await session.ready()\n"
        "    return zlib.compress(request.body).compress(request.rid)\n"
    )
    calls = {fact.dotted: fact for fact in _facts(source, tmp_path).async_defs[0].calls}
    assert (calls["zlib.compress"].bounded_input, calls["zlib.compress"].input_bound) == (False, "")
    assert calls["<expr>.compress().compress"].input_bound == "`request.rid` is an identifier, short by its meaning"


def test_a_literal_the_source_fixes_keeps_its_own_reading(tmp_path: Path) -> None:
    """`has_bounded_input`'s shapes carry no reason; an f-string of literals is this module's."""
    source = (
        "import hashlib\n"
        "def f():\n"
        "    a = hashlib.sha256(b'fixed')\n"
        "    b = hashlib.sha256(f'{VERSION}-cache'.encode())\n"
    )
    judged = _judged(source, tmp_path)
    assert judged[3] == (True, "")
    assert judged[4] == (True, "its input is built from literals")


def test_the_collector_finds_a_coroutine_calls_judgement_past_wide_characters(tmp_path: Path) -> None:
    """The light tier places a call by characters, as libcst's spans do: a
    non-ASCII character before it on its line shifts ast's byte offsets."""
    source = (
        "import hashlib\n"
        "async def f(request, session):\n"
        "    await session.ready()\n"
        "    label = 'é'; a = hashlib.sha256(request.rid.encode()); b = hashlib.sha256(request.body)\n"
    )
    facts = _facts(source, tmp_path)
    calls = [fact for fact in facts.async_defs[0].calls if fact.dotted == "hashlib.sha256"]
    assert [(fact.bounded_input, fact.input_bound) for fact in calls] == [
        (True, "`request.rid` is an identifier, short by its meaning"),
        (False, ""),
    ]


@pytest.mark.parametrize(
    ("text", "meaning"),
    [
        ("rid", "an identifier"),
        ("self.request_id", "an identifier"),
        ("_model_name", "a name"),
        ("req.output_path", "a file path"),
        ("hostname", "a host name"),
        ("token", "a token"),
        ("request.refresh_token", "a token"),
        ("api_key", "an API key"),
        ("self.openai_api_key", "an API key"),
        ("prompt_tokens", ""),
        ("input_ids", ""),
        ("url", ""),
        ("key", ""),
        ("valid", ""),
        ("request.body", ""),
        ("frames.shape", "an array's shape"),
        ("self.image_dtype", "an array's dtype"),
        ("frames", ""),
    ],
)
def test_short_meaning(text: str, meaning: str) -> None:
    assert short_meaning(text) == meaning


def test_a_bounded_digest_neither_reports_nor_weighs() -> None:
    """fixtures/findings/fpkg/digests.py: `lookup` reaches a digest of a path
    and an identifier (not heavy: no MM003 nor MM005; `.hexdigest()` is not
    known to be cheap, so unknown); `fingerprint` one of the request's body (heavy)."""
    report = check(cwd=FINDINGS)
    weights = report.project.weight(report.settings.heavy_calls)
    by_name = {
        report.project.suspension.defs[key].qualname: weights.weight(key)
        for key in report.project.suspension.defs_by_path["fpkg/digests.py"]
    }
    assert by_name["lookup"] is not None and by_name["lookup"].kind != "heavy"
    assert by_name["fingerprint"] is not None and by_name["fingerprint"].kind == "heavy"
    # A salt a validator bounds: light; one a function only notes: heavy.
    assert by_name["scoped"] is not None and by_name["scoped"].kind != "heavy"
    assert by_name["noted"] is not None and by_name["noted"].kind == "heavy"
    lines = {d.span.line for d in report.diagnostics if d.path == "fpkg/digests.py"}
    assert lines == {14, 23, 38, 45, 61, 93, 107, 114, 137, 141, 145, 165, 174}
    # A digest as short as its def's arguments, directly or through a method
    # passing its parameter on: cheap where the arguments are a token or a key.
    for light in ("revoke", "authorize", "authorize_stripped", "warm_up"):
        assert by_name[light] is not None and by_name[light].kind != "heavy", light
    for heavy in ("checksum", "padded", "audited", "keyed_prompt", "named"):
        assert by_name[heavy] is not None and by_name[heavy].kind == "heavy", heavy


def test_a_length_test_or_a_validator_bounds_a_digest_input(tmp_path: Path) -> None:
    source = (
        "import hashlib\n"
        "def checked(value):\n"
        "    if value is None:\n"
        "        return None\n"
        "    if not isinstance(value, str) or not 1 <= len(value) <= 256:\n"
        "        raise ValueError(value)\n"
        "    return value\n"
        "def scope(salt):\n"
        "    scoped = checked(salt)\n"
        "    return hashlib.sha256(scoped.encode())\n"
        "def exits(payload):\n"
        "    if len(payload) > 4096:\n"
        "        raise ValueError(payload)\n"
        "    return hashlib.sha256(payload.encode())\n"
        "def inside(payload):\n"
        "    if len(payload) <= 64:\n"
        "        return hashlib.sha256(payload.encode())\n"
        "def huge(payload):\n"
        "    if len(payload) > 10_000_000:\n"
        "        raise ValueError(payload)\n"
        "    return hashlib.sha256(payload.encode())\n"
        "def named_bound(payload):\n"
        "    if len(payload) > MAX_TOKEN:\n"
        "        raise ValueError(payload)\n"
        "    return hashlib.sha256(payload.encode())\n"
    )
    judged = _judged(source, tmp_path)
    assert judged[10] == (True, "`checked(...)` returns its argument only when it is at most 256 long")
    assert judged[14] == (True, "`payload` is tested to be at most 4096 long")
    assert judged[17] == (True, "`payload` is tested to be at most 64 long")
    assert judged[21] == (False, "")  # too large a bound to be short
    assert judged[25] == (False, "")  # a constant's value is not read


def test_a_validator_that_does_not_raise_or_returns_another_value_bounds_nothing(tmp_path: Path) -> None:
    source = (
        "import hashlib\n"
        "def warns(value, log):\n"
        "    if len(value) > 256:\n"
        "        log(value)\n"
        "    return value\n"
        "def other(value, fallback):\n"
        "    if len(value) > 256:\n"
        "        raise ValueError(value)\n"
        "    return fallback\n"
        "def a(salt):\n"
        "    return hashlib.sha256(warns(salt, print).encode())\n"
        "def b(salt, big):\n"
        "    return hashlib.sha256(other(salt, big).encode())\n"
    )
    judged = _judged(source, tmp_path)
    assert judged[11] == (False, "")
    assert judged[13] == (False, "")


def _statements(source: str, tmp_path: Path) -> dict[str, bool]:
    """bounded_input of each sqlite statement call of the sync defs, by `def.callee`."""
    facts = _facts(source, tmp_path)
    return {
        f"{sync.name}.{call.dotted.rsplit('.', 1)[-1]}": call.bounded_input
        for sync in facts.sync_defs
        for call in sync.calls
        if call.dotted.rsplit(".", 1)[-1] in ("execute", "fetchone", "fetchall", "commit", "executescript")
    }


@pytest.mark.parametrize(
    ("sql", "one_row"),
    [
        ("SELECT * FROM t WHERE k = ?", True),
        ("select a, b from t where k = :k and j = ? limit 1", True),
        ("SELECT * FROM t AS x WHERE x.k = 'a'", True),
        ("SELECT COUNT(*) FROM t WHERE k = ?", False),
        ("SELECT * FROM t WHERE k > ?", False),
        ("SELECT * FROM t WHERE k = ? OR j = ?", False),
        ("SELECT * FROM t WHERE k LIKE ?", False),
        ("SELECT * FROM t ORDER BY k", False),
        ("SELECT * FROM t WHERE k = ? ORDER BY j", False),
        ("SELECT * FROM t JOIN u ON t.a = u.a WHERE k = ?", False),
        ("SELECT DISTINCT k FROM t WHERE k = ?", False),
        ("SELECT * FROM t WHERE k = (SELECT MAX(k) FROM t)", False),
        ("INSERT INTO t VALUES (?)", False),
    ],
)
def test_a_keyed_select_fetched_by_fetchone_reads_one_row(tmp_path: Path, sql: str, one_row: bool) -> None:
    source = f"def get(conn, k):\n    return conn.execute({sql!r}, (k,)).fetchone()\n"
    assert _statements(source, tmp_path) == {"get.fetchone": one_row, "get.execute": one_row}


def test_pragma_settings_and_a_context_managers_commit_are_no_cost_of_their_own(tmp_path: Path) -> None:
    source = (
        "from contextlib import contextmanager\n"
        "@contextmanager\n"
        "def managed(conn):\n"
        "    conn.execute('PRAGMA journal_mode=WAL')\n"
        "    yield conn\n"
        "    conn.commit()\n"
        "def plain(conn):\n"
        "    conn.execute('PRAGMA wal_checkpoint(TRUNCATE)')\n"
        "    conn.commit()\n"
        "def listed(conn):\n"
        "    conn.executescript(SCHEMA)\n"
        "    return conn.execute('SELECT * FROM t WHERE k = ?', (1,)).fetchall()\n"
    )
    assert _statements(source, tmp_path) == {
        "managed.execute": True,
        "managed.commit": True,
        "plain.execute": False,
        "plain.commit": False,  # not after a context manager's yield: the write is this def's
        "listed.executescript": False,  # a constant is no evidence
        "listed.execute": False,
        "listed.fetchall": False,
    }


def test_a_read_of_a_size_the_source_fixes_is_evidence(tmp_path: Path) -> None:
    source = (
        "def sniff(upload, size):\n"
        "    upload.file.read(4)\n"
        "def magic(upload):\n"
        "    upload.file.read(len(MAGIC))\n"
        "def sized(upload, size):\n"
        "    upload.file.read(size)\n"
        "def whole(upload):\n"
        "    upload.file.read()\n"
        "def huge(upload):\n"
        "    upload.file.read(10_000_000)\n"
    )
    facts = _facts(source, tmp_path)
    judged = {sync.name: call.bounded_input for sync in facts.sync_defs for call in sync.calls if "read" in call.dotted}
    assert judged == {"sniff": True, "magic": True, "sized": False, "whole": False, "huge": False}


def _by_arguments(source: str, tmp_path: Path) -> dict[tuple[str, str], tuple[str, bool]]:
    """(short_arguments, by_arguments) of each call, by (its def's qualname,
    the callee as written); an async def's calls have no by_arguments."""
    facts = _facts(source, tmp_path)
    found = {
        (sync.qualname, call.callee.describe()): (call.short_arguments, call.by_arguments)
        for sync in facts.sync_defs
        for call in sync.calls
    }
    for info in facts.async_defs:
        found.update({(info.qualname, fact.callee.describe()): (fact.short_arguments, False) for fact in info.calls})
    return found


def test_a_digest_of_a_parameter_is_as_short_as_the_callers_argument(tmp_path: Path) -> None:
    source = (
        "import hashlib\n"
        "def hex_digest(data):\n"
        "    return hashlib.sha256(data.encode('utf-8')).hexdigest()\n"
        "def salted(data, salt):\n"
        "    return hashlib.sha256(f'{salt}:{data}'.encode())\n"
        "def padded(data):\n"
        "    data = data * 2\n"
        "    return hashlib.sha512(data)\n"
        "def of_self(self):\n"
        "    return hashlib.md5(self.body)\n"
        "class Keys:\n"
        "    def check(self, key):\n"
        "        return hex_digest(key.strip())\n"
        "    def check_named(self, key):\n"
        "        return hex_digest(data=key)\n"
        "    def check_both(self, key, request):\n"
        "        return hex_digest(key, request.body)\n"
        "async def route(request, keys):\n"
        "    keys.check(request.refresh_token)\n"
        "    keys.check_named(request.api_key.lower())\n"
        "    keys.check_both(request.request_id, request.user_name)\n"
        "    keys.check_prompt(request.prompt_tokens)\n"
    )
    judged = _by_arguments(source, tmp_path)
    assert judged["hex_digest", "hashlib.sha256"] == ("", True)
    assert judged["salted", "hashlib.sha256"] == ("", True)  # an f-string of two parameters
    assert judged["padded", "hashlib.sha512"] == ("", False)  # `data` is assigned in the body
    assert judged["of_self", "hashlib.md5"] == ("", False)  # an attribute of `self`, no parameter
    assert judged["Keys.check", "hex_digest"] == ("", True)  # passes its parameter on
    assert judged["Keys.check_named", "hex_digest"] == ("", False)  # a keyword argument: judged nowhere
    assert judged["Keys.check_both", "hex_digest"] == ("", False)  # `request.body` too
    assert judged["route", "keys.check"] == ("`request.refresh_token` is a token, short by its meaning", False)
    assert judged["route", "keys.check_named"] == ("`request.api_key` is an API key, short by its meaning", False)
    assert judged["route", "keys.check_both"] == ("`request.request_id` is an identifier, short by its meaning", False)
    assert judged["route", "keys.check_prompt"] == ("", False)  # `prompt_tokens`: token ids, no token


def test_a_helpers_own_chain_comes_before_its_arguments_one(tmp_path: Path) -> None:
    """`encode_state` base64-encodes a compression of its parameter: the
    compression is as costly as its callers' arguments, the base64 of its
    value costs here. `output_items`, reached before `pack` (which passes
    `text` on), reaches the base64 whichever def the passes visit first: the
    chains of calls are found before those through arguments."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "m.py").write_text(
        "import base64\n"
        "import zlib\n"
        "def output_items(request, text):\n"
        "    return [pack(request, text, status='done')]\n"
        "def pack(request, text, *, status):\n"
        "    return encode_state(text)\n"
        "def encode_state(text):\n"
        "    return base64.urlsafe_b64encode(zlib.compress(text.encode('utf-8')))\n"
        "async def respond(request):\n"
        "    return output_items(request, request.text)\n",
        encoding="utf-8",
    )
    (tmp_path / "mmlint.toml").write_text("", encoding="utf-8")
    report = check([package], cwd=tmp_path, config=tmp_path / "mmlint.toml", select=["MM005"])
    (found,) = report.diagnostics
    assert found.chain[-1] == "`base64.urlsafe_b64encode`", found.chain


def test_a_display_of_short_values_and_its_json_are_short(tmp_path: Path) -> None:
    """A dict, tuple or list display (issue 40, "none false"), its JSON,
    repr or pickle, is as short as its keys and values: names, a length, an
    array's shape and dtype, another digest's hexdigest()."""
    source = (
        "import hashlib, json, pickle\n"
        "def f(request, frames, first):\n"
        "    a = hashlib.sha256(json.dumps({'m': request.model_name, 'n': len(frames)}).encode())\n"
        "    b = hashlib.blake2b(pickle.dumps((str(frames.dtype), tuple(frames.shape))))\n"
        "    c = hashlib.md5(repr([first.hexdigest(), request.rid]).encode())\n"
        "    d = hashlib.sha256(json.dumps({'m': request.model_name, 'o': request.options}).encode())\n"
        "    e = hashlib.sha256(json.dumps({'m': request.model_name, **request.options}).encode())\n"
        "    g = hashlib.sha256(pickle.dumps((request.model_name, frames.tobytes())))\n"
        "    h = hashlib.sha256(json.dumps({'m': request.model_name}, default=request.encoder).encode())\n"
        "    i = hashlib.sha256(json.dumps(request.model_name or {}).encode())\n"
        "    j = hashlib.sha256(json.dumps([*request.items]).encode())\n"
    )
    judged = _judged(source, tmp_path)
    assert judged[3] == (True, "`request.model_name` is a name, short by its meaning")
    assert judged[4] == (True, "`frames.dtype` is an array's dtype, short by its meaning")
    assert judged[5] == (True, "`first.hexdigest()` is a digest, of a fixed size")
    assert judged[6] == (False, "") and judged[7] == (False, "") and judged[8] == (False, "")
    assert judged[9] == (True, "`request.model_name` is a name, short by its meaning")  # keywords only format it
    assert judged[10] == (True, "`request.model_name` is a name, short by its meaning")
    assert judged[11] == (False, "")


def test_a_display_local_is_short_only_when_nothing_can_grow_it(tmp_path: Path) -> None:
    """A local holding a dict or list display is short when every reading
    of it reads (a subscript, `.get`, `json.dumps`, a digest); an item
    assignment, a method that may add, an alias, a call of another
    function, a closure, or a subscript reaching a display it holds may each
    grow it."""
    source = (
        "import hashlib, json\n"
        "def f(request, keep):\n"
        "    fixed = {'m': request.model_name, 'n': len(request.images)}\n"
        "    label = fixed['m'] if fixed.get('n') else 'none'\n"
        "    a = hashlib.sha256(json.dumps(fixed, sort_keys=True).encode())\n"
        "    assigned = {'m': request.model_name}\n"
        "    assigned['p'] = request.prompt\n"
        "    b = hashlib.sha256(json.dumps(assigned).encode())\n"
        "    updated = {'m': request.model_name}\n"
        "    updated.update(request.options)\n"
        "    c = hashlib.sha256(json.dumps(updated).encode())\n"
        "    aliased = {'m': request.model_name}\n"
        "    other = aliased\n"
        "    other['p'] = request.prompt\n"
        "    d = hashlib.sha256(json.dumps(aliased).encode())\n"
        "    passed = [request.model_name]\n"
        "    keep(passed)\n"
        "    e = hashlib.sha256(json.dumps(passed).encode())\n"
        "    closed = [request.model_name]\n"
        "    later = lambda: closed.append(request.prompt)\n"
        "    g = hashlib.sha256(json.dumps(closed).encode())\n"
        "    nested = ([request.model_name],)\n"
        "    nested[0].append(request.prompt)\n"
        "    h = hashlib.sha256(json.dumps(nested).encode())\n"
        "    text = json.dumps({'m': request.model_name})\n"
        "    i = hashlib.sha256(text.encode())\n"
        "    listed = list(request.names)\n"
        "    j = hashlib.sha256(json.dumps(listed).encode())\n"
    )
    judged = _judged(source, tmp_path)
    assert judged[5] == (True, "`request.model_name` is a name, short by its meaning")
    assert all(judged[line] == (False, "") for line in (8, 11, 15, 18, 21, 24, 28))
    assert judged[26] == (True, "`request.model_name` is a name, short by its meaning")  # a text, no display


def test_a_helpers_display_of_its_parameters_is_judged_at_each_caller(tmp_path: Path) -> None:
    """A helper digesting a display of its parameters is as short as each
    caller's arguments; a caller's display, length or digest is read as its
    names are, a request's options or bytes are not."""
    source = (
        "import hashlib, pickle\n"
        "def layout(model_name, shape, count):\n"
        "    signature = (model_name, tuple(shape), count)\n"
        "    return hashlib.blake2b(pickle.dumps(signature), digest_size=16).hexdigest()\n"
        "def spread(*parts):\n"
        "    return hashlib.blake2b(pickle.dumps(parts)).hexdigest()\n"
        "async def route(request, first):\n"
        "    layout(request.model_name, request.pixels.shape, len(request.pixels))\n"
        "    layout(request.model_name, (3, request.rid), first.hexdigest())\n"
        "    layout(request.model_name, request.pixels.shape, request.pixels.tobytes())\n"
        "    layout(request.model_name, {'o': request.options}, 1)\n"
        "    layout(request.model_name, {**request.options}, 1)\n"
    )
    facts = _facts(source, tmp_path)
    by_def = {sync.qualname: sync for sync in facts.sync_defs}
    assert [call.by_arguments for call in by_def["layout"].calls if call.dotted == "hashlib.blake2b"] == [True]
    assert [call.by_arguments for call in by_def["spread"].calls if call.dotted == "hashlib.blake2b"] == [False]
    (info,) = facts.async_defs
    shorts = [fact.short_arguments for fact in info.calls if fact.dotted == "layout"]
    assert shorts == [
        "`request.model_name` is a name, short by its meaning",
        "`request.model_name` is a name, short by its meaning",
        "",
        "",
        "",
    ]


def test_keys_of_short_values_neither_report_nor_weigh() -> None:
    """fixtures/findings/fpkg/keys.py: each small key is light, each twin
    holding the request's options or bytes, or grown, stays heavy."""
    report = check(cwd=FINDINGS)
    weights = report.project.weight(report.settings.heavy_calls)
    by_name = {
        report.project.suspension.defs[key].qualname: weights.weight(key)
        for key in report.project.suspension.defs_by_path["fpkg/keys.py"]
    }
    for light in ("layout",):
        assert by_name[light] is not None and by_name[light].kind != "heavy", light
    for heavy in ("layout_of_bytes", "layout_of_options"):
        assert by_name[heavy] is not None and by_name[heavy].kind == "heavy", heavy
    lines = {d.span.line for d in report.diagnostics if d.path == "fpkg/keys.py"}
    assert lines == {29, 35, 42, 53, 67, 71}
