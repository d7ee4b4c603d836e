"""`mmlint server` driven as an editor drives it: a subprocess spoken to over
stdio (initialize, didOpen, didChange, codeAction, executeCommand, shutdown,
exit), its answers compared with what `mmlint check` and `mmlint fix` say
about the same files."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from server_client import LspClient, apply_edits, edits_of, uri_of

pytestmark = pytest.mark.slow  # each test starts a server process

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "processors"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    root = tmp_path / "processors"
    shutil.copytree(FIXTURES, root)
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "MMLINT_CACHE_DIR": str(tmp_path / "cache")}


@pytest.fixture
def client(package: Path, env):
    started = []

    def start(options=None, *, configuration=None, command=None, root=None) -> LspClient:
        lsp = LspClient(root or package, env, configuration=configuration, command=command)
        started.append(lsp)
        lsp.initialize(root or package, options)
        return lsp

    yield start
    for lsp in started:
        lsp.close()


def mmlint(*args: str, cwd: Path, env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mmlint", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def check_json(root: Path, env, *paths: str) -> list[dict]:
    return json.loads(mmlint("check", "--format", "json", *paths, cwd=root, env=env).stdout)["diagnostics"]


def as_check(diagnostic: dict) -> tuple:
    """An LSP diagnostic in `check --format json`'s coordinates (1-based; the fixtures are BMP text)."""
    start, end = diagnostic["range"]["start"], diagnostic["range"]["end"]
    return (
        start["line"] + 1,
        start["character"] + 1,
        end["line"] + 1,
        end["character"] + 1,
        diagnostic["code"],
        diagnostic["message"],
    )


def _shown_message(diagnostic: dict) -> str:
    """What an editor shows of a `check --format json` diagnostic: the message, its help below."""
    return diagnostic["message"] + (f"\nhelp: {diagnostic['help']}" if "help" in diagnostic else "")


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_diagnostics_on_open_are_checks_with_severity_links_and_related_locations(client, package, env) -> None:
    # Each document is checked as `mmlint check FILE` checks it: the document the
    # target, the package its context (an await of a root in another file is MM004).
    files = sorted({d["path"] for d in check_json(package, env)})
    expected = [d for path in files for d in check_json(package, env, path)]
    lsp = client()
    uris = {path: lsp.open(package / path) for path in files}
    for path in files:
        published = lsp.diagnostics(uris[path])
        want = [d for d in expected if d["path"] == path and d["code"] != "MM008"]
        assert sorted(as_check(d) for d in published) == sorted(
            (d["line"], d["column"], d["end_line"], d["end_column"], d["code"], _shown_message(d)) for d in want
        ), path
        for got in published:
            assert got["source"] == "mmlint"
            assert got["severity"] == (2 if got["code"] == "MM009" else 1)
            # The rule's page on the project's repository: it works from a wheel install too.
            assert (
                got["codeDescription"]["href"] == f"https://github.com/mmlint/mmlint/blob/main/rules/{got['code']}.md"
            )
        related = {(r["path"], r["line"], r["message"]) for d in want for r in d.get("related", ())}
        shown = {
            (
                Path(r["location"]["uri"].removeprefix("file://")).relative_to(package).as_posix(),
                r["location"]["range"]["start"]["line"] + 1,
                r["message"],
            )
            for d in published
            for r in d.get("relatedInformation") or ()
        }
        assert shown == related, path
    assert any("relatedInformation" in d for path in files for d in lsp.diagnostics(uris[path]))
    assert lsp.stop() == 0


_BLOCKING_THROUGH_A_CHAIN = """\
import time


def inner():
    time.sleep(1)


def helper():
    inner()


async def handler():
    helper()
"""


