"""Dropped coroutines (MM011) on fixtures/dropped: exactly the `# expect:`
markers; the facts that mark a discarded call; the message, its related
location and one finding per site beside MM006."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from expectations import assert_diagnostics_match, expected_findings

from mmlint.api import check
from mmlint.facts.collect import collect_facts
from mmlint.facts.model import FileFacts
from mmlint.rules import all_codes

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "dropped"


def _facts(source: str, tmp_path: Path) -> FileFacts:
    path = tmp_path / "module.py"
    path.write_text(source, encoding="utf-8")
    return collect_facts(cst.parse_module(source), path, "module.py", ())


def test_a_full_scan_reports_exactly_the_markers() -> None:
    report = check(cwd=PACKAGE)
    assert_diagnostics_match(expected_findings(PACKAGE, PACKAGE), report.diagnostics, all_codes())


def test_each_file_checked_on_its_own_reports_its_markers() -> None:
    # The callee's module is context then, not a target: the callers' findings stay.
    for name in ("client.py", "service.py"):
        report = check([PACKAGE / "dpkg" / name], cwd=PACKAGE, select=["MM011"])
        expected = expected_findings(PACKAGE / "dpkg", PACKAGE)
        wanted = {finding: count for finding, count in expected.items() if finding.path == f"dpkg/{name}"}
        assert_diagnostics_match(type(expected)(wanted), report.diagnostics, ["MM011"])


def test_the_message_is_short_and_the_async_def_is_related() -> None:
    report = check(cwd=PACKAGE, select=["MM011"])
    (found,) = [d for d in report.diagnostics if d.path == "dpkg/client.py" and d.span.line == 16]
    assert found.message == "coroutine never awaited: its body never runs"
    assert found.help.startswith("`self.disconnect(...)` makes a coroutine and drops it; await it")
    assert all(len(d.message) < 60 for d in report.diagnostics)
    (related,) = found.related
    assert (related.path, related.span.line) == ("dpkg/client.py", 12)
    assert related.message == "`EngineClient.disconnect` is an `async def`"
    assert [o.name for o in found.owner] == ["EngineClient", "shutdown"]
    assert not found.fixable
    (remote,) = [d for d in report.diagnostics if d.path == "dpkg/service.py" and d.span.line == 10]
    assert [(r.path, r.span.line) for r in remote.related] == [("dpkg/control.py", 6)]


def test_a_configured_twin_is_mm006_alone_even_when_mm006_is_not_selected() -> None:
    report = check([PACKAGE / "dpkg" / "service.py"], cwd=PACKAGE, select=["MM011"])
    assert not [d for d in report.diagnostics if d.span.line in (37, 46)]


def test_a_discarded_call_is_marked_in_both_kinds_of_def(tmp_path: Path) -> None:
    facts = _facts(
        "import asyncio\n"
        "def close(self):\n"
        "    self.disconnect()\n"
        "    pending = self.disconnect()\n"
        "    logger.info('closed')\n"
        "    asyncio.run(self.disconnect())\n"
        "async def restart(self):\n"
        "    self.disconnect()\n"
        "    await self.disconnect()\n"
        "    asyncio.create_task(self.disconnect())\n",
        tmp_path,
    )
    (close,) = facts.sync_defs
    assert [(c.callee.describe(), c.discarded, c.scheduled) for c in close.calls] == [
        ("self.disconnect", True, False),
        ("self.disconnect", False, False),
        ("logger.info", True, False),
        ("asyncio.run", True, False),
        ("self.disconnect", False, True),
    ]
    (restart,) = facts.async_defs
    assert [(c.callee.describe(), c.discarded) for c in restart.calls] == [
        ("self.disconnect", True),
        ("self.disconnect", False),
        ("asyncio.create_task", True),
        ("self.disconnect", False),
    ]


def test_only_a_sync_call_that_may_drop_a_coroutine_is_placed(tmp_path: Path) -> None:
    """Placing a call costs a codegen of its line: a discarded call whose
    callee is a local value, a module-level assignment or a builtin is never
    a scanned async def, and gets no span."""
    facts = _facts(
        "import logging\n"
        "import mod\n"
        "logger = logging.getLogger(__name__)\n"
        "class C:\n"
        "    def close(self, items):\n"
        "        self.disconnect()\n"
        "        mod.stop()\n"
        "        logger.info('x')\n"
        "        items.append(1)\n"
        "        print('x')\n"
        "def outer():\n"
        "    async def inner():\n"
        "        pass\n"
        "    inner()\n",
        tmp_path,
    )
    placed = {c.callee.describe(): c.span for d in facts.sync_defs for c in d.calls}
    assert placed["self.disconnect"] is not None and placed["self.disconnect"].line == 6
    assert placed["mod.stop"] is not None and placed["inner"] is not None
    assert placed["logger.info"] is None and placed["items.append"] is None and placed["print"] is None
