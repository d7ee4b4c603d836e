"""Findings a maintainer acts on (issue 19), on fixtures/findings: heavy by
evidence, the built-in knowledge, one finding per root cause, contexts that
must stay coroutines with advice that fits, and the finding fields."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli_support import CliRunner
from expectations import assert_diagnostics_match, expected_findings

from mmlint.api import check
from mmlint.cli import cli
from mmlint.reporters import json_report, sarif, text

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "findings"
CODES = ("MM003", "MM004", "MM005")


def _report():
    return check(cwd=PACKAGE)


def _at(report, path: str, line: int, code: str = "MM003"):
    (found,) = [d for d in report.diagnostics if d.path == path and d.span.line == line and d.code == code]
    return found


def test_defaults_report_exactly_the_markers() -> None:
    assert_diagnostics_match(expected_findings(PACKAGE, PACKAGE), _report().diagnostics, CODES)


def test_a_loop_over_the_input_is_heavy_a_bounded_one_and_an_unresolved_callee_are_not() -> None:
    report = _report()
    assert _at(report, "fpkg/loops.py", 8).reason == "a loop over `candidates` repeats `score(...)`"
    weights = report.project.weight(report.settings.heavy_calls)
    by_name = {
        report.project.suspension.defs[key].qualname: weights.weight(key)
        for key in report.project.suspension.defs_by_path["fpkg/loops.py"]
    }
    assert by_name["label_names"].kind == "unknown" and by_name["fixed_retries"].kind == "unknown"
    assert by_name["delegate"].kind == "unknown" and by_name["delegate"].reason == "score"


def test_the_audit_says_unknown_for_an_unresolved_callee(monkeypatch) -> None:
    monkeypatch.chdir(PACKAGE)
    data = json.loads(CliRunner().invoke(cli, ["audit", "--format", "json", "--no-cache"]).output)
    delegate = next(d for d in data["defs"] if d["qualname"] == "delegate")
    assert delegate["weight"] == "unknown" and "cannot resolve" in delegate["reason"]


def test_import_aliases_resolve_and_awaited_scheduled_or_offloaded_calls_never_match() -> None:
    report = _report()
    lines = {d.span.line for d in report.diagnostics if d.path == "fpkg/knowledge.py"}
    assert 39 in lines and "waits for Ray" in _at(report, "fpkg/knowledge.py", 39, "MM005").message
    assert not lines & {28, 32, 37, 38, 57}  # to_thread, zmq.asyncio, awaited wait, create_task, str.encode


def test_dropping_a_set_by_name_silences_it(tmp_path: Path) -> None:
    config = tmp_path / "mmlint.toml"
    config.write_text(
        'paths = ["."]\n[blocking-calls]\ndrop-sets = ["tokenizers", "chat-templates"]\n', encoding="utf-8"
    )
    report = check([PACKAGE / "fpkg" / "roots.py"], cwd=PACKAGE, config=config)
    assert report.diagnostics == ()


def test_one_root_awaited_from_five_places_is_one_finding() -> None:
    report = _report()
    root = _at(report, "fpkg/roots.py", 5, "MM005")  # the cause: MM003 on line 4 is folded into it
    assert "(it is awaited from 5 places)" in root.help and "awaited" not in root.message
    assert [(r.span.line, r.message) for r in root.related][0] == (4, "`async def render_prompt` never suspends")
    assert sorted(r.span.line for r in root.related[1:]) == [9, 13, 17, 21, 25]
    assert not [d for d in report.diagnostics if d.code in ("MM003", "MM004") and d.path == "fpkg/roots.py"]


def test_one_finding_per_cause_mm003_stays_when_mm005_is_not_reported(tmp_path: Path) -> None:
    report = check(cwd=PACKAGE, select=["MM003", "MM004"])
    root = _at(report, "fpkg/roots.py", 4)
    assert sorted(r.span.line for r in root.related) == [9, 13, 17, 21, 25]
    shutil.copytree(PACKAGE, tmp_path / "findings")
    roots = tmp_path / "findings" / "fpkg" / "roots.py"
    roots.write_text(
        roots.read_text(encoding="utf-8").replace("# expect: MM005", "# mmlint: ignore[MM005]"), encoding="utf-8"
    )
    report = check(cwd=tmp_path / "findings")
    assert [(d.code, d.span.line) for d in report.diagnostics if d.path == "fpkg/roots.py"] == [("MM003", 4)]


def test_each_context_gets_its_advice() -> None:
    report = _report()
    route = _at(report, "fpkg/contexts.py", 19, "MM005")
    assert (
        route.context == "route"
        and "make the route a plain `def` if that work is safe on a worker thread" in route.help
    )
    handler = _at(report, "fpkg/contexts.py", 27, "MM005")
    assert handler.context == "exception handler" and "plain `def`" not in handler.help
    assert "keep it a coroutine (exception handler)" in handler.help
    beat = _at(report, "fpkg/contexts.py", 49, "MM005")
    assert beat.context == "coroutine run on another loop" and "offload `self.tokenizer.encode`" in beat.help
    assert "plain `def`" not in beat.help and "to_thread(self.beat" not in beat.help
    assert _at(report, "fpkg/contexts.py", 60, "MM005").context == "async protocol method"
    assert _at(report, "fpkg/contexts.py", 77, "MM005").context == "override of an async method"


def test_light_contexts_are_not_reported_even_with_report_light(tmp_path: Path) -> None:
    config = tmp_path / "mmlint.toml"
    config.write_text('paths = ["."]\n[fake-async]\nreport-light = true\n', encoding="utf-8")
    report = check([PACKAGE / "fpkg" / "contexts.py"], cwd=PACKAGE, config=config, select=["MM003"])
    assert {d.span.line for d in report.diagnostics} == {18, 26, 48, 59, 76}


def test_json_and_sarif_carry_weight_reason_chain_and_context() -> None:
    report = _report()
    payload = json.loads(json_report.render(report))
    entry = next(
        d
        for d in payload["diagnostics"]
        if d["path"] == "fpkg/contexts.py" and d["line"] == 27 and d["code"] == "MM005"
    )
    assert entry["weight"] == "heavy" and entry["context"] == "exception handler"
    assert entry["reason"] == "`request.app.state.tokenizer.decode(...)` tokenizes text"
    assert entry["chain"] == ["`request.app.state.tokenizer.decode`"]
    log = json.loads(sarif.render(report))
    result = next(
        r
        for r in log["runs"][0]["results"]
        if r["locations"][0]["physicalLocation"]["region"]["startLine"] == 27 and r["ruleId"] == "MM005"
    )
    assert result["properties"] == {key: entry[key] for key in ("weight", "reason", "chain", "context", "help")}


def test_text_prints_the_chain_as_a_note_and_no_twin_words() -> None:
    report = check(cwd=PACKAGE)
    assert report.call_sites == 0
    rendered = text.render(report)
    assert "twin" not in rendered
    assert rendered.rstrip().endswith("(26 files scanned).")


def test_a_chain_is_a_note_one_step_a_line() -> None:
    report = check(cwd=PACKAGE.parent / "weight")
    rendered = text.render(report)
    assert (
        "  = note: `wait_for_service` at wpkg/bench.py:14\n          → `fetch_status` at wpkg/bench.py:10\n" in rendered
    )
    assert all(len(line) <= 80 for line in rendered.splitlines() if "= note" in line or line.lstrip().startswith("→"))


def test_twins_defined_by_assignment_are_found_through_the_configured_wrappers(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(PACKAGE)
    data = json.loads(CliRunner().invoke(cli, ["audit", "--format", "json", "--no-cache"]).output)
    assert data["assigned_twins"] == [
        {"path": "fpkg/engine.py", "sync": "process_inputs", "async": "process_inputs_async", "wrapper": "make_async"},
        {"path": "fpkg/engine.py", "sync": "render", "async": "render_async", "wrapper": "to_thread"},
    ]
    config = tmp_path / "mmlint.toml"
    config.write_text('twin-wrappers = ["make_async"]\n', encoding="utf-8")
    data = json.loads(
        CliRunner().invoke(cli, ["audit", "--format", "json", "--no-cache", "--config", str(config)]).output
    )
    assert [twin["wrapper"] for twin in data["assigned_twins"]] == ["make_async"]


def test_a_star_pattern_matches_the_callee_and_its_last_attribute_chain() -> None:
    from mmlint.analysis.weight import matching_pattern

    patterns = ("*.future.wait", "*tokenizer().encode", "time.sleep")
    assert matching_pattern("future.wait", patterns) == "*.future.wait"  # a bare local
    assert matching_pattern("self.future.wait", patterns) == "*.future.wait"
    assert matching_pattern("<expr>.future.wait", patterns) == "*.future.wait"  # `get().future.wait()`
    assert matching_pattern("<expr>.get_tokenizer().encode", patterns) == "*tokenizer().encode"
    assert matching_pattern("<expr>.encode", patterns) is None  # `"text".encode()`
    assert matching_pattern("sleep", patterns) is None  # exact patterns match the resolved name only


def test_heavy_calls_under_other_names_say_what_they_cost() -> None:
    report = _report()
    messages = {d.span.line: d.message for d in report.diagnostics if d.path == "fpkg/costs.py"}
    helps = {d.span.line: d.help for d in report.diagnostics if d.path == "fpkg/costs.py"}
    # The message says what it costs; the help names the call (short messages, 80 columns).
    assert "decodes or encodes a whole payload" in messages[27] and helps[27].startswith("`base64.b64decode(...)`")
    assert "makes a database query" in messages[37] and "compiles a grammar" in messages[56]
    assert "reads an upload synchronously" in messages[77]
    assert "waits for a remote call" in messages[89] and "walks every live object" in messages[109]
    assert "resizes or converts an image" in messages[117]  # the decode, not `Image.open`


def test_pil_image_open_is_not_a_decode() -> None:
    from mmlint.core.knowledge import SETS_BY_NAME

    patterns = {call.pattern for call in SETS_BY_NAME["image-decoding"].calls}
    assert "PIL.Image.open" not in patterns and "*open().convert" in patterns
    assert "`.load()`, `.convert()` or `.resize()`" in SETS_BY_NAME["image-decoding"].doc


def test_entry_point_contexts_come_from_decorators_and_bases_never_from_names() -> None:
    report = _report()
    contexts = {d.span.line: (d.context, d.help) for d in report.diagnostics if d.path == "fpkg/entry_points.py"}
    assert contexts[12][0] == "route" and "plain `def`" in contexts[12][1]
    assert contexts[27][0] == "actor method" and "plain `def`" not in contexts[27][1]
    assert "the actor's other calls wait" in contexts[27][1]
    assert contexts[35][0] == "actor method"
    assert contexts[40][0] == "gRPC servicer method" and "keep it a coroutine (gRPC servicer method)" in contexts[40][1]
    assert contexts[45][0] == "" and contexts[50][0] == ""
    assert 20 not in contexts  # a plain `def` route runs in the threadpool


def test_a_ray_serve_deployments_sync_methods_block_the_replicas_loop() -> None:
    report = _report()
    found = {d.span.line: d for d in report.diagnostics if d.path == "fpkg/ray_serve.py"}
    sync_methods = {28: "__call__", 29: "__call__", 32: "read_prompt", 36: "summarize", 65: "__call__"}
    for line, method in sync_methods.items():
        assert found[line].context == "Ray Serve deployment method"
        assert found[line].message.startswith("blocks the replica's loop: ")
        assert f"in `def {'Gateway' if line == 65 else 'Embedder'}.{method}`" in found[line].help
        assert "RAY_SERVE_RUN_SYNC_IN_THREADPOOL=1" in found[line].help
    assert found[36].chain == ("`Embedder._download` at fpkg/ray_serve.py:38", "`requests.get`")
    # An async method of a deployment keeps its coroutine; a Ray actor's is an actor method.
    assert found[54].context == "Ray Serve deployment method" and "keep it a coroutine" in found[54].help
    assert found[85].context == "actor method" and "the actor's other calls wait" in found[85].help
    # Function deployments: the sync one is a root, the async one has the deployment's context.
    assert found[90].context == "Ray Serve deployment method" and "in `def thumbnail`" in found[90].help
    assert found[95].context == "Ray Serve deployment method" and "`async def caption`" in found[95].help
    assert 100 not in found
    # Start-up, a helper, a lazy load, a FastAPI route, classes Ray Serve does not run, a Ray actor's thread.
    assert not {23, 39, 42, 46, 62, 70, 76, 82} & set(found)
    (alone,) = [d for d in report.diagnostics if d.path == "fpkg/ray_serve_sync.py"]
    assert alone.chain == ("`fetch_bytes` at fpkg/downloads.py:7", "`requests.get`")


def test_a_light_actor_method_is_not_reported_even_with_report_light(tmp_path: Path) -> None:
    config = tmp_path / "mmlint.toml"
    config.write_text('paths = ["."]\n[fake-async]\nreport-light = true\n', encoding="utf-8")
    report = check([PACKAGE / "fpkg" / "entry_points.py"], cwd=PACKAGE, config=config, select=["MM003"])
    assert 29 not in {d.span.line for d in report.diagnostics}


def test_async_generators_get_streaming_advice() -> None:
    report = _report()
    found = {d.span.line: d for d in report.diagnostics if d.path == "fpkg/streams.py"}
    assert set(found) == {20, 28}
    assert all(
        "`await asyncio.to_thread(next, it, None)`" in d.help and "asyncio.Queue" in d.help for d in found.values()
    )
    assert "between two `yield`s" in found[28].message
    assert found[28].reason == "a loop over `chunks` repeats `render_chunk(...)`"
    assert not [d for d in report.diagnostics if d.path == "fpkg/streams.py" and d.code == "MM003"]


def test_once_per_object_guards_weigh_nothing_per_request() -> None:
    """A lazy initialisation (`if self._x is None: self._x = ...`, through
    `getattr(self, "_x", None)` or a `global`) and a start-up step after
    `if self._started: return` run once per object: no finding. A guard that
    stores nothing, or a flag the def never sets, guards nothing (fpkg/once.py)."""
    report = _report()
    found = sorted((d.span.line, d.code) for d in report.diagnostics if d.path == "fpkg/once.py")
    assert found == [(67, "MM005"), (68, "MM005")]
    facts = report.project.files["fpkg/once.py"]
    once = {info.qualname: [call.dotted for call in info.calls if call.once] for info in facts.sync_defs}
    assert once["settings"] == ["read_settings"]
    assert once["Catalogue.index"] == ["read_settings"]
    assert once["Catalogue.registry"] == ["read_settings"]
    assert once["Catalogue.start_exporter"] == ["threading.Thread", "self._exporter.start", "self._exporter.join"]
    assert once["Catalogue.reload"] == [] and once["Catalogue.refresh"] == []


def test_a_generator_function_runs_where_it_is_iterated() -> None:
    """Calling a generator function only creates the generator: its blocking
    read runs where it is iterated, on the loop (`for`, `next`, `join`, a
    helper's `list(...)`) or in a worker thread, where it is no finding
    (fpkg/generators.py)."""
    report = _report()
    found = sorted((d.span.line, d.code) for d in report.diagnostics if d.path == "fpkg/generators.py")
    assert found == [(29, "MM005"), (35, "MM005"), (41, "MM005"), (42, "MM005")]
    facts = report.project.files["fpkg/generators.py"]
    defs = {info.qualname: info for info in facts.sync_defs}
    assert defs["read_chunks"].is_generator and not defs["all_chunks"].is_generator
    assert [call.iterated for call in defs["all_chunks"].calls] == [True, True]
    (in_thread,) = [info for info in facts.async_defs if info.name == "stream_in_thread"]
    assert not next(call for call in in_thread.calls if call.dotted == "read_chunks").iterated


def test_a_programs_main_coroutine_runs_once_outside_its_loops() -> None:
    """`asyncio.run(main())` and `uvloop.run(obj.supervise())` make a program's main:
    its straight-line reads, and a helper it awaits there, are not findings;
    what its loops repeat is, and so is a helper awaited in one
    (fpkg/program_main.py)."""
    report = _report()
    found = sorted((d.span.line, d.code) for d in report.diagnostics if d.path == "fpkg/program_main.py")
    assert found == [(24, "MM005"), (33, "MM005"), (48, "MM005")]
    weights = report.project.weight(report.settings.heavy_calls)
    defs = report.project.suspension.defs
    once = {defs[key].qualname: key for key in weights.once_only if key[0] == "fpkg/program_main.py"}
    assert sorted(once) == ["Supervisor.supervise", "load_dataset", "main"]
    assert weights.contexts.of(once["main"], defs[once["main"]]) == "the program's main coroutine"
    assert (
        weights.contexts.of(once["Supervisor.supervise"], defs[once["Supervisor.supervise"]])
        == "the program's main coroutine"
    )


def test_a_nested_main_is_named_only_in_its_own_file() -> None:
    """`asyncio.run(serve())` of a `serve` nested in the runner's function is
    a main although another file schedules its own `serve`; what it awaits
    outside its loops runs once, an override dispatched to included, and a
    `subprocess.run` elsewhere calls no scanned `run`. A nested def its own
    file also schedules is no main (fpkg/nested_main.py, fpkg/startup_tasks.py)."""
    report = _report()
    paths = ("fpkg/nested_main.py", "fpkg/startup_tasks.py")
    found = sorted((d.path, d.span.line, d.code) for d in report.diagnostics if d.path in paths)
    assert found == [("fpkg/nested_main.py", 40, "MM005"), ("fpkg/startup_tasks.py", 8, "MM005")]
    weights = report.project.weight(report.settings.heavy_calls)
    defs = report.project.suspension.defs
    once = sorted(defs[key].qualname for key in weights.once_only if key[0] in paths)
    assert once == ["Host.run", "Host.start_components", "LocalHost.start_components", "launch.<locals>.serve"]


def test_start_up_shutdown_and_lifecycle_hooks_run_once() -> None:
    """A `lifespan=` function, `@app.on_event(...)`, `add_event_handler`, an
    actor's `__post_create__` / `__pre_destroy__`, and a helper awaited only
    from them run once per process or actor: no finding. The same read in a
    route, an actor method, or a helper a hook and a route both await is one
    (fpkg/startup.py)."""
    report = _report()
    found = sorted((d.span.line, d.code) for d in report.diagnostics if d.path == "fpkg/startup.py")
    assert found == [(50, "MM005"), (55, "MM005"), (72, "MM005")]
    weights = report.project.weight(report.settings.heavy_calls)
    defs = report.project.suspension.defs
    once = sorted(defs[key].qualname for key in weights.once_only if key[0] == "fpkg/startup.py")
    assert once == [
        "JournalActor.__post_create__",
        "JournalActor.__pre_destroy__",
        "Server._lifespan",
        "flush",
        "recover",
        "warm_up",
    ]
    contexts = {
        defs[key].qualname: weights.contexts.of(key, defs[key])
        for key in weights.once_only
        if key[0] == "fpkg/startup.py"
    }
    assert contexts["warm_up"] == contexts["flush"] == contexts["Server._lifespan"] == "start-up or shutdown hook"
    assert contexts["JournalActor.__post_create__"] == "actor lifecycle hook" and contexts["recover"] == ""
