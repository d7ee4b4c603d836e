"""The language server: pygls over stdio.

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
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from mmlint import __version__
from mmlint.check.deep_stack import keep_one_thread
from mmlint.server.actions import encode_like, text_of
from mmlint.server import code_actions
from mmlint.server.analysis import Analyser, DocumentResult, Snapshot, errors_of
from mmlint.server.documents import DocumentState
from mmlint.server.hover import hover_markdown
from mmlint.server.protocol import Lines, rule_url, to_lsp
from mmlint.server.settings import ServerSettings, read_settings
from mmlint.server.wire import UNPARSABLE, MmlintProtocol
from mmlint.server.worker import DaemonWorker

FIX_ALL_COMMAND = "mmlint.fixAll"
# The files that configure mmlint (mmlint.config): a change to one re-analyses the open documents.
CONFIG_NAMES = ("pyproject.toml", "mmlint.toml", ".mmlint.toml")
CONFIG_WATCH_ID = "mmlint-configuration-files"
SOURCE_SUFFIXES = (".py", ".pyi")
SETTINGS_WAIT_SECONDS = 5.0


class MmlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "mmlint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=MmlintProtocol,
        )
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
        self.shut_down = False  # the client asked for shutdown before exit (or the end of input)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # A body that is not JSON reaches pygls' reading loop only as an error: answered on the wire.
        if isinstance(error, UNPARSABLE) and isinstance(self.protocol, MmlintProtocol):
            self.protocol.answer_unparsable(error)
            return
        super().report_server_error(error, source)

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
            self.log(types.MessageType.Error, f"mmlint: analysis failed: {type(error).__name__}: {error}")

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
        return any(
            s.uri in self.documents and self.workspace.get_text_document(s.uri).version != s.version for s in snapshots
        )

    def _snapshots(self) -> list[Snapshot]:
        snapshots = []
        for uri in self.documents:
            document = self.workspace.get_text_document(uri)
            path = to_fs_path(uri)
            if path is None:
                continue
            snapshots.append(Snapshot(uri, document.version, Path(os.path.abspath(path)), encode_like(document.source)))
        return snapshots

    def folders(self) -> list[Path]:
        """The workspace folders (else the root the client gave)."""
        roots = []
        for folder in self.workspace.folders.values():
            folder_path = to_fs_path(folder.uri)
            if folder_path:
                roots.append(Path(os.path.abspath(folder_path)))
        if not roots and self.workspace.root_path:
            roots.append(Path(os.path.abspath(self.workspace.root_path)))
        return roots

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
        texts = {s.uri: s for s in snapshots}
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
                    types.MessageType.Error,
                    f"mmlint: {result.path}: cannot show its diagnostics: "
                    f"{type(error).__name__}: {error}\n{traceback.format_exc()}",
                )
                continue
            if state.published == (snapshot.version, diagnostics):
                continue  # neither the text nor its diagnostics changed
            state.published = (snapshot.version, diagnostics)
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=snapshot.uri, diagnostics=diagnostics, version=snapshot.version)
            )

    def _report_errors(self, results: Iterable[DocumentResult]) -> None:
        for analyser in list(self.analysers.values()):
            warning = analyser.cache_warning  # the user's cache is not safe to use: said once, as `check` does
            if warning and warning not in self.shown_warnings:
                self.shown_warnings.add(warning)
                self.log(types.MessageType.Warning, f"mmlint: warning: {warning}")
        for result in results:
            if result.details:  # a crash: the traceback goes to the log, every time
                self.log(types.MessageType.Error, f"mmlint: {result.path}: {result.error}\n{result.details}")
        errors = errors_of(results)
        for error in errors:
            if error not in self.last_errors:  # a bad configuration: shown when it appears, not at every keystroke
                self.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"mmlint: {error}"))
                self.log(types.MessageType.Error, f"mmlint: {error}")
        self.last_errors = set(errors)

    def lsp_diagnostics(self, result: DocumentResult, texts: Mapping[str, Snapshot]) -> list[types.Diagnostic]:
        encoding = self.workspace.position_encoding or types.PositionEncodingKind.Utf16
        lines = Lines(text_of(result.data) or "", encoding)
        root = self.root_of(result.path)

        def path_of(shown: str) -> Path:
            return Path(os.path.abspath(root / shown))

        def uri_of(shown: str) -> str | None:
            uri: str | None = from_fs_path(str(path_of(shown)))  # pygls leaves it unannotated
            return uri

        def lines_of(shown: str) -> Lines | None:
            path = path_of(shown)
            uri = from_fs_path(str(path))
            try:
                data = texts[uri].data if uri in texts else path.read_bytes()
            except OSError:
                return None
            text = text_of(data)
            return Lines(text, encoding) if text is not None else None

        return [
            to_lsp(d, lines, uri_of=uri_of, lines_of=lines_of, rule_docs_url=self.settings.rule_docs_url)
            for d in result.diagnostics
        ]

    def log(self, kind: types.MessageType, message: str) -> None:
        self.window_log_message(types.LogMessageParams(kind, message))

    # -- settings --------------------------------------------------------------------------

    def apply_settings(self, settings: ServerSettings) -> None:
        for warning in settings.warnings:
            self.log(types.MessageType.Warning, f"mmlint: {warning}")
        self.settings = settings
        self.analysers = {}  # new select / ignore / config: new resolvers (the facts stay on disk)
        for state in self.documents.values():
            state.actions = None
        self.last_errors = set()

    async def pull_settings(self) -> None:
        """The workspace configuration's ``mmlint`` section, over the initialization options."""
        capability = self.client_capabilities.workspace
        if capability is None or not capability.configuration:
            return
        try:
            (section,) = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="mmlint")])
            )
        except Exception as error:  # a client that advertises it but fails: keep what we have
            self.log(types.MessageType.Warning, f"mmlint: workspace/configuration failed: {error}")
            return
        if section is not None:
            self.apply_settings(read_settings(section, self.initial_settings, where="workspace configuration"))

    async def watch_configuration_files(self) -> None:
        """Ask the client to tell of changes to configuration files, where it can be asked."""
        workspace = self.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace is not None else None
        if watched is None or not watched.dynamic_registration:
            return
        watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_NAMES]
        registration = types.Registration(
            id=CONFIG_WATCH_ID,
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        try:
            await self.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
        except Exception as error:  # the client refused: configuration edits apply at the next change
            self.log(types.MessageType.Warning, f"mmlint: cannot watch the configuration files: {error}")

    # -- what code actions see -------------------------------------------------------------

    def current(self, uri: str) -> DocumentState | None:
        """The document's state, if its last run analysed the text the client has now."""
        state = self.documents.get(uri)
        if state is None or state.snapshot is None:
            return None
        if state.snapshot.version != self.workspace.get_text_document(uri).version:
            return None
        return state

    def client_view(self) -> code_actions.ClientView:
        return code_actions.ClientView.of(self.client_capabilities, self.workspace.position_encoding)

    def reanalyser(self, state: DocumentState) -> code_actions.Reanalyse:
        """Analyses another text of ``state``'s document (fix all's rounds), the
        other documents as the last run read them; called on the worker thread."""
        assert state.snapshot is not None
        path = state.snapshot.path
        others = {s.snapshot.path: s.snapshot.data for s in self.documents.values() if s.snapshot is not None}
        return lambda data: self.analyser_for(self.root_of(path)).analyse_one(path, data, others)


def _uri_argument(argument: Any) -> str | None:
    if isinstance(argument, str):
        return argument
    if isinstance(argument, Mapping):
        uri = argument.get("uri")
        return uri if isinstance(uri, str) else None
    return None


def _contains(where: types.Range, position: types.Position) -> bool:
    start, end = where.start, where.end
    return (start.line, start.character) <= (position.line, position.character) <= (end.line, end.character)


def _is_configuration(uri: str) -> bool:
    return uri.rsplit("/", 1)[-1] in CONFIG_NAMES


def is_python(document: types.TextDocumentItem) -> bool:
    return document.language_id == "python" or document.uri.endswith(SOURCE_SUFFIXES)


def prepare_parser() -> None:
    """Set up as a pool worker is (mmlint.check.per_file.prepare_worker): the
    server builds libcst trees only by parsing (the fixer edits text), so it
    may trust them; and it keeps the trees of the texts it parsed last."""
    from mmlint.check.per_file import remember_parses
    from mmlint.facts.libcst_internals import skip_node_validation

    skip_node_validation()
    remember_parses()  # an edited document parsed again: a comment leaves libcst's input as it was


def build_server() -> MmlintServer:
    server = MmlintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: MmlintServer, params: types.InitializeParams) -> None:
        ls.initial_settings = read_settings(params.initialization_options, where="initializationOptions")
        ls.apply_settings(ls.initial_settings)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: MmlintServer, params: types.InitializedParams) -> None:
        try:
            await ls.pull_settings()
        finally:
            ls.settings_ready().set()
        await ls.watch_configuration_files()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: MmlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        # The configuration is read afresh by every run (Analyser._resolver); what
        # was missing is a run: without one, an edit on disk waited for a keystroke.
        if ls.documents and any(_is_configuration(change.uri) for change in params.changes):
            ls.request_run(urgent=True)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: MmlintServer, params: types.DidChangeConfigurationParams) -> None:
        if params.settings:
            ls.apply_settings(read_settings(params.settings, ls.initial_settings, where="settings"))
        await ls.pull_settings()
        ls.request_run(urgent=True)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: MmlintServer, params: types.DidOpenTextDocumentParams) -> None:
        if is_python(params.text_document):
            ls.documents[params.text_document.uri] = DocumentState(params.text_document.uri)
            ls.request_run(urgent=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: MmlintServer, params: types.DidChangeTextDocumentParams) -> None:
        if params.text_document.uri in ls.documents:
            ls.request_run()

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: MmlintServer, params: types.DidSaveTextDocumentParams) -> None:
        if params.text_document.uri in ls.documents:
            ls.request_run(urgent=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: MmlintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if ls.documents.pop(uri, None) is not None:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
            if ls.documents:  # its unsaved text no longer stands for the file
                ls.request_run(urgent=True)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, code_actions.FIX_ALL_KIND]),
    )
    async def code_action(ls: MmlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        await ls.up_to_date()
        state = ls.current(params.text_document.uri)
        if state is None:
            return []
        only = [str(kind) for kind in params.context.only] if params.context.only else None
        return await asyncio.get_running_loop().run_in_executor(
            ls.executor, code_actions.code_actions, state, ls.client_view(), params.range, only, ls.reanalyser(state)
        )

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: MmlintServer, params: types.HoverParams) -> types.Hover | None:
        """The findings under the cursor, explained (mmlint.server.hover)."""
        await ls.up_to_date()
        state = ls.current(params.text_document.uri)
        if state is None or state.result is None:
            return None
        result = state.result
        lines = Lines(text_of(result.data) or "", ls.workspace.position_encoding or types.PositionEncodingKind.Utf16)
        under = [d for d in result.diagnostics if _contains(lines.range(d.span), params.position)]
        markdown = hover_markdown(under, {d.code: rule_url(d.code, ls.settings.rule_docs_url) for d in under})
        if markdown is None:
            return None
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, markdown), lines.range(under[0].span))

    @server.command(FIX_ALL_COMMAND)
    async def fix_all_command(ls: MmlintServer, *arguments: Any) -> bool:
        """``mmlint.fixAll`` with the document's URI (or ``{"uri": ...}``): the
        fixes of `mmlint fix` sent to the client as one workspace edit.
        True when an edit was sent and applied."""
        uri = _uri_argument(arguments[0]) if arguments else None
        if uri is None:
            raise ValueError("mmlint.fixAll takes the document's URI")
        await ls.up_to_date()
        state = ls.current(uri)
        if state is None:
            return False
        edit = await asyncio.get_running_loop().run_in_executor(
            ls.executor, code_actions.fix_all_edit, state, ls.client_view(), ls.reanalyser(state)
        )
        if edit is None:
            return False
        applied = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label="mmlint: fix all")
        )
        return bool(applied.applied)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: MmlintServer, params: None) -> None:
        ls.shut_down = True
        if ls._run_task is not None:
            ls._run_task.cancel()
        ls.executor.shutdown(wait=False, cancel_futures=True)

    return server


def serve() -> int:
    """Speak the protocol on stdin / stdout until the client says exit (or
    closes stdin); the exit code: 0 after a shutdown request, else 1, as the
    protocol says. Only the protocol may reach stdout: anything else printed
    goes to stderr."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    # It never forks (its threads make pools use forkserver), so its per-file
    # pass may run on one kept deep-stack thread rather than a new one per
    # document. libcst is set up later (prepare_parser): not imported before
    # the first diagnostics.
    keep_one_thread()
    server = build_server()
    server.start_io(stdin, stdout)
    return 0 if server.shut_down else 1