def test_hovering_a_finding_explains_it_and_links_its_rule(client, tmp_path, env) -> None:
    root = tmp_path / "app"
    root.mkdir()
    (root / "app.py").write_text(_BLOCKING_THROUGH_A_CHAIN, encoding="utf-8")
    (expected,) = check_json(root, env, "app.py")
    lsp = client(root=root)
    uri = lsp.open(root / "app.py")
    (diagnostic,) = lsp.diagnostics(uri)
    start = diagnostic["range"]["start"]
    inside = {"line": start["line"], "character": start["character"] + 3}
    hover = lsp.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": inside})
    assert hover["range"] == diagnostic["range"]
    assert hover["contents"]["kind"] == "markdown"
    text = hover["contents"]["value"]
    href = "https://github.com/mmlint/mmlint/blob/main/rules/MM005.md"
    assert text.startswith("**MM005** `blocking-call-in-async`: a call known to block")
    assert "Chain:\n\n1. `helper` at app.py:8\n2. `inner` at app.py:4\n3. `time.sleep`" in text
    assert f"Why: {expected['reason']}" in text and "Help: `helper(...)` in `async def handler`" in text
    assert text.endswith(f"[MM005 documentation]({href}), or `mmlint explain MM005`")
    assert diagnostic["codeDescription"]["href"] == href
    nowhere = lsp.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    assert nowhere is None
    assert lsp.stop() == 0


def test_an_edit_is_published_first_then_the_open_documents_it_changes(client, package, env, tmp_path) -> None:
    # Removing the async twin from the base class (unsaved) takes clip.py's
    # MM001 away: the edited document's diagnostics come first, then clip.py's,
    # each what `check` says of the tree holding that text.
    base, clip = package / "mmproc/base_processor.py", package / "mmproc/processors/clip.py"
    lsp = client()
    clip_uri, base_uri = lsp.open(clip), lsp.open(base)
    assert [d["code"] for d in lsp.diagnostics(clip_uri, version=1)] == ["MM001"]
    lsp.diagnostics(base_uri, version=1)
    text = base.read_text(encoding="utf-8")
    renamed = text.replace("async def process_and_combine_mm_data_async(", "async def renamed_async(")
    mark = lsp.mark()
    lsp.change(base_uri, renamed, 2)
    edited = lsp.diagnostics(base_uri, start=mark, version=2)
    other = lsp.diagnostics(clip_uri, start=mark, version=1)
    order = [m["params"]["uri"] for m in lsp.messages[mark:] if m.get("method") == "textDocument/publishDiagnostics"]
    assert order == [base_uri, clip_uri]
    assert lsp.stop() == 0
    saved = tmp_path / "saved"
    shutil.copytree(package, saved)
    (saved / "mmproc/base_processor.py").write_text(renamed, encoding="utf-8")
    for published, path in ((edited, "mmproc/base_processor.py"), (other, "mmproc/processors/clip.py")):
        want = [d for d in check_json(saved, env, path) if d["code"] != "MM008"]
        assert sorted(as_check(d) for d in published) == sorted(
            (d["line"], d["column"], d["end_line"], d["end_column"], d["code"], _shown_message(d)) for d in want
        ), path
    assert "MM001" not in [d["code"] for d in other]


def test_did_change_republishes_for_the_new_text_and_nothing_is_written(client, package) -> None:
    before = tree_digest(package)
    lsp = client()
    clip = package / "mmproc/processors/clip.py"
    uri = lsp.open(clip)
    assert [d["code"] for d in lsp.diagnostics(uri, version=1)] == ["MM001"]
    text = clip.read_text(encoding="utf-8")
    fixed = text.replace("= self.process_and_combine_mm_data(", "= await self.process_and_combine_mm_data_async(")
    mark = lsp.mark()
    for version in (2, 3, 4, 5, 6):  # a burst of changes: the first and the last are analysed
        lsp.change(uri, fixed if version == 6 else text + "\n" * version, version)
    assert lsp.diagnostics(uri, start=mark, version=6) == []
    published = [
        m["params"]["version"] for m in lsp.messages[mark:] if m.get("method") == "textDocument/publishDiagnostics"
    ]
    assert set(published) <= {2, 6}
    assert tree_digest(package) == before  # only the cache is written
    assert lsp.stop() == 0


