"""`mmlint server`: the Language Server Protocol over stdio (the optional
extra ``mmlint[server]``: pygls and lsprotocol).

    settings   what the client configures (initialization options, workspace configuration)
    analysis   open documents → run_check over the workspace, their unsaved text in place of the disk's
    actions    what the code actions change: the fix of `mmlint fix`, fix all, suppress (from mmlint.fix)
    protocol   mmlint values → LSP values (positions in the client's encoding, text edits)
    hover      a finding explained, as Markdown
    documents  one state per open document: its analysed text and result, what was published, its actions
    code_actions  those changes as the protocol's code actions: functions of a document's state and the client
    server     the pygls wiring: documents, the one debounced analysis task, requests

Only ``protocol``, ``documents``, ``code_actions`` and ``server`` import lsprotocol or pygls; the rest is
plain mmlint and is tested in-process.
"""
