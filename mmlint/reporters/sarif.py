"""SARIF 2.1.0, the format GitHub code scanning and other dashboards ingest:
one run whose driver lists every rule with its documentation, and one result
per diagnostic with its location and, where fixable, the fix as text edits."""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from mmlint import __version__
from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.docs import render_rule_markdown, render_rule_text
from mmlint.reporters.escaping import json_text
from mmlint.reporters.json_report import finding_fields
from mmlint.reporters.levels import level_of
from mmlint.rules import Rule, all_rules
from mmlint.reporters.options import PLAIN, RenderFields, RenderOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from mmlint.core.report import Report

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
SOURCE_ROOT = "%SRCROOT%"

_SECTION_HEADING = re.compile(r"^## +(.+?)\s*$", re.MULTILINE)


def render(report: "Report", options: RenderOptions = PLAIN, /, **overrides: Unpack[RenderFields]) -> str:
    """The SARIF log of ``report`` as indented JSON. ``color`` is ignored."""
    return json_text(sarif_log(report))


def sarif_log(report: "Report") -> dict[str, Any]:
    """The SARIF log as plain data (what :func:`render` serialises)."""
    rules = all_rules()
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "mmlint",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule_descriptor(rule) for rule in rules],
            }
        },
        # Our columns count code points; SARIF's default would be UTF-16 code units.
        "columnKind": "unicodeCodePoints",
    }
    source_root = _source_root(report)
    checkout, prefix = _checkout_of(source_root)
    run["results"] = [_result(diagnostic, rule_index, report.file_paths, prefix) for diagnostic in report.diagnostics]
    if checkout is not None:
        run["originalUriBaseIds"] = {SOURCE_ROOT: {"uri": checkout.as_uri().rstrip("/") + "/"}}
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _what_it_does(rule) or rule.summary},
        "help": {"text": render_rule_text(rule), "markdown": render_rule_markdown(rule)},
        "defaultConfiguration": {"level": level_of(rule.code)},
        "properties": {"fixable": rule.fixable},
    }


def _what_it_does(rule: Rule) -> str:
    """The "What it does" section of the rule's documentation, as one paragraph."""
    doc = inspect.cleandoc(type(rule).__doc__ or "")
    headings = list(_SECTION_HEADING.finditer(doc))
    for position, heading in enumerate(headings):
        if heading.group(1).lower() == "what it does":
            end = headings[position + 1].start() if position + 1 < len(headings) else len(doc)
            return " ".join(doc[heading.end() : end].split())
    return ""


def _result(
    diagnostic: Diagnostic, rule_index: dict[str, int], real_paths: Mapping[str, Path], prefix: bytes = b""
) -> dict[str, Any]:
    artifact = _artifact_location(diagnostic.path, real_paths.get(diagnostic.path), prefix)
    result: dict[str, Any] = {"ruleId": diagnostic.code}
    if diagnostic.code in rule_index:
        result["ruleIndex"] = rule_index[diagnostic.code]
    result.update(
        {
            "level": level_of(diagnostic.code),
            "message": _message(diagnostic),
            "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": _region(diagnostic.span)}}],
        }
    )
    if diagnostic.related:
        result["relatedLocations"] = [
            {
                "id": index,
                "physicalLocation": {
                    "artifactLocation": _artifact_location(r.path, real_paths.get(r.path), prefix),
                    "region": _region(r.span),
                },
                "message": {"text": r.message},
            }
            for index, r in enumerate(diagnostic.related)
        ]
    properties = finding_fields(diagnostic)
    if diagnostic.help:
        properties["help"] = diagnostic.help
    if properties:
        result["properties"] = properties
    if diagnostic.fixable and diagnostic.edits:
        result["fixes"] = [
            {
                "description": {"text": diagnostic.help or f"Fix {diagnostic.code} {diagnostic.name}"},
                "artifactChanges": [
                    {
                        "artifactLocation": artifact,
                        "replacements": [
                            {"deletedRegion": _region(edit.span), "insertedContent": {"text": edit.text}}
                            for edit in diagnostic.edits
                        ],
                    }
                ],
            }
        ]
    return result


def _message(diagnostic: Diagnostic) -> dict[str, str]:
    """The one-line message as ``text``; with the help, a ``markdown`` form
    holding both (SARIF 2.1.0 3.11: a viewer that renders Markdown shows that,
    the others the text; the help is also the ``help`` property)."""
    message = {"text": diagnostic.message}
    if diagnostic.help:
        message["markdown"] = f"{diagnostic.message}\n\nhelp: {diagnostic.help}"
    return message


def _region(span: Span) -> dict[str, int]:
    # Same convention on both sides: 1-based, end column exclusive, code points
    # (declared by run.columnKind).
    return {
        "startLine": span.line,
        "startColumn": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
    }


def _is_absolute(path: str) -> bool:
    # The platform's own rule: on POSIX `C:\\evil.py` is a relative file name.
    return os.path.isabs(path)


def _artifact_location(path: str, real: Path | None, prefix: bytes = b"") -> dict[str, str]:
    """A relative display path becomes a URI relative to %SRCROOT%, the checkout
    (``prefix``: the way from the checkout to the current directory, so a run
    from `python/` still names `python/sglang/...`, as code scanning needs); a
    path outside the current directory (shown absolute) becomes a file URI of its own. The
    URI spells the file name's own bytes, percent-encoded (a backslash is part
    of a POSIX name, an invalid UTF-8 byte is `%FF`), taken from the real path
    when the report has it: the display path shows such bytes as `\\xNN` text."""
    if _is_absolute(path):
        return {"uri": (real if real is not None else Path(path)).as_uri()}
    if real is not None and os.name == "posix":
        depth = len(path.split("/"))
        name = b"/".join(os.fsencode(part) for part in real.parts[-depth:])
    else:
        name = path.encode("utf-8", "surrogateescape")
    # quote() also encodes ":" so a first segment like "a:b.py" cannot read as a scheme.
    return {"uri": quote(prefix + name, safe="/"), "uriBaseId": SOURCE_ROOT}


def _checkout_of(source_root: Path | None) -> tuple[Path | None, bytes]:
    """The git checkout holding ``source_root`` (the closest directory at or above
    it with a `.git`), and the way from it down to ``source_root`` as URI bytes
    ending in `/` (empty when they are the same). Outside a checkout: the
    source root itself, and no way."""
    if source_root is None:
        return None, b""
    for directory in (source_root, *source_root.parents):
        if os.path.lexists(directory / ".git"):
            if directory == source_root:
                return directory, b""
            way = source_root.relative_to(directory)
            return directory, b"/".join(os.fsencode(part) for part in way.parts) + b"/"
    return source_root, b""


def _source_root(report: "Report") -> Path | None:
    """The directory relative display paths start from (the current directory of
    the run), recovered from the report's display path -> absolute path pairs so
    rendering does not depend on where it happens. Falls back to the process's
    current directory when a diagnostic is relative but no scanned file is (a
    diagnostic against the configuration file alone)."""
    for display, absolute in report.file_paths.items():
        if _is_absolute(display):
            continue
        depth = len(PurePosixPath(display).parts)
        return Path(absolute).parents[depth - 1]
    if any(not _is_absolute(diagnostic.path) for diagnostic in report.diagnostics):
        return Path.cwd()
    return None
