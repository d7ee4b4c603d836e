"""The language server over stdio (JSON-RPC: mmlint.server.wire).

A small state machine. Documents come and go with didOpen / didClose, each
with one DocumentState (mmlint.server.documents). Every change asks for a
run, which is one task: at once on open and save and after a quiet spell;
a change right after another restarts it after the debounce (a newer change
cancels a run still waiting), and a run already analysing when the text
moves on has its result dropped, the newer run covering it. A run analyses
every open document together, each workspace folder through its own
Analyser, on one worker thread, and publishes the diagnostics of each
document whose text or diagnostics changed: editing a callee updates its
callers' diagnostics. Code actions, hover and commands wait for the run
that covers the text they see."""

from __future__ import annotations

import asyncio
import os
import sys
import time
import traceback
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from mmlint import __version__
from mmlint.check.deep_stack import keep_one_thread
from mmlint.server import code_actions
from mmlint.server.actions import encode_like, text_of
from mmlint.server.analysis import Analyser, DocumentResult, Snapshot, errors_of
from mmlint.server.documents import DocumentState
from mmlint.server.framing import FdReader, FrameWriter, read_in_thread
from mmlint.server.handshake import Workspace, capability, initialize_result, position_encoding
from mmlint.server.hover import hover_markdown
from mmlint.server.protocol import UTF16, Lines, Position, Range, rule_url, to_lsp
from mmlint.server.settings import ServerSettings, read_settings
from mmlint.server.shapes import ANY, BOOLEAN, array, obj
from mmlint.server.text_sync import TextDocument, apply_changes
from mmlint.server.uris import path_of, uri_of
from mmlint.server.wire import INVALID_PARAMS, MESSAGE_ERROR, MESSAGE_WARNING, Endpoint, Handler, ResponseError
from mmlint.server.worker import DaemonWorker

FIX_ALL_COMMAND = "mmlint.fixAll"
# The files that configure mmlint (mmlint.config): a change to one re-analyses the open documents.
CONFIG_NAMES = ("pyproject.toml", "mmlint.toml", ".mmlint.toml")
CONFIG_WATCH_ID = "mmlint-configuration-files"
SOURCE_SUFFIXES = (".py", ".pyi")
SETTINGS_WAIT_SECONDS = 5.0
# What the client's answers to our requests must hold.
CONFIGURATION_RESULT = array(ANY)
APPLY_EDIT_RESULT = obj({"applied": BOOLEAN})


