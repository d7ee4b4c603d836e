"""MM003 and `audit` read one classification of each async def (fixtures)."""

from __future__ import annotations

from pathlib import Path

import pytest
from classification_agreement import assert_mm003_agrees_with_audit

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.mark.parametrize("tree", ["processors", "suspension", "api_guard"])
def test_mm003_fires_exactly_where_audit_says_never_suspends(tree: str, tmp_path: Path) -> None:
    assert assert_mm003_agrees_with_audit(FIXTURES / tree, tmp_path) > 0
