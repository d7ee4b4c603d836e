"""Knowing what the objects are (issue 39), on fixtures/objects: methods
found through bases outside the scan, receivers typed by where their value
comes from, and knowledge keyed on those types. Each shape has a negative
twin in the same file (the same shape where the object is cheap or async)."""

from __future__ import annotations

from pathlib import Path

from expectations import assert_diagnostics_match, expected_findings

from mmlint.api import check

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "objects"
CODES = ("MM001", "MM003", "MM004", "MM005", "MM010")


def _report():
    return check(cwd=PACKAGE)


def test_the_markers_are_exactly_the_findings() -> None:
    assert_diagnostics_match(expected_findings(PACKAGE, PACKAGE), _report().diagnostics, CODES)


def test_a_method_behind_an_unseen_base_is_reported_but_never_rewritten() -> None:
    report = _report()
    fixable = {d.span.line: d.fixable for d in report.diagnostics if d.path == "opkg/mixins.py" and d.code == "MM010"}
    assert fixable == {50: False, 56: True}


def _typed_calls(path: str, function: str) -> dict[str, object]:
    """What each call in ``function`` of ``path`` resolves to, by its callee as written."""
    report = _report()
    resolver = report.project.resolver
    facts = report.project.files[path]
    info = next(info for info in facts.async_defs if info.qualname == function)
    return {
        call.callee.text: resolver.resolve_sync_call(facts, info.class_name, call.callee, None, info.qualname)
        for call in info.calls
    }


def test_builtins_literals_and_containers_are_the_builtins_values() -> None:
    calls = _typed_calls("opkg/containers.py", "collect")
    assert calls["len"].library == ("len::__call__",)
    assert calls["names.append"].library == ("list()::append",)
    assert calls["counts.get"].library == ("dict()::get",)
    assert calls["label.upper"].library == ("str()::upper",)
    # What getattr returns is an object it is given: not a library value.
    unknown = _typed_calls("opkg/containers.py", "run_named")["getattr()"]
    assert not unknown.library and not unknown.targets and "returns an object it is given" in unknown.why


def _sync_calls(path: str, function: str) -> dict[str, object]:
    """As _typed_calls, of a sync def (its calls read by the light tier)."""
    report = _report()
    resolver = report.project.resolver
    facts = report.project.files[path]
    info = next(info for info in facts.sync_defs if info.qualname == function)
    method = info.name if info.class_name else None
    return {
        call.callee.text: resolver.resolve_sync_call(facts, info.class_name, call.callee, method, info.qualname)
        for call in info.calls
    }


def test_a_literal_s_method_is_its_builtin_type_s() -> None:
    calls = _typed_calls("opkg/containers.py", "render")
    assert calls["str().join"].library == ("str()::join",)
    assert calls["line.split"].library == ("str().join()::split",)
    assert calls["bytes().join"].library == ("bytes()::join",)
    assert calls["str().strip"].library == ("str()::strip",)
    assert _sync_calls("opkg/containers.py", "render_sync")["str().join"].library == ("str()::join",)
    # The negative twin: an operator's result is no literal.
    unknown = _typed_calls("opkg/containers.py", "render_sum")["<expr>"]
    assert not unknown.library and not unknown.complete


def test_comprehension_targets_walrus_and_generic_aliases() -> None:
    calls = _typed_calls("opkg/containers.py", "shout")
    assert calls["name.upper"].library == ("str()::upper",)  # an element of `list[str]`
    assert calls["title.strip"].library == ("str()::strip",)  # `title := f"..."`
    assert calls["waiting.put_nowait"].library == ("asyncio.Queue()::put_nowait",)
    assert calls["list[]"].library == ("list::__call__",)
    # The negative twins: elements of an unannotated parameter, an element of os.environ.
    unknown = _typed_calls("opkg/containers.py", "shout_unknown")
    for text in ("name.upper", "first.strip", "os.environ['HOME'].strip"):
        assert not unknown[text].library and not unknown[text].complete, text