def test_a_change_soon_after_another_waits_for_the_debounce(client, package) -> None:
    lsp = client({"debounce": 3000})
    clip = package / "mmproc/processors/clip.py"
    text = clip.read_text(encoding="utf-8")
    uri = lsp.open(clip)
    lsp.diagnostics(uri, version=1)
    lsp.change(uri, text + "\n", 2)  # after a quiet spell: at once
    started = time.monotonic()
    lsp.diagnostics(uri, version=2)
    assert time.monotonic() - started < 2.5
    lsp.change(uri, text + "\n\n", 3)  # within 3 s of the one before: waits for 3 s of quiet
    started = time.monotonic()
    lsp.diagnostics(uri, version=3)
    assert time.monotonic() - started >= 2.5
    assert lsp.stop() == 0


def _cross_file_package(root: Path) -> tuple[Path, Path]:
    (root / "media").mkdir(parents=True)
    (root / "media" / "__init__.py").write_text("")
    callee = root / "media" / "decode.py"
    callee.write_text(
        textwrap.dedent("""\
        import asyncio


        async def decode_frames(frames):
            total = 0
            for frame in frames:
                total += decode_one(frame)  # a call per input item: heavy
                await asyncio.sleep(0)
            return total
        """)
    )
    caller = root / "media" / "serve.py"
    caller.write_text(
        textwrap.dedent("""\
        from media.decode import decode_frames


        async def handle(request):
            count = await decode_frames(request.frames)
            return count
        """)
    )
    return callee, caller


# Every analysis takes a second longer: time for the text to move on while one runs.
_SLOW_ANALYSIS = """
    import time
    from mmlint.server.analysis import Analyser
    original = Analyser.analyse
    def analyse(self, *args, **kwargs):
        time.sleep(1.0)
        return original(self, *args, **kwargs)
    Analyser.analyse = analyse
"""


def test_a_run_whose_text_moved_on_is_dropped_and_the_newer_one_publishes(client, package) -> None:
    lsp = client({"debounce": 200}, command=_server_patched(_SLOW_ANALYSIS))
    clip = package / "mmproc/processors/clip.py"
    text = clip.read_text(encoding="utf-8")
    uri = lsp.open(clip)
    lsp.diagnostics(uri, version=1)
    lsp.request(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}
    )  # runs done
    time.sleep(0.5)  # quiet: the next change is analysed at once
    mark = lsp.mark()
    lsp.change(uri, text + "\n", 2)
    time.sleep(0.5)  # its run is analysing (a second), not waiting: this change cannot cancel it
    lsp.change(uri, text + "\n\n", 3)
    assert [d["code"] for d in lsp.diagnostics(uri, start=mark, version=3)] == ["MM001"]
    time.sleep(1.5)  # nothing more comes
    published = [
        m["params"]["version"] for m in lsp.messages[mark:] if m.get("method") == "textDocument/publishDiagnostics"
    ]
    assert published == [3]  # version 2's result was stale when it came: dropped
    assert lsp.stop() == 0


def test_editing_a_callee_makes_an_mm004_appear_in_its_open_caller(client, tmp_path) -> None:
    root = tmp_path / "cross"
    callee, caller = _cross_file_package(root)
    lsp = client(root=root)
    callee_uri, caller_uri = lsp.open(callee), lsp.open(caller)
    assert lsp.diagnostics(caller_uri) == []
    mark = lsp.mark()
    hollow = callee.read_text().replace("        await asyncio.sleep(0)\n", "")
    lsp.change(callee_uri, hollow, 2)
    assert [d["code"] for d in lsp.diagnostics(callee_uri, start=mark, version=2)] == ["MM003"]
    caller_diagnostics = lsp.diagnostics(caller_uri, start=mark)
    assert [d["code"] for d in caller_diagnostics] == ["MM004"]
    assert caller_diagnostics[0]["range"]["start"] == {"line": 4, "character": 12}  # the `await`
    assert "decode_frames" in caller_diagnostics[0]["message"]
    assert "await asyncio.sleep(0)" in callee.read_text()  # the edit was the buffer's, not the disk's
    mark = lsp.mark()
    lsp.change(callee_uri, callee.read_text(), 3)  # undo: the caller is clean again
    assert lsp.diagnostics(caller_uri, start=mark) == []
    assert lsp.stop() == 0


