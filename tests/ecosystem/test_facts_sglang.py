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
from mmlint.facts.collect import FileWalk
from mmlint.facts.positions import node_ranges

pytestmark = pytest.mark.ecosystem


def test_positions_match_position_provider_on_the_whole_package(sglang_0_5_23_package: Path) -> None:
    prefilter = Prefilter(DEFAULT_TWINS)
    files = compared = 0
    for path in sorted(sglang_0_5_23_package.rglob("*.py")):
        data = path.read_bytes()
        if not prefilter.could_hold_finding(data):
            continue
        try:
            module = cst.parse_module(data)
        except cst.ParserSyntaxError:
            continue
        walk = FileWalk(module, path, DEFAULT_TWINS)
        walk.run()
        nodes = walk._positioned_nodes()
        ours = node_ranges(module, nodes)
        theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        for node in nodes:
            expected = theirs[node]
            assert ours[id(node)] == (expected.start.line, expected.start.column, expected.end.line, expected.end.column), (
                f"{path}: {type(node).__name__} at {expected}"
            )
        files += 1
        compared += len(nodes)
    assert files > 150 and compared > 10_000, (files, compared)


def test_mm003_agrees_with_audit_on_multimodal(sglang_0_5_23: Path, tmp_path: Path) -> None:
    assert assert_mm003_agrees_with_audit(sglang_0_5_23, tmp_path) > 80
