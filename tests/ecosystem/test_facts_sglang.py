"""The single facts pass on real code: positions identical to libcst's
PositionProvider for every node that becomes a fact, over the whole sglang
0.5.23 package; and MM003 agreeing with the audit's classification."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from classification_agreement import assert_mm003_agrees_with_audit
from libcst.metadata import MetadataWrapper, PositionProvider

from mmlint.check.prefilter import Prefilter
from mmlint.config.settings import DEFAULT_TWINS
from mmlint.core.source import decode_source, indentation_view
from mmlint.facts import positions
from mmlint.facts.anchors import statement_anchors
from mmlint.facts.collect import FileWalk

pytestmark = pytest.mark.ecosystem


def test_positions_match_position_provider_on_the_whole_package(sglang_0_5_23_package: Path) -> None:
    """Every node that becomes a fact, placed statement by statement (never
    falling back to generating the whole module), where PositionProvider puts it."""
    prefilter = Prefilter(DEFAULT_TWINS)
    files = compared = 0
    for path in sorted(sglang_0_5_23_package.rglob("*.py")):
        data = path.read_bytes()
        if not prefilter.could_hold_finding(data):
            continue
        view, _shift = indentation_view(decode_source(data))
        try:
            module = cst.parse_module(view)
        except cst.ParserSyntaxError:
            continue
        walk = FileWalk(module, path, DEFAULT_TWINS)
        walk.run()
        placed, definitions = walk._placed_nodes(), walk._definitions()
        ours = positions._by_statement(module, placed, statement_anchors(view))  # raises where it would fall back
        theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        for node in [node for node, _ in placed] + [definition.name for definition in definitions]:
            expected = theirs[node]
            assert ours.ranges[id(node)] == (
                expected.start.line,
                expected.start.column,
                expected.end.line,
                expected.end.column,
            ), f"{path}: {type(node).__name__} at {expected}"
        for definition in definitions:
            expected = theirs[definition].start
            assert ours.starts[id(definition)] == (expected.line, expected.column), f"{path}: {definition.name.value}"
        files += 1
        compared += len(placed) + 2 * len(definitions)
    assert files > 150 and compared > 10_000, (files, compared)


def test_mm003_agrees_with_audit_on_multimodal(sglang_0_5_23: Path, tmp_path: Path) -> None:
    assert assert_mm003_agrees_with_audit(sglang_0_5_23, tmp_path) > 80