class MmlintServer:
    """The server's state and its handlers; ``writer`` takes each message's body to the client."""

    def __init__(self, writer: FrameWriter) -> None:
        self.writer = writer
        self.endpoint = Endpoint(writer.write, self.handlers())
        self.client_capabilities: Any = {}  # as initialize gave them (read with handshake.capability)
        self.encoding = UTF16  # the position encoding initialize settled on
        self.workspace = Workspace()
        self.texts: dict[str, TextDocument] = {}  # every open document's text, as the client has it
        self.initial_settings = ServerSettings()
        self.settings = ServerSettings()
        self.documents: dict[str, DocumentState] = {}  # the Python documents open, in opening order
        self.analysers: dict[Path, Analyser] = {}
        self.shown_warnings: set[str] = set()  # warnings said once (an unsafe cache)
        self.last_errors: set[str] = set()  # the errors of the last run (a bad configuration)
        self.executor = DaemonWorker("mmlint-analysis")  # exit never waits for it
        self._run_task: asyncio.Task[None] | None = None  # the latest run asked for
        self._run_started = False  # whether it is past its wait (debounce, settings) and analysing
        self._rescan = False  # the next run walks the workspace again (open, save, close, settings)
        self._last_change = float("-inf")  # when the last didChange came
        self._created = time.monotonic()
        self._settings_ready: asyncio.Event | None = None  # set once the workspace configuration is in
        self._parser_prepared = False  # libcst imported and trusting its parser (prepare_parser)
        # The exit code, once the client said exit or closed the input.
        self.exited: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    @property
    def shut_down(self) -> bool:
        """The client asked for shutdown: exit (or the end of input) then ends the process with 0."""
        return self.endpoint.shut_down

    # -- documents and runs ----------------------------------------------------------------

    def request_run(self, *, urgent: bool = False) -> None:
        """A run for a change (didChange), or ``urgent`` for anything else (open, save, settings)."""
        delay = 0.0
        if urgent:
            self._rescan = True  # only these walk the workspace again: a keystroke creates no file
        else:
            now = time.monotonic()
            if now - self._last_change < self.settings.debounce_ms / 1000:
                delay = self.settings.debounce_ms / 1000  # in a burst: wait until typing pauses
            self._last_change = now
        waiting = self._run_task
        if waiting is not None and not waiting.done() and not self._run_started:
            waiting.cancel()  # it has not read the documents yet: this run covers its changes
        self._run_started = False
        self._run_task = asyncio.get_running_loop().create_task(self._run(delay))

    async def up_to_date(self) -> None:
        """Wait for a run that has seen every change made so far."""
        while True:
            task = self._run_task
            if task is None or task.done():
                return
            await asyncio.wait({task})  # cancelled or finished: a newer one may have replaced it

    def settings_ready(self) -> asyncio.Event:
        if self._settings_ready is None:
            self._settings_ready = asyncio.Event()
        return self._settings_ready

    async def _run(self, delay: float) -> None:
        # The first run waits for the pulled settings (a client that never answers costs a few seconds).
        left = self._created + SETTINGS_WAIT_SECONDS - time.monotonic()
        if not self.settings_ready().is_set() and left > 0:
            try:
                await asyncio.wait_for(self.settings_ready().wait(), left)
            except asyncio.TimeoutError:
                pass
        if delay:
            await asyncio.sleep(delay)
        if asyncio.current_task() is self._run_task:
            self._run_started = True
        rescan, self._rescan = self._rescan, False
        try:
            await self._analyse_and_publish(rescan)
        except Exception as error:  # a bug of ours: logged, and the next change runs again
            self.log(MESSAGE_ERROR, f"mmlint: analysis failed: {type(error).__name__}: {error}")

    async def _analyse_and_publish(self, rescan: bool) -> None:
        snapshots = self._snapshots()
        loop = asyncio.get_running_loop()
        opened = [s for s in snapshots if self.documents[s.uri].result is None]
        if opened and rescan:
            # A document just opened gets its own diagnostics first, before the
            # workspace is walked and read (its whole tree parsed, on an empty cache).
            first = await loop.run_in_executor(self.executor, self._analyse, opened, False, False)
            if not self._stale(opened):
                self._publish(opened, first)
        self._prepare_parser()
        edited = {s.uri for s in snapshots if self.documents[s.uri].edited(s)}
        others: set[str] | None = None  # None: every document
        if edited and len(edited) < len(snapshots):
            # The documents typed in first: their diagnostics are out before the
            # other documents (which the edit may change too) are analysed again.
            first = await loop.run_in_executor(self.executor, self._analyse, snapshots, rescan, True, edited)
            if self._stale(snapshots):
                return
            self._publish(snapshots, first)
            rescan = False  # walked once per run
            others = {s.uri for s in snapshots} - edited
        results = await loop.run_in_executor(self.executor, self._analyse, snapshots, rescan, True, others)
        if self._stale(snapshots):
            return  # the text moved on while it ran: the run asked for by that change publishes
        self._publish(snapshots, results)
        # The new facts reach the disk cache once the diagnostics are out.
        for analyser in list(self.analysers.values()):
            try:
                self.executor.submit(analyser.facts.persist)
            except RuntimeError:  # shut down meanwhile: the cache is only a cache
                break

    def _prepare_parser(self) -> None:
        """Once, after the first diagnostics (which a warm cache gives without
        parsing): libcst, a fifth of the start-up's imports, is imported on the
        worker thread before the next run, which may parse."""
        if not self._parser_prepared:
            self._parser_prepared = True
            try:
                self.executor.submit(prepare_parser)
            except RuntimeError:  # shut down meanwhile
                pass

    def _stale(self, snapshots: list[Snapshot]) -> bool:
        """Whether a document the run read has changed since (a closed one is left out, not stale)."""
        return any(s.uri in self.documents and self.texts[s.uri].version != s.version for s in snapshots)

    def _snapshots(self) -> list[Snapshot]:
        snapshots = []
        for uri in self.documents:
            document = self.texts[uri]
            path = path_of(uri)
            if path is None:
                continue
            snapshots.append(Snapshot(uri, document.version, Path(os.path.abspath(path)), encode_like(document.text)))
        return snapshots

    def folders(self) -> list[Path]:
        """The workspace folders (else the root the client gave)."""
        return self.workspace.roots()

    def root_of(self, path: Path) -> Path:
        """The workspace folder holding ``path`` (the innermost), else its directory."""
        holding = [root for root in self.folders() if path == root or root in path.parents]
        return max(holding, key=lambda root: len(root.parts)) if holding else path.parent

    def analyser_for(self, root: Path) -> Analyser:
        analyser = self.analysers.get(root)
        if analyser is None:
            # A document from outside every folder is not a workspace: its directory
            # (a home or downloads folder, perhaps) is not walked for context.
            analyser = self.analysers[root] = Analyser(root, self.settings, walk=root in self.folders())
        return analyser

    def _analyse(
        self,
        snapshots: list[Snapshot],
        rescan: bool = True,
        workspace: bool = True,
        only: Collection[str] | None = None,
    ) -> dict[str, DocumentResult]:
        """On the worker thread: every open document (``only``: those of
        these URIs, the others as context), by workspace folder (``rescan``:
        walk the folders again for their files; ``workspace`` False: without
        the walked files as context)."""
        by_root: dict[Path, dict[Path, Snapshot]] = {}
        for snapshot in snapshots:
            by_root.setdefault(self.root_of(snapshot.path), {})[snapshot.path] = snapshot
        results: dict[str, DocumentResult] = {}
        for root, documents in by_root.items():
            wanted = None if only is None else [path for path, s in documents.items() if s.uri in only]
            if wanted == []:
                continue
            analysed = self.analyser_for(root).analyse(
                {path: s.data for path, s in documents.items()}, rescan=rescan, workspace=workspace, only=wanted
            )
            results.update((documents[path].uri, result) for path, result in analysed.items())
        return results

    def _publish(self, snapshots: list[Snapshot], results: Mapping[str, DocumentResult]) -> None:
        self._report_errors(results.values())
        texts = {s.path: s for s in snapshots}
        for snapshot in snapshots:
            result = results.get(snapshot.uri)
            state = self.documents.get(snapshot.uri)
            if result is None or state is None:
                continue
            state.analysed(snapshot, result)
            try:
                diagnostics = self.lsp_diagnostics(result, texts)
            except Exception as error:  # a bug of ours: it costs this document, not the others
                self.log(
                    MESSAGE_ERROR,
                    f"mmlint: {result.path}: cannot show its diagnostics: "
                    f"{type(error).__name__}: {error}\n{traceback.format_exc()}",
                )
                continue
            if state.published == (snapshot.version, diagnostics):
                continue  # neither the text nor its diagnostics changed
            state.published = (snapshot.version, diagnostics)
            self.publish_diagnostics(snapshot.uri, diagnostics, snapshot.version)

    def publish_diagnostics(self, uri: str, diagnostics: list[dict[str, Any]], version: int | None = None) -> None:
        params: dict[str, Any] = {"uri": uri, "diagnostics": diagnostics}
        if version is not None:
            params["version"] = version
        self.endpoint.notify("textDocument/publishDiagnostics", params)

    def _report_errors(self, results: Iterable[DocumentResult]) -> None:
        for analyser in list(self.analysers.values()):
            warning = analyser.cache_warning  # the user's cache is not safe to use: said once, as `check` does
            if warning and warning not in self.shown_warnings:
                self.shown_warnings.add(warning)
                self.log(MESSAGE_WARNING, f"mmlint: warning: {warning}")
        for result in results:
            if result.details:  # a crash: the traceback goes to the log, every time
                self.log(MESSAGE_ERROR, f"mmlint: {result.path}: {result.error}\n{result.details}")
        errors = errors_of(results)
        for error in errors:
            if error not in self.last_errors:  # a bad configuration: shown when it appears, not at every keystroke
                self.endpoint.notify("window/showMessage", {"type": MESSAGE_ERROR, "message": f"mmlint: {error}"})
                self.log(MESSAGE_ERROR, f"mmlint: {error}")
        self.last_errors = set(errors)

    def lsp_diagnostics(self, result: DocumentResult, texts: Mapping[Path, Snapshot]) -> list[dict[str, Any]]:
        """``result``'s diagnostics as the protocol's (``texts``: the run's snapshots by path)."""
        encoding = self.encoding
        lines = Lines(text_of(result.data) or "", encoding)
        root = self.root_of(result.path)

        def real_path(shown: str) -> Path:
            return Path(os.path.abspath(root / shown))

        def related_uri(shown: str) -> str | None:
            return uri_of(str(real_path(shown)))

        def lines_of(shown: str) -> Lines | None:
            path = real_path(shown)
            try:
                data = texts[path].data if path in texts else path.read_bytes()
            except OSError:
                return None
            text = text_of(data)
            return Lines(text, encoding) if text is not None else None

        return [
            to_lsp(d, lines, uri_of=related_uri, lines_of=lines_of, rule_docs_url=self.settings.rule_docs_url)
            for d in result.diagnostics
        ]

    def log(self, kind: int, message: str) -> None:
        self.endpoint.log(kind, message)

    # -- settings --------------------------------------------------------------------------

    def apply_settings(self, settings: ServerSettings) -> None:
        for warning in settings.warnings:
            self.log(MESSAGE_WARNING, f"mmlint: {warning}")
        self.settings = settings
        self.analysers = {}  # new select / ignore / config: new resolvers (the facts stay on disk)
        for state in self.documents.values():
            state.actions = None
        self.last_errors = set()

    async def pull_settings(self) -> None:
        """The workspace configuration's ``mmlint`` section, over the initialization options."""
        if not capability(self.client_capabilities, "workspace", "configuration"):
            return
        try:
            sections = await self.endpoint.request(
                "workspace/configuration", {"items": [{"section": "mmlint"}]}, CONFIGURATION_RESULT
            )
            (section,) = sections
        except Exception as error:  # a client that advertises it but fails: keep what we have
            self.log(MESSAGE_WARNING, f"mmlint: workspace/configuration failed: {error}")
            return
        if section is not None:
            self.apply_settings(read_settings(section, self.initial_settings, where="workspace configuration"))

    async def watch_configuration_files(self) -> None:
        """Ask the client to tell of changes to configuration files, where it can be asked."""
        if not capability(self.client_capabilities, "workspace", "didChangeWatchedFiles", "dynamicRegistration"):
            return
        registration = {
            "id": CONFIG_WATCH_ID,
            "method": "workspace/didChangeWatchedFiles",
            "registerOptions": {"watchers": [{"globPattern": f"**/{name}"} for name in CONFIG_NAMES]},
        }
        try:
            await self.endpoint.request("client/registerCapability", {"registrations": [registration]})
        except Exception as error:  # the client refused: configuration edits apply at the next change
            self.log(MESSAGE_WARNING, f"mmlint: cannot watch the configuration files: {error}")

    # -- what code actions see -------------------------------------------------------------

    def current(self, uri: str) -> DocumentState | None:
        """The document's state, if its last run analysed the text the client has now."""
        state = self.documents.get(uri)
        if state is None or state.snapshot is None:
            return None
        if state.snapshot.version != self.texts[uri].version:
            return None
        return state

    def client_view(self) -> code_actions.ClientView:
        return code_actions.ClientView.of(self.client_capabilities, self.encoding)

    def reanalyser(self, state: DocumentState) -> code_actions.Reanalyse:
        """Analyses another text of ``state``'s document (fix all's rounds), the
        other documents as the last run read them; called on the worker thread."""
        assert state.snapshot is not None
        path = state.snapshot.path
        others = {s.snapshot.path: s.snapshot.data for s in self.documents.values() if s.snapshot is not None}
        return lambda data: self.analyser_for(self.root_of(path)).analyse_one(path, data, others)

    # -- the protocol's messages -----------------------------------------------------------

    def handlers(self) -> dict[str, Handler]:
        """The methods the server handles: these and nothing more (wire answers the rest)."""
        return {
            "initialize": self.initialize,
            "initialized": self.initialized,
            "shutdown": self.shutdown,
            "exit": self.exit,
            "workspace/didChangeWorkspaceFolders": self.did_change_workspace_folders,
            "workspace/didChangeWatchedFiles": self.did_change_watched_files,
            "workspace/didChangeConfiguration": self.did_change_configuration,
            "textDocument/didOpen": self.did_open,
            "textDocument/didChange": self.did_change,
            "textDocument/didSave": self.did_save,
            "textDocument/didClose": self.did_close,
            "textDocument/codeAction": self.code_action,
            "textDocument/hover": self.hover,
            "workspace/executeCommand": self.execute_command,
        }

    def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        self.client_capabilities = params["capabilities"]
        self.encoding = position_encoding(self.client_capabilities)
        self.workspace = Workspace.of(params)
        self.initial_settings = read_settings(params.get("initializationOptions"), where="initializationOptions")
        self.apply_settings(self.initial_settings)
        kinds = [code_actions.QUICK_FIX_KIND, code_actions.FIX_ALL_KIND]
        return initialize_result("mmlint", __version__, self.encoding, kinds, [FIX_ALL_COMMAND])

    async def initialized(self, params: Any) -> None:
        try:
            await self.pull_settings()
        finally:
            self.settings_ready().set()
        await self.watch_configuration_files()

    def shutdown(self, params: Any) -> None:
        if self._run_task is not None:
            self._run_task.cancel()
        self.executor.shutdown(wait=False, cancel_futures=True)

    def exit(self, params: Any) -> None:
        """The process ends: 0 after a shutdown request, else 1, as the protocol says."""
        self.end(0 if self.shut_down else 1)

    def end(self, code: int) -> None:
        if not self.exited.done():
            self.writer.closed = True  # nothing more reaches the client, not even a cancelled request's answer
            self.exited.set_result(code)

    def did_change_workspace_folders(self, params: dict[str, Any]) -> None:
        for folder in params["event"]["removed"]:
            self.workspace.remove(folder["uri"])
        for folder in params["event"]["added"]:
            self.workspace.add(folder["uri"])
        self.analysers = {}  # a document's folder may be another now

    def did_change_watched_files(self, params: dict[str, Any]) -> None:
        # The configuration is read afresh by every run (Analyser._resolver); what
        # was missing is a run: without one, an edit on disk waited for a keystroke.
        if self.documents and any(_is_configuration(change["uri"]) for change in params["changes"]):
            self.request_run(urgent=True)

    async def did_change_configuration(self, params: dict[str, Any]) -> None:
        if params.get("settings"):
            self.apply_settings(read_settings(params["settings"], self.initial_settings, where="settings"))
        await self.pull_settings()
        self.request_run(urgent=True)

    def did_open(self, params: dict[str, Any]) -> None:
        item = params["textDocument"]
        uri = item["uri"]
        self.texts[uri] = TextDocument(uri, item["languageId"], item["version"], item["text"])
        if is_python(uri, item["languageId"]):
            self.documents[uri] = DocumentState(uri)
            self.request_run(urgent=True)

    def did_change(self, params: dict[str, Any]) -> None:
        uri = params["textDocument"]["uri"]
        document = self.texts.get(uri)
        if document is None:
            return  # never opened: nothing to change
        document.text = apply_changes(document.text, params["contentChanges"], self.encoding)
        document.version = params["textDocument"]["version"]
        if uri in self.documents:
            self.request_run()

    def did_save(self, params: dict[str, Any]) -> None:
        if params["textDocument"]["uri"] in self.documents:
            self.request_run(urgent=True)

    def did_close(self, params: dict[str, Any]) -> None:
        uri = params["textDocument"]["uri"]
        self.texts.pop(uri, None)
        if self.documents.pop(uri, None) is not None:
            self.publish_diagnostics(uri, [])
            if self.documents:  # its unsaved text no longer stands for the file
                self.request_run(urgent=True)

    async def code_action(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        await self.up_to_date()
        state = self.current(params["textDocument"]["uri"])
        if state is None:
            return []
        only = params["context"].get("only") or None
        return await asyncio.get_running_loop().run_in_executor(
            self.executor,
            code_actions.code_actions,
            state,
            self.client_view(),
            params["range"],
            only,
            self.reanalyser(state),
        )

    async def hover(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """The findings under the cursor, explained (mmlint.server.hover)."""
        await self.up_to_date()
        state = self.current(params["textDocument"]["uri"])
        if state is None or state.result is None:
            return None
        result = state.result
        lines = Lines(text_of(result.data) or "", self.encoding)
        under = [d for d in result.diagnostics if _contains(lines.range(d.span), params["position"])]
        markdown = hover_markdown(under, {d.code: rule_url(d.code, self.settings.rule_docs_url) for d in under})
        if markdown is None:
            return None
        return {"contents": {"kind": "markdown", "value": markdown}, "range": lines.range(under[0].span)}

    async def execute_command(self, params: dict[str, Any]) -> Any:
        if params["command"] != FIX_ALL_COMMAND:
            raise ResponseError(INVALID_PARAMS, f"no such command: {params['command']!r}")
        return await self.fix_all_command(params.get("arguments") or [])

    async def fix_all_command(self, arguments: list[Any]) -> bool:
        """``mmlint.fixAll`` with the document's URI (or ``{"uri": ...}``): the
        fixes of `mmlint fix` sent to the client as one workspace edit.
        True when an edit was sent and applied."""
        uri = _uri_argument(arguments[0]) if arguments else None
        if uri is None:
            raise ResponseError(INVALID_PARAMS, "mmlint.fixAll takes the document's URI")
        await self.up_to_date()
        state = self.current(uri)
        if state is None:
            return False
        edit = await asyncio.get_running_loop().run_in_executor(
            self.executor, code_actions.fix_all_edit, state, self.client_view(), self.reanalyser(state)
        )
        if edit is None:
            return False
        applied = await self.endpoint.request(
            "workspace/applyEdit", {"edit": edit, "label": "mmlint: fix all"}, APPLY_EDIT_RESULT
        )
        return bool(applied["applied"])


def _uri_argument(argument: Any) -> str | None:
    if isinstance(argument, str):
        return argument
    if isinstance(argument, Mapping):
        uri = argument.get("uri")
        return uri if isinstance(uri, str) else None
    return None


def _contains(where: Range, position: Position) -> bool:
    start, end = where["start"], where["end"]
    at = (position["line"], position["character"])
    return (start["line"], start["character"]) <= at <= (end["line"], end["character"])


def _is_configuration(uri: str) -> bool:
    return uri.rsplit("/", 1)[-1] in CONFIG_NAMES


def is_python(uri: str, language_id: str) -> bool:
    return language_id == "python" or uri.endswith(SOURCE_SUFFIXES)


def prepare_parser() -> None:
    """Set up as a pool worker is (mmlint.check.per_file.prepare_worker): the
    server builds libcst trees only by parsing (the fixer edits text), so it
    may trust them; and it keeps the trees of the texts it parsed last."""
    from mmlint.check.per_file import remember_parses
    from mmlint.facts.libcst_internals import skip_node_validation

    skip_node_validation()
    remember_parses()  # an edited document parsed again: a comment leaves libcst's input as it was


def serve() -> int:
    """Speak the protocol on stdin / stdout until the client says exit (or
    closes stdin); the exit code: 0 after a shutdown request, else 1, as the
    protocol says. Only the protocol may reach stdout: anything else printed
    goes to stderr."""
    stdin, stdout = FdReader(sys.stdin.fileno()), sys.stdout.buffer
    sys.stdout = sys.stderr
    # It never forks (its threads make pools use forkserver), so its per-file
    # pass may run on one kept deep-stack thread rather than a new one per
    # document. libcst is set up later (prepare_parser): not imported before
    # the first diagnostics.
    keep_one_thread()
    return asyncio.run(_serve(stdin, stdout))


async def _serve(stdin: FdReader, stdout: BinaryIO) -> int:
    loop = asyncio.get_running_loop()
    server = MmlintServer(FrameWriter(stdout))

    def on_loop(call: Any, *args: Any) -> None:
        try:
            loop.call_soon_threadsafe(call, *args)
        except RuntimeError:  # the loop is closed: the server has exited
            pass

    read_in_thread(
        stdin,
        deliver=lambda body: on_loop(server.endpoint.receive, body),
        end=lambda: on_loop(lambda: server.end(0 if server.shut_down else 1)),
    )
    return await server.exited