def test_an_opened_document_gets_its_own_diagnostics_first_and_its_contexts_after(client, tmp_path) -> None:
    # The workspace is read after the document's own diagnostics are out: on an
    # empty cache, reading it parses the whole tree (seconds on sglang's multimodal).
    root = tmp_path / "context-after"
    callee, caller = _cross_file_package(root)
    callee.write_text(callee.read_text().replace("        await asyncio.sleep(0)\n", ""))  # hollow, on disk
    lsp = client(root=root)
    uri = lsp.open(caller)
    assert lsp.diagnostics(uri, version=1) == []  # its own: the callee is not read yet
    published = lsp.wait_for(
        lambda m: (
            m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
            and m["params"]["diagnostics"]
        )
    )
    assert [d["code"] for d in published["params"]["diagnostics"]] == ["MM004"]  # with the workspace as context
    assert published["params"]["version"] == 1
    assert lsp.stop() == 0


def test_save_walks_the_workspace_again_and_finds_a_module_created_meanwhile(client, tmp_path) -> None:
    root = tmp_path / "saved"
    root.mkdir()
    caller = root / "serve.py"
    caller.write_text("from decode import frames\n\n\nasync def handle(r):\n    return await frames(r)\n")
    lsp = client(root=root)
    uri = lsp.open(caller)
    assert lsp.diagnostics(uri) == []
    (root / "decode.py").write_text(
        "async def frames(r):\n    for x in r:\n        parse(x)\n"
    )  # another tool wrote it
    mark = lsp.mark()
    lsp.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert [d["code"] for d in lsp.diagnostics(uri, start=mark)] == ["MM004"]
    assert lsp.stop() == 0


def _code_actions(lsp: LspClient, uri: str, diagnostics: list[dict], only=None) -> list[dict]:
    everything = {"start": {"line": 0, "character": 0}, "end": {"line": 10_000, "character": 0}}
    context: dict = {"diagnostics": diagnostics}
    if only is not None:
        context["only"] = only
    return lsp.request(
        "textDocument/codeAction", {"textDocument": {"uri": uri}, "range": everything, "context": context}
    )


def _fixed_by_mmlint_fix(package: Path, relative: str, env, tmp_path: Path) -> str:
    other = tmp_path / "fixed-by-cli"
    shutil.copytree(package, other)
    mmlint("fix", relative, cwd=other, env=env)
    return (other / relative).read_text(encoding="utf-8")


@pytest.mark.parametrize("relative", ["mmproc/processors/qwen_vl.py", "mmproc/processors/janus_pro.py"])
def test_fix_all_and_the_fix_all_command_give_what_mmlint_fix_writes(client, package, env, tmp_path, relative) -> None:
    expected = _fixed_by_mmlint_fix(package, relative, env, tmp_path)
    before = tree_digest(package)
    lsp = client()
    path = package / relative
    text = path.read_text(encoding="utf-8")
    uri = lsp.open(path)
    diagnostics = lsp.diagnostics(uri)
    actions = _code_actions(lsp, uri, diagnostics, only=["source.fixAll"])
    assert [a["kind"] for a in actions] == ["source.fixAll.mmlint"]
    assert apply_edits(text, edits_of(actions[0]["edit"], uri)) == expected != text

    assert lsp.request("workspace/executeCommand", {"command": "mmlint.fixAll", "arguments": [uri]}) is True
    (applied,) = lsp.applied_edits
    assert applied["documentChanges"][0]["textDocument"]["version"] == 1  # refused by a client whose buffer moved on
    assert apply_edits(text, edits_of(applied, uri)) == expected
    assert tree_digest(package) == before
    assert lsp.stop() == 0