def test_super_past_the_scanned_classes_is_the_base_outside_s_member() -> None:
    assert _sync_calls("opkg/supers.py", "Failed.__init__")["__init__"].library == ("Exception()::__init__",)
    # Through a scanned base that does not define it, the same.
    assert _sync_calls("opkg/supers.py", "Loaded.__init__")["__init__"].targets == (("opkg/supers.py", 0),)
    plain = _sync_calls("opkg/supers.py", "Plain.__init__")["__init__"]
    assert plain.complete and not plain.targets and not plain.library  # object's: runs nothing
    # The negative twin: no base defines `close`.
    close = _sync_calls("opkg/supers.py", "Plain.close")["close"]
    assert not close.complete and not close.targets and not close.library


def test_a_def_s_own_import_of_a_library_binds_the_library_s_value() -> None:
    assert _typed_calls("opkg/lazy.py", "LazyTokenizer.encode")["_tokenizer"].library == (
        "transformers.AutoTokenizer.from_pretrained()::__call__",
    )
    assert _typed_calls("opkg/lazy.py", "LazyTokenizer.load_audio")["sf.info"].library == ("soundfile::info",)
    assert _typed_calls("opkg/lazy.py", "decode")["decompress"].library == ("zlib::decompress",)
    # The negative twin: an import of scanned code is looked up as before.
    scanned = _typed_calls("opkg/lazy.py", "LazyTokenizer.render")["render_sync"]
    assert not scanned.library and not scanned.targets and "not bound" in scanned.why


def test_a_member_of_a_base_outside_the_scan_is_that_base_s() -> None:
    calls = _typed_calls("opkg/inherited.py", "Forwarder.forward")
    assert calls["self.http.post"].library == ("requests.Session()::post",)
    assert _typed_calls("opkg/inherited.py", "Forwarder.dump")["payload.model_dump"].library == (
        "pydantic.BaseModel()::model_dump",
    )


def test_a_global_made_by_a_helper_is_typed_by_its_return_annotation() -> None:
    assert _typed_calls("opkg/fetch.py", "fetch")["pool.get"].library == ("requests.Session()::get",)
    assert _typed_calls("opkg/fetch.py", "header")["headers.get"].library == ("dict()::get",)


def test_so_it_is_when_the_run_never_read_the_helper_s_body() -> None:
    # A light-tier module holds only the sync defs some call asked of it
    # (mmlint.check.reach): vLLM's `logger = init_logger(__name__)`.
    from dataclasses import replace

    from mmlint.analysis.resolve import Resolver

    files = dict(_report().project.files)
    files["opkg/sessions.py"] = replace(files["opkg/sessions.py"], sync_defs=())
    resolver = Resolver(files)
    facts = files["opkg/fetch.py"]
    info = next(info for info in facts.async_defs if info.qualname == "fetch")
    call = next(call for call in info.calls if call.callee.text == "pool.get")
    typed = resolver.resolve_sync_call(facts, None, call.callee, None, info.qualname)
    assert typed.library == ("requests.Session()::get",)


def test_a_bases_attribute_seen_from_one_subclass_is_that_subclasss() -> None:
    """`self._tokenizer = self._processor.tokenizer` in a base, seen from a
    subclass that does not replace `_processor`: the parameter's tokenizer,
    called directly (the HF idiom), never a sibling's wrapper
    (fixtures/objects/opkg/receivers.py)."""
    report = _report()
    chains = {d.span.line: d.chain for d in report.diagnostics if d.path == "opkg/receivers.py"}
    assert chains[33] == ("`self._tokenizer`",)
    assert "WrappedProcessor" in " ".join(chains[28])
    plain = _typed_calls("opkg/receivers.py", "PlainProcessor.process")["_tokenizer"]
    assert not plain.targets and "<unknown>.tokenizer::__call__" in plain.library
