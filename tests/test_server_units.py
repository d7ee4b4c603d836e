"""The server's parts in-process: settings, positions in the client's
encoding, text edits, the suppression action, and the analysis (overlay,
workspace context, facts kept in memory, crash isolation)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.server.actions import encode_like, fix_all, fix_one, suppressed_text
from mmlint.server.analysis import Analyser, MemoryFactsCache
from mmlint.server.hover import hover_markdown
from mmlint.server.protocol import RULE_DOCS_URL, Lines, rule_url, text_edits, to_lsp, units
from mmlint.server.settings import ServerSettings, read_settings
from server_client import apply_edits

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "processors"


# -- settings --------------------------------------------------------------------------------


def test_settings_are_read_unwrapped_and_bad_ones_reported_not_fatal() -> None:
    settings = read_settings(
        {"mmlint": {"select": "MM001, MM003", "ignore": ["MM009"], "config": "~/x.toml", "debounce": 5}}
    )
    assert settings.select == ("MM001", "MM003") and settings.ignore == ("MM009",)
    assert settings.config == Path("~/x.toml").expanduser() and settings.debounce_ms == 5
    bad = read_settings({"selct": [], "debounce": "soon", "select": [1]}, settings)
    assert bad.select == ("MM001", "MM003") and bad.debounce_ms == 5  # the base stays
    assert bad.warnings == (
        "settings: unknown setting 'selct' (did you mean 'select'?); ignored",
        "settings: 'debounce' must be a whole number of milliseconds from 0 to 10000; ignored",
        "settings: 'select' must be a list of codes or prefixes; ignored",
    )
    assert read_settings(None, settings) is settings
    assert read_settings([1], settings).warnings == ("settings: expected an object, got list; ignored",)


# -- positions and edits ---------------------------------------------------------------------


def test_positions_count_the_clients_code_units() -> None:
    text = "x = '😀é'  # a\r\ny = 1"
    for encoding, column in (("utf-16", 9), ("utf-8", 12), ("utf-32", 8)):
        lines = Lines(text, encoding)
        assert lines.position(1, 9) == {"line": 0, "character": column}  # after the closing quote
        assert lines.position(2, 1) == {"line": 1, "character": 0}
    assert units("😀", "utf-16") == 2
    # The end of a file without a final line break, and a line past the end.
    assert Lines("a\nbc", "utf-16").position(3, 1) == {"line": 1, "character": 2}
    assert Lines("a\n", "utf-16").position(2, 1) == {"line": 1, "character": 0}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("a\nb\nc", "a\nb\nc  # x"),  # the last line has no line break
        ("a\r\nb\r\n", "a\r\nx\r\nb\r\n"),  # CRLF kept
        ("", "new\n"),
        ("x = 1\n", ""),
    ],
)
def test_text_edits_turn_the_old_text_into_the_new(old: str, new: str) -> None:
    edits = text_edits(old, new, "utf-16")
    assert apply_edits(old, edits) == new
    assert len(edits) == 1


def test_an_lsp_message_is_the_message_with_its_help_below() -> None:
    lines = Lines("x = 1\n", "utf-16")
    helped = Diagnostic("a.py", Span(1, 1, 1, 2), "MM001", "sync-twin-call", "short", help="do this")
    shown = to_lsp(helped, lines, uri_of=lambda path: None, lines_of=lambda path: None)
    assert shown["message"] == "short\nhelp: do this"
    plain = Diagnostic("a.py", Span(1, 1, 1, 2), "MM001", "sync-twin-call", "short")
    assert to_lsp(plain, lines, uri_of=lambda path: None, lines_of=lambda path: None)["message"] == "short"


def test_rule_links_point_at_the_repository_pyproject_names_where_every_page_is() -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib

    from mmlint.rules import all_rules

    root = Path(__file__).resolve().parent.parent
    repository = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Repository"]
    assert RULE_DOCS_URL == f"{repository}/blob/main/rules/{{code}}.md"
    for rule in all_rules():
        assert rule_url(rule.code, None) == f"{repository}/blob/main/rules/{rule.code}.md"
        assert (root / "rules" / f"{rule.code}.md").is_file()
    assert rule_url("MM001", "https://docs.example/{name}.html") == "https://docs.example/sync-twin-call.html"
    assert rule_url("XX001", None) is None


def test_a_hover_keeps_code_spans_shows_other_markup_literally_and_names_explain() -> None:
    finding = Diagnostic("a.py", Span(1, 1, 1, 2), "MM001", "sync-twin-call", "calls `f_x` from *here*_")
    text = hover_markdown([finding], {"MM001": None})
    assert text is not None
    assert "calls `f_x` from \\*here\\*\\_" in text
    assert text.endswith("Documentation: `mmlint explain MM001`")
    assert hover_markdown([], {}) is None


def test_code_actions_are_functions_of_a_documents_state_and_the_client(tmp_path, cache_dir) -> None:
    import ast

    from mmlint.server import code_actions
    from mmlint.server.analysis import Snapshot
    from mmlint.server.documents import DocumentState

    source = Path(code_actions.__file__).read_text(encoding="utf-8")
    imported = {node.module for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)}
    assert "mmlint.server.server" not in imported and "mmlint.server.wire" not in imported

    path = tmp_path / "proc.py"
    path.write_text(
        "class P:\n    async def run(self, out):\n        await out.ready()\n        return self.process_and_combine_mm_data(out)\n"
    )
    analyser = Analyser(tmp_path, ServerSettings(), use_cache=False)
    data = path.read_bytes()
    state = DocumentState("file:///proc.py")
    state.analysed(Snapshot(state.uri, 4, path, data), analyser.analyse({path: data})[path])
    client = code_actions.ClientView("utf-16", versioned_edits=True)
    everything = {"start": {"line": 0, "character": 0}, "end": {"line": 4, "character": 0}}
    found = code_actions.code_actions(state, client, everything, None, lambda new: analyser.analyse_one(path, new, {}))
    assert [a["title"] for a in found] == [
        "mmlint: fix MM001 (sync-twin-call)",
        "mmlint: suppress MM001 with `# mmlint: ignore[MM001]`",
        "Fix all mmlint problems in this file",
    ]
    (change,) = found[0]["edit"]["documentChanges"]
    assert change["textDocument"]["version"] == 4
    plain = code_actions.ClientView("utf-16", versioned_edits=False)
    assert code_actions.code_actions(
        state, plain, everything, ["quickfix"], lambda new: analyser.analyse_one(path, new, {})
    )[0]["edit"]["changes"]


# -- the suppression action ------------------------------------------------------------------


def _mm001(line: int) -> Diagnostic:
    return Diagnostic("a.py", Span(line, 5, line, 20), "MM001", "sync-twin-call", "message")


def test_suppressing_appends_a_directive_or_adds_the_code_to_the_one_there() -> None:
    text = "async def f(self):\n    self.process_and_combine_mm_data(a)  # why\r\n"
    assert suppressed_text(text, _mm001(2)) == (
        "async def f(self):\n    self.process_and_combine_mm_data(a)  # why  # mmlint: ignore[MM001]\r\n"
    )
    existing = "async def f(self):\n    self.process_and_combine_mm_data(a)  # mmlint: ignore[MM003]\n"
    assert suppressed_text(existing, _mm001(2)) == (
        "async def f(self):\n    self.process_and_combine_mm_data(a)  # mmlint: ignore[MM003, MM001]\n"
    )


def test_no_suppression_where_the_comment_would_be_inside_a_string_or_for_mm999() -> None:
    text = 'async def f(self):\n    self.process_and_combine_mm_data("""\n    text""")\n'
    assert suppressed_text(text, _mm001(2)) is None
    syntax_error = Diagnostic("a.py", Span(1, 1, 1, 1), "MM999", "syntax-error", "bad")
    assert suppressed_text("x = (\n", syntax_error) is None


def test_a_buffer_is_encoded_as_its_cookie_says() -> None:
    assert encode_like("# -*- coding: latin-1 -*-\nx = 'é'\n") == "# -*- coding: latin-1 -*-\nx = 'é'\n".encode(
        "latin-1"
    )
    assert encode_like("x = 'é'\n") == "x = 'é'\n".encode("utf-8")


# -- the analysis ----------------------------------------------------------------------------


@pytest.fixture
def package(tmp_path: Path) -> Path:
    root = tmp_path / "processors"
    shutil.copytree(FIXTURES, root)
    return root


def test_unsaved_text_replaces_the_disk_and_only_the_changed_file_is_parsed(package, cache_dir, monkeypatch) -> None:
    monkeypatch.setenv("MMLINT_JOBS", "1")  # parse in this process, where the count below can see it
    parsed: list[str] = []
    from mmlint.check import findings

    original = findings.analyse_file

    def counting(data, real_path, *rest):
        parsed.append(Path(real_path).name)
        return original(data, real_path, *rest)

    monkeypatch.setattr(findings, "analyse_file", counting)
    clip = package / "mmproc/processors/clip.py"
    analyser = Analyser(package, ServerSettings())
    text = clip.read_bytes()
    first = analyser.analyse({clip: text})[clip]
    assert [d.code for d in first.diagnostics] == ["MM001"]
    assert len(parsed) > 5  # cold: the workspace's files were parsed as context
    parsed.clear()
    fixed = text.replace(b"= self.process_and_combine_mm_data(", b"= await self.process_and_combine_mm_data_async(")
    second = analyser.analyse({clip: fixed})[clip]
    assert second.diagnostics == () and second.data == fixed
    assert parsed == ["clip.py"]  # everything else came from the facts in memory
    assert clip.read_bytes() == text


def test_a_keystroke_that_leaves_every_files_facts_takes_the_last_findings(package, cache_dir, monkeypatch) -> None:
    # The per-change path: a comment leaves the facts as they were, so the
    # project and the rules are not run again; removing the async twin from
    # the base class (another open document) changes what clip.py's MM001
    # rests on, so the findings are made again. Every result is what an
    # analyser that remembers nothing finds for the same texts.
    from mmlint.check import findings

    built: list[frozenset[str]] = []
    original = findings._found

    def counting(read, outcomes, cache, scopes, targets, *rest):
        built.append(frozenset(targets))
        return original(read, outcomes, cache, scopes, targets, *rest)

    monkeypatch.setattr(findings, "_found", counting)
    clip, base = package / "mmproc/processors/clip.py", package / "mmproc/base_processor.py"
    twin = b"async def process_and_combine_mm_data_async("
    analyser = Analyser(package, ServerSettings())

    def analysed(documents: dict[Path, bytes]) -> dict[Path, tuple[Diagnostic, ...]]:
        built.clear()
        got = {path: result.diagnostics for path, result in analyser.analyse(documents, rescan=False).items()}
        remembering = built[:]
        fresh = Analyser(package, ServerSettings()).analyse(documents)
        assert got == {path: result.diagnostics for path, result in fresh.items()}
        built[:] = remembering
        return got

    opened = {clip: clip.read_bytes(), base: base.read_bytes()}
    first = analysed(opened)
    assert [d.code for d in first[clip]] == ["MM001"] and len(built) == 2
    commented = {**opened, clip: opened[clip] + b"# a comment, not code\n"}
    assert analysed(commented) == first and built == []
    without = analysed({**commented, base: opened[base].replace(twin, b"async def renamed_async(")})
    assert "MM001" not in [d.code for d in without[clip]] and len(built) == 2
    assert analysed(commented) == first and len(built) == 2  # the twin is back: found again


def test_an_edit_that_leaves_libcsts_input_takes_the_tree_it_has(package, cache_dir, monkeypatch) -> None:
    # A comment line between statements is emptied in libcst's input (the lean
    # view), so editing it, as a body the view blanks, parses nothing again
    # once the server keeps its trees (remember_parses); each result is what
    # an analyser that keeps nothing finds.
    import libcst

    from mmlint.check import per_file
    from mmlint.facts import lean

    monkeypatch.setenv("MMLINT_JOBS", "1")  # parse in this process, where the count below can see it
    monkeypatch.setattr(lean, "MIN_BLANKED_SHARE", 0.0)  # a small fixture still takes the lean view
    clip = package / "mmproc/processors/clip.py"
    warm = Analyser(package, ServerSettings())
    warm.analyse({clip: clip.read_bytes()})
    warm.facts.persist()  # the workspace's facts on disk: only the edited text is parsed below
    parsed: list[str] = []
    original = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module", lambda text, *rest: parsed.append(text) or original(text, *rest))
    monkeypatch.setattr(per_file, "_parses", None)
    per_file.remember_parses()
    analyser = Analyser(package, ServerSettings())
    text = clip.read_bytes()
    init = b"super().__init__(hf_config, server_args, hf_processor, *args, **kwargs)"
    assert init in text  # in __init__, a body the lean view blanks
    edits = [
        text + b"# a note\n",
        text + b"# a longer note\n",
        text.replace(init, init + b"; self.ready = True") + b"# a longer note\n",
    ]
    counts = []
    for edited in edits:
        parsed.clear()
        got = analyser.analyse({clip: edited}, rescan=False)[clip].diagnostics
        counts.append(len(parsed))
        kept, per_file._parses = per_file._parses, None
        assert got == Analyser(package, ServerSettings()).analyse({clip: edited})[clip].diagnostics
        per_file._parses = kept
    assert counts == [1, 0, 0]  # parsed once: neither later edit changed libcst's input


def test_facts_in_memory_answer_before_the_disk_cache() -> None:
    class Disk:
        loads = 0

        def load(self, key):
            Disk.loads += 1
            return "from disk" if key == "k" else None

        def store(self, key, outcome):
            pass

        def finish(self):
            pass

    memory = MemoryFactsCache(Disk())
    assert memory.load("k") == "from disk"
    memory.finish()
    assert memory.load("k") == "from disk" and Disk.loads == 1
    memory.store("new", "stored")
    memory.finish()
    assert memory.load("new") == "stored" and Disk.loads == 1


def test_light_entries_in_memory_answer_before_the_disk_cache_and_reach_it_at_persist() -> None:
    class Disk:
        loads: list[str] = []
        stored: list[tuple[str, object]] = []

        def load_light(self, key):
            Disk.loads.append(key)
            return "light from disk" if key == "k" else None

        def store_light(self, key, entry):
            Disk.stored.append((key, entry))

        def finish(self):
            pass

    memory = MemoryFactsCache(Disk())
    assert memory.load_light("k") == "light from disk"
    memory.finish()
    assert memory.load_light("k") == "light from disk" and Disk.loads == ["k"]
    memory.store_light("new", "entry")
    assert Disk.stored == []  # not before persist()
    memory.persist()
    assert Disk.stored == [("new", "entry")]
    memory.finish()
    assert memory.load_light("new") == "entry" and Disk.loads == ["k"]


@pytest.mark.slow
def test_fix_all_runs_rounds_until_nothing_changes(tmp_path, cache_dir) -> None:
    # Fixing the call leaves the suppression of MM003 beside it unused; the second round removes it.
    source = tmp_path / "proc.py"
    source.write_text(
        textwrap.dedent("""\
        class P:
            async def process_mm_data_async(self, data):  # mmlint: ignore[MM003]
                return self.process_and_combine_mm_data(data)
        """)
    )
    analyser = Analyser(tmp_path, ServerSettings())
    result = analyser.analyse({source: source.read_bytes()})[source]
    assert sorted(d.code for d in result.diagnostics) == ["MM001"]
    once = fix_one(result, result.diagnostics[0])
    assert b"await self.process_and_combine_mm_data_async(data)" in once and b"ignore[MM003]" in once
    everything = fix_all(result, lambda data: analyser.analyse_one(source, data, {}))
    expected_dir = tmp_path / "cli"
    expected_dir.mkdir()
    shutil.copy(source, expected_dir / "proc.py")
    subprocess.run(
        [sys.executable, "-m", "mmlint", "fix", "proc.py"], cwd=expected_dir, capture_output=True, timeout=120
    )
    assert everything == (expected_dir / "proc.py").read_bytes()
    assert b"ignore[MM003]" not in everything


def test_a_crashing_rule_costs_only_the_document_it_crashes_on(package, cache_dir, monkeypatch) -> None:
    from mmlint.rules.mm001_sync_twin_call import SyncTwinCall

    original = SyncTwinCall.check_file

    def check_file(self, facts, ctx):
        if facts.path.endswith("gemma3.py"):
            raise RuntimeError("rule bug")
        return original(self, facts, ctx)

    monkeypatch.setattr(SyncTwinCall, "check_file", check_file)
    clip, gemma = package / "mmproc/processors/clip.py", package / "mmproc/processors/gemma3.py"
    results = Analyser(package, ServerSettings()).analyse({clip: clip.read_bytes(), gemma: gemma.read_bytes()})
    assert [d.code for d in results[clip].diagnostics] == ["MM001"] and results[clip].error is None
    assert [d.code for d in results[gemma].diagnostics] == ["MM999"]
    assert "RuntimeError: rule bug" in results[gemma].error and "Traceback" in results[gemma].details


def test_a_bad_configuration_is_the_documents_error_not_an_exception(package, cache_dir) -> None:
    (package / "pyproject.toml").write_text("[tool.mmlint]\nmin_call_sites = 3\n")
    clip = package / "mmproc/processors/clip.py"
    result = Analyser(package, ServerSettings()).analyse({clip: clip.read_bytes()})[clip]
    assert result.diagnostics == () and "min_call_sites" in result.error and "pyproject.toml" in result.error


def test_a_run_for_a_keystroke_keeps_the_last_walk_and_a_rescan_finds_new_files(tmp_path, cache_dir) -> None:
    caller = tmp_path / "serve.py"
    caller.write_text("from decode import frames\n\n\nasync def handle(r):\n    return await frames(r)\n")
    analyser = Analyser(tmp_path, ServerSettings())
    documents = {caller: caller.read_bytes()}
    assert analyser.analyse(documents)[caller].diagnostics == ()
    (tmp_path / "decode.py").write_text("async def frames(r):\n    for x in r:\n        parse(x)\n")
    assert analyser.analyse(documents, rescan=False)[caller].diagnostics == ()
    assert [d.code for d in analyser.analyse(documents, rescan=True)[caller].diagnostics] == ["MM004"]


def test_configured_paths_are_the_context_as_for_check(tmp_path, cache_dir) -> None:
    (tmp_path / "pkg").mkdir()
    caller = tmp_path / "pkg" / "serve.py"
    caller.write_text("from decode import frames\n\n\nasync def handle(r):\n    return await frames(r)\n")
    hollow = "async def frames(r):\n    for x in r:\n        parse(x)\n"
    (tmp_path / "decode.py").write_text(hollow)  # outside the configured paths
    (tmp_path / "mmlint.toml").write_text('paths = ["pkg"]\n')
    documents = {caller: caller.read_bytes()}
    assert Analyser(tmp_path, ServerSettings()).analyse(documents)[caller].diagnostics == ()
    (tmp_path / "pkg" / "decode.py").write_text(hollow)  # inside them
    assert [d.code for d in Analyser(tmp_path, ServerSettings()).analyse(documents)[caller].diagnostics] == ["MM004"]


def test_a_stray_documents_context_is_what_check_file_reads_not_its_directory(tmp_path, cache_dir, monkeypatch) -> None:
    monkeypatch.setenv("MMLINT_JOBS", "1")  # parse in this process, where the count below can see it
    parsed: list[str] = []
    from mmlint.check import findings

    original = findings.analyse_file

    def counting(data, real_path, *rest):
        parsed.append(Path(real_path).name)
        return original(data, real_path, *rest)

    monkeypatch.setattr(findings, "analyse_file", counting)
    caller = tmp_path / "serve.py"
    caller.write_text("from decode import frames\n\n\nasync def handle(r):\n    return await frames(r)\n")
    (tmp_path / "decode.py").write_text("async def frames(r):\n    for x in r:\n        parse(x)\n")
    for index in range(30):
        (tmp_path / f"other_{index}.py").write_text(f"async def f{index}():\n    return {index}\n")
    documents = {caller: caller.read_bytes()}
    assert (
        Analyser(tmp_path, ServerSettings(), use_cache=False, walk=False).analyse(documents)[caller].diagnostics == ()
    )
    assert parsed == ["serve.py"]  # the document alone, as `check serve.py` run there
    parsed.clear()
    walked = Analyser(tmp_path, ServerSettings(), use_cache=False).analyse(documents)[caller]  # a workspace folder
    assert [d.code for d in walked.diagnostics] == ["MM004"] and len(parsed) > 30
    parsed.clear()
    (tmp_path / "mmlint.toml").write_text('paths = ["decode.py", "serve.py"]\n')  # a configuration naming paths
    configured = Analyser(tmp_path, ServerSettings(), use_cache=False, walk=False).analyse(documents)[caller]
    assert [d.code for d in configured.diagnostics] == ["MM004"] and sorted(parsed) == ["decode.py", "serve.py"]