@pytest.mark.parametrize(
    ("only", "kind"),
    [
        (None, "quickfix"),
        (["quickfix", "source"], "quickfix"),
        (["source"], "source.fixAll.mmlint"),
        (["source.fixAll"], "source.fixAll.mmlint"),
        (["quickfix"], "quickfix"),
    ],
)
def test_fix_all_is_offered_once_whatever_kinds_the_client_asks_for(client, package, only, kind) -> None:
    lsp = client()
    uri = lsp.open(package / "mmproc/processors/qwen_vl.py")
    diagnostics = lsp.diagnostics(uri)
    actions = _code_actions(lsp, uri, diagnostics[:1], only=only)
    fix_alls = [a for a in actions if "fix all" in a["title"].lower()]
    assert [a["kind"] for a in fix_alls] == [kind]
    assert lsp.stop() == 0


# Says on stderr which text each run of the fix pipeline fixes.
_COUNTING_FIXES = """
    import hashlib, sys
    import mmlint.server.actions as actions
    original = actions.fix_file
    def fix_file(file, **options):
        print("fixed", hashlib.sha256(options["source"]).hexdigest(), file=sys.stderr, flush=True)
        return original(file, **options)
    actions.fix_file = fix_file
"""


def test_each_text_is_fixed_once_however_often_and_widely_the_editor_asks(client, package) -> None:
    lsp = client(command=_server_patched(_COUNTING_FIXES))
    path = package / "mmproc/processors/qwen_vl.py"
    uri = lsp.open(path)
    diagnostics = lsp.diagnostics(uri)
    assert sum(d["data"]["fixable"] for d in diagnostics) >= 2
    first = _code_actions(lsp, uri, diagnostics, only=["source.fixAll"])
    assert _code_actions(lsp, uri, diagnostics, only=["source.fixAll"]) == first  # the cursor moved
    everything = _code_actions(lsp, uri, diagnostics)  # every diagnostic's quick fix and suppression
    assert sum(a["title"].startswith("mmlint: fix MM") for a in everything) == sum(
        d["data"]["fixable"] for d in diagnostics
    )
    assert _code_actions(lsp, uri, diagnostics) == everything
    lsp.change(uri, path.read_text() + "\n", 2)
    _code_actions(lsp, uri, lsp.diagnostics(uri, version=2), only=["source.fixAll"])  # a new text: computed again
    assert lsp.stop() == 0
    fixed = [line.split()[1] for line in lsp.stderr().splitlines() if line.startswith("fixed ")]
    # Once per text: the two texts, then the fix-all rounds' own texts (each round fixes the last one's output).
    assert len(fixed) == len(set(fixed)) >= 2


