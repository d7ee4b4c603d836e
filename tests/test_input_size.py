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
        ("input_ids", ""),
        ("url", ""),
        ("key", ""),
        ("valid", ""),
        ("request.body", ""),
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
    lines = {d.span.line for d in report.diagnostics if d.path == "fpkg/digests.py"}
    assert lines == {14, 23, 38, 45, 61}
