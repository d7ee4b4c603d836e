"""A parsed module whose identifiers are spelled as Python compares them
(NFKC), so every fact (twin calls, blocking-call names, definitions, imports,
resolution) holds the normalised name. Only a file holding an identifier
character NFKC changes is rebuilt (mmlint.core.identifiers); every other
module is returned as it is, at no cost beyond one look at its characters."""

from __future__ import annotations

import libcst as cst

from mmlint.core.identifiers import may_hold_unnormalised_identifiers, normalise_identifier


def with_normalised_identifiers(module: cst.Module, text: str) -> cst.Module:
    """``module`` (parsed from ``text``) with each Name NFKC-normalised.
    The file itself is never changed: fixes are edits of the original text."""
    if not may_hold_unnormalised_identifiers(text):
        return module
    return module.visit(_NormaliseNames())


class _NormaliseNames(cst.CSTTransformer):
    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        normal = normalise_identifier(updated_node.value)
        # Positions are columns of the module's generated code: a name whose
        # normal form has another length (a ligature, `ﬁ` -> `fi`) would move
        # every column after it, and a fix would miss its call. Such names are
        # kept as written: fullwidth and mathematical letters, the spellings that
        # pass for ASCII, map one character to one.
        if normal == updated_node.value or len(normal) != len(updated_node.value):
            return updated_node
        return updated_node.with_changes(value=normal)