def test_quick_fix_of_one_diagnostic_is_the_fixers_edit_of_that_site(client, package, env, tmp_path) -> None:
    relative = "mmproc/processors/clip.py"
    expected = _fixed_by_mmlint_fix(package, relative, env, tmp_path)
    lsp = client()
    path = package / relative
    text = path.read_text(encoding="utf-8")
    uri = lsp.open(path)
    (diagnostic,) = lsp.diagnostics(uri)
    actions = _code_actions(lsp, uri, [diagnostic], only=["quickfix"])
    titles = [a["title"] for a in actions]
    assert titles == [
        "mmlint: fix MM001 (sync-twin-call)",
        "mmlint: suppress MM001 with `# mmlint: ignore[MM001]`",
        "Fix all mmlint problems in this file",
    ]
    fix, suppress, _ = actions
    assert fix["isPreferred"] and fix["diagnostics"][0]["code"] == "MM001"
    assert apply_edits(text, edits_of(fix["edit"], uri)) == expected

    suppressed = apply_edits(text, edits_of(suppress["edit"], uri))
    line = suppressed.splitlines()[diagnostic["range"]["start"]["line"]]
    assert line.endswith("# expect: MM001  # mmlint: ignore[MM001]")
    mark = lsp.mark()
    lsp.change(uri, suppressed, 2)
    assert lsp.diagnostics(uri, start=mark, version=2) == []

    # The fix of an unsaved buffer is computed on the buffer, not on the file on disk.
    edited = "# edited, not saved\n\n" + text
    lsp.change(uri, edited, 3)
    (moved,) = lsp.diagnostics(uri, version=3)
    assert moved["range"]["start"]["line"] == diagnostic["range"]["start"]["line"] + 2
    fix = _code_actions(lsp, uri, [moved], only=["quickfix"])[0]
    assert apply_edits(edited, edits_of(fix["edit"], uri)) == "# edited, not saved\n\n" + expected
    assert lsp.stop() == 0


def test_settings_from_initialization_options_and_the_workspace_configuration(client, package) -> None:
    clip = package / "mmproc/processors/clip.py"
    llava = package / "mmproc/processors/llava.py"
    lsp = client({"select": ["MM003"], "debounce": 0, "selct": []})
    assert [d["code"] for d in lsp.diagnostics(lsp.open(llava))] == ["MM003"]
    assert lsp.diagnostics(lsp.open(clip)) == []
    assert any("unknown setting 'selct' (did you mean 'select'?)" in log for log in lsp.logs())

    # The workspace configuration (pulled) comes over the initialization options.
    pulled = client({"select": ["MM003"]}, configuration={"select": ["MM001", "MM003"], "ignore": ["MM003"]})
    assert [d["code"] for d in pulled.diagnostics(pulled.open(clip))] == ["MM001"]
    assert [d["code"] for d in pulled.diagnostics(pulled.open(llava))] == ["MM001"]  # its MM003 ignored

    # didChangeConfiguration with settings, as clients without the pull model push them.
    mark = lsp.mark()
    lsp.notify("workspace/didChangeConfiguration", {"settings": {"mmlint": {"select": ["MM001"]}}})
    assert [d["code"] for d in lsp.diagnostics(uri_of(clip), start=mark)] == ["MM001"]
    assert lsp.stop() == 0 and pulled.stop() == 0


def test_a_configuration_edited_on_disk_is_watched_and_applies_without_a_keystroke(package, env) -> None:
    capabilities = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}}
    lsp = LspClient(package, env, capabilities=capabilities)
    try:
        lsp.initialize(package)
        registration = lsp.wait_for(lambda m: m.get("method") == "client/registerCapability")
        (watch,) = registration["params"]["registrations"]
        assert watch["method"] == "workspace/didChangeWatchedFiles"
        globs = {w["globPattern"] for w in watch["registerOptions"]["watchers"]}
        assert globs == {"**/pyproject.toml", "**/mmlint.toml", "**/.mmlint.toml"}

        clip, llava = package / "mmproc/processors/clip.py", package / "mmproc/processors/llava.py"
        uris = [lsp.open(clip), lsp.open(llava)]
        assert all("MM001" in [d["code"] for d in lsp.diagnostics(uri, version=1)] for uri in uris)
        config = package / "pyproject.toml"
        config.write_text(
            config.read_text(encoding="utf-8").replace('select = ["MM"]', 'select = ["MM"]\nignore = ["MM001"]')
        )
        mark = lsp.mark()
        lsp.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri_of(config), "type": 2}]})
        assert [[d["code"] for d in lsp.diagnostics(uri, start=mark, version=1, timeout=30)] for uri in uris] == [
            [],
            ["MM003"],
        ]
        assert lsp.stop() == 0
    finally:
        lsp.close()


