"""`mmlint server`: the Language Server Protocol over stdio, with no
dependency but mmlint's own (the protocol's messages are plain dicts).

    settings      what the client configures (initialization options, workspace configuration)
    analysis      open documents → run_check over the workspace, their unsaved text in place of the disk's
    actions       what the code actions change: the fix of `mmlint fix`, fix all, suppress (from mmlint.fix)
    protocol      mmlint values → LSP values (positions in the client's encoding, diagnostics, text edits)
    hover         a finding explained, as Markdown
    documents     one state per open document: its analysed text and result, what was published, its actions
    code_actions  those changes as the protocol's code actions: functions of a document's state and the client
    text_sync     the open documents' texts, changed as the protocol says (its lines, its position encodings)
    uris          file: URIs ↔ paths
    handshake     what initialize settles: the client's capabilities, the encoding, the folders, ours
    framing       Content-Length framing; standard input read on a thread of its own
    shapes        what each message's params must hold (checked before a handler reads them)
    wire          JSON-RPC 2.0: dispatch, answers and errors, our requests to the client, the lifecycle
    worker        the analysis thread (a daemon: exit never waits for it)
    server        the state machine: documents, the one debounced analysis task, the handlers

Only ``framing``, ``wire`` and ``server`` touch the connection; the rest is
plain values and is tested in-process.
"""