def test_a_client_without_dynamic_registration_is_not_asked_to_watch(client, package) -> None:
    lsp = client()
    lsp.open(package / "mmproc/processors/clip.py")
    lsp.diagnostics(uri_of(package / "mmproc/processors/clip.py"))
    assert lsp.stop() == 0
    assert not any(m.get("method") == "client/registerCapability" for m in lsp.messages)


def test_a_config_file_setting_governs_every_document(client, package, tmp_path) -> None:
    config = tmp_path / "strict.toml"
    config.write_text('select = ["MM001"]\nignore = ["MM001"]\n')
    lsp = client({"config": str(config)})
    assert lsp.diagnostics(lsp.open(package / "mmproc/processors/clip.py")) == []
    broken = tmp_path / "broken.toml"
    broken.write_text("min_call_sites = 3\n")
    bad = client({"config": str(broken)})
    bad.open(package / "mmproc/processors/clip.py")
    shown = bad.wait_for(lambda m: m.get("method") == "window/showMessage")
    assert "broken.toml" in shown["params"]["message"] and "min_call_sites" in shown["params"]["message"]
    assert lsp.stop() == 0 and bad.stop() == 0


def test_a_document_that_does_not_parse_gets_mm999_and_the_others_keep_theirs(client, package) -> None:
    lsp = client()
    clip_uri = lsp.open(package / "mmproc/processors/clip.py")
    assert [d["code"] for d in lsp.diagnostics(clip_uri)] == ["MM001"]
    gemma = package / "mmproc/processors/gemma3.py"
    gemma_uri = lsp.open(gemma)
    assert [d["code"] for d in lsp.diagnostics(gemma_uri, version=1)] == ["MM001"]
    mark = lsp.mark()
    lsp.change(gemma_uri, gemma.read_text() + "\nasync def broken(:\n", 2)
    (failure,) = lsp.diagnostics(gemma_uri, start=mark, version=2)
    assert failure["code"] == "MM999" and failure["range"]["start"]["line"] == len(gemma.read_text().splitlines()) + 1
    # clip.py's diagnostics did not change, so nothing new was published for it, and it keeps its MM001.
    assert not [
        m
        for m in lsp.messages[mark:]
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == clip_uri
    ]
    assert lsp.stop() == 0


def _server_patched(patch: str) -> list[str]:
    """The command of a server that runs ``patch`` first: a bug of ours, planted."""
    start = "\nimport sys\nfrom mmlint.cli import main\nsys.argv = ['mmlint', 'server']\nmain()\n"
    return [sys.executable, "-c", textwrap.dedent(patch) + start]


# Says on stderr, at each publish, whether libcst and the fixer are imported yet.
_IMPORTS_AT_PUBLISH = """
    import sys
    import mmlint.server.server as server
    original = server.MmlintServer._publish
    def _publish(self, snapshots, results):
        heavy = [name for name in ("libcst", "mmlint.fix") if name in sys.modules]
        print("imported at publish:", ",".join(heavy) or "-", file=sys.stderr, flush=True)
        return original(self, snapshots, results)
    server.MmlintServer._publish = _publish
"""


def test_first_diagnostics_of_a_warm_cache_import_neither_libcst_nor_the_fixer(client, package, env) -> None:
    mmlint("check", "--quiet", cwd=package, env=env)  # the cache holds every file's facts
    lsp = client(command=_server_patched(_IMPORTS_AT_PUBLISH))
    clip = package / "mmproc/processors/clip.py"
    uri = lsp.open(clip)
    assert [d["code"] for d in lsp.diagnostics(uri, version=1)] == ["MM001"]
    text = clip.read_text(encoding="utf-8")
    fixed = text.replace("= self.process_and_combine_mm_data(", "= await self.process_and_combine_mm_data_async(")
    lsp.change(uri, fixed, 2)  # parsed: libcst is set up by now
    assert lsp.diagnostics(uri, version=2) == []
    assert lsp.stop() == 0
    published = [line.split(": ", 1)[1] for line in lsp.stderr().splitlines() if line.startswith("imported at")]
    assert published[0] == "-" and published[-1] == "libcst"


# One rule broken for files named boom.py: a bug of ours in analysing one document.
_RULE_BUG = """
    from mmlint.rules.mm001_sync_twin_call import SyncTwinCall
    original = SyncTwinCall.check_file
    def check_file(self, facts, ctx):
        if facts.path.endswith("boom.py"):
            raise RuntimeError("rule bug")
        return original(self, facts, ctx)
    SyncTwinCall.check_file = check_file
"""


def test_a_crash_analysing_one_document_costs_only_that_document_and_is_logged(client, package) -> None:
    boom = package / "mmproc/processors/boom.py"
    shutil.copy(package / "mmproc/processors/gemma3.py", boom)
    lsp = client(command=_server_patched(_RULE_BUG))
    clip_uri, boom_uri = lsp.open(package / "mmproc/processors/clip.py"), lsp.open(boom)
    assert [d["code"] for d in lsp.diagnostics(clip_uri)] == ["MM001"]
    (crash,) = lsp.diagnostics(boom_uri)
    assert crash["code"] == "MM999" and "internal error RuntimeError: rule bug" in crash["message"]
    logged = [log for log in lsp.logs() if "boom.py" in log]
    assert logged and "Traceback" in logged[0] and "rule bug" in logged[0]
    assert lsp.stop() == 0


# The conversion to the protocol broken for one file.
_CONVERSION_BUG = """
    import mmlint.server.server as server
    original = server.to_lsp
    def to_lsp(diagnostic, *args, **kwargs):
        if diagnostic.path.endswith("boom.py"):
            raise RuntimeError("conversion bug")
        return original(diagnostic, *args, **kwargs)
    server.to_lsp = to_lsp
"""


def test_a_failure_showing_one_documents_diagnostics_costs_only_that_document(client, package) -> None:
    boom = package / "mmproc/processors/boom.py"
    shutil.copy(package / "mmproc/processors/gemma3.py", boom)
    lsp = client(command=_server_patched(_CONVERSION_BUG))
    boom_uri, clip_uri = lsp.open(boom), lsp.open(package / "mmproc/processors/clip.py")
    assert [d["code"] for d in lsp.diagnostics(clip_uri)] == ["MM001"]
    lsp.wait_for(lambda m: m.get("method") == "window/logMessage" and "conversion bug" in m["params"]["message"])
    mark = lsp.mark()
    lsp.change(clip_uri, (package / "mmproc/processors/clip.py").read_text() + "\n", 2)
    assert [d["code"] for d in lsp.diagnostics(clip_uri, start=mark, version=2)] == ["MM001"]  # still served
    assert not [m for m in lsp.messages if m.get("params", {}).get("uri") == boom_uri]
    assert lsp.stop() == 0


def test_an_unsaved_new_file_is_checked_as_check_dash_would(client, package) -> None:
    lsp = client()
    new = package / "mmproc/processors/new_model.py"
    text = (package / "mmproc/processors/gemma3.py").read_text()
    uri = lsp.open(new, text)
    assert [d["code"] for d in lsp.diagnostics(uri)] == ["MM001"]
    assert not new.exists()
    assert lsp.stop() == 0


def test_exit_without_shutdown_exits_1_and_close_clears_diagnostics(client, package) -> None:
    lsp = client()
    uri = lsp.open(package / "mmproc/processors/clip.py")
    assert lsp.diagnostics(uri)
    mark = lsp.mark()
    lsp.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert lsp.diagnostics(uri, start=mark) == []
    lsp.notify("exit")
    assert lsp.process.wait(60) == 1
