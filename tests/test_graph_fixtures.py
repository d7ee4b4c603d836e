"""The whole program (issue 18) and twins by assignment (issue 19), on
fixtures/graph: an override of the async method cuts a chain, twins bypassed
through the call graph, re-exports, `make_async` twins, MM004 for a root
that is exempt or suppressed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from cli_support import CliRunner
from expectations import assert_diagnostics_match, expected_findings

from mmlint.api import check
from mmlint.cli import cli

PACKAGE = Path(__file__).resolve().parent.parent / "fixtures" / "graph"
CODES = ("MM003", "MM004", "MM005", "MM010")
NOTE = re.compile(r"#\s*(?P<kind>fixable|unfixable: (?P<reason>[^#]+?))\s*#\s*expect:")


def _report():
    return check(cwd=PACKAGE)


def test_defaults_report_exactly_the_markers() -> None:
    assert_diagnostics_match(expected_findings(PACKAGE, PACKAGE), _report().diagnostics, CODES)


def test_each_mm010_is_fixable_or_not_as_its_note_says() -> None:
    notes = {}
    for file in sorted(PACKAGE.rglob("*.py")):
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            if (match := NOTE.search(line)) is not None:
                notes[(file.relative_to(PACKAGE).as_posix(), number)] = match.group("reason")
    reported = {(d.path, d.span.line): d for d in _report().diagnostics if d.code == "MM010"}
    assert set(reported) == set(notes)
    for place, reason in notes.items():
        diagnostic = reported[place]
        if reason is None:
            assert diagnostic.fixable and diagnostic.edits, diagnostic.message
        else:
            assert not diagnostic.fixable and reason in diagnostic.help, diagnostic.help


def test_an_override_of_the_async_method_cuts_the_chain_through_the_subclass() -> None:
    report = _report()
    analysis = report.project.suspension
    weights = report.project.weight(report.settings.heavy_calls)
    by_name = {analysis.defs[key].qualname: key for key in analysis.defs_by_path["gpkg/overrides.py"]}
    cut = weights.weight(by_name["BaseRenderer.render_messages_async"])
    assert cut is not None and cut.kind != "heavy"  # TemplateRenderer overrides it
    kept = weights.weight(by_name["BaseEncoder.encode_prompt_async"])
    assert kept is not None and kept.kind == "heavy" and "EagerEncoder.encode_prompt" in kept.chain[0]


def _collect(tmp_path: Path, source: str):
    import textwrap

    import libcst as cst

    from mmlint.config.settings import DEFAULT_TWINS
    from mmlint.facts.collect import collect_facts

    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return collect_facts(cst.parse_module(path.read_text(encoding="utf-8")), path, "m.py", DEFAULT_TWINS)


def test_all_names_is_the_literal_dunder_all_and_none_otherwise(tmp_path: Path) -> None:
    assert _collect(tmp_path, '__all__ = ["stop", "stop_async"]\n__all__ += ["x"]\n').all_names == (
        "stop",
        "stop_async",
    )
    assert _collect(tmp_path, "__all__ = ('a',)\n").all_names == ("a",)
    assert _collect(tmp_path, "__all__ = ['a'] + other.__all__\n").all_names is None
    assert _collect(tmp_path, "__all__ = [name, 'b']\n").all_names is None
    assert _collect(tmp_path, "x = 1\n").all_names is None
    assert _collect(tmp_path, "def f():\n    __all__ = ['a']\n").all_names is None


def test_a_star_import_binds_the_names_of_all_or_the_public_ones(tmp_path: Path) -> None:
    from suspension_support import write_project

    shared = {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "from .api import *\n",
        "pkg/routes.py": """
            from pkg import sub

            async def route(engine):
                sub.stop(engine)
                sub._kill(engine)
        """,
    }
    api = """
        import asyncio
        {all}
        def stop(engine):
            engine.stop()

        async def stop_async(engine):
            await asyncio.to_thread(stop, engine)

        def _kill(engine):
            engine.kill()

        async def _kill_async(engine):
            await asyncio.to_thread(_kill, engine)
    """

    def lines(all_line: str) -> list[int]:
        root = write_project(tmp_path / str(len(all_line)), {**shared, "pkg/sub/api.py": api.format(all=all_line)})
        return [d.span.line for d in check(cwd=root, select=["MM010"]).diagnostics]

    assert lines("") == [4]  # no `__all__`: the names without a leading underscore
    assert lines('__all__ = ["stop", "stop_async", "_kill", "_kill_async"]') == [4, 5]
    assert lines('__all__ = ["_kill", "_kill_async"]') == [5]


def test_a_plain_package_init_is_parsed_for_its_re_exports() -> None:
    report = _report()
    assert "gpkg/control/__init__.py" in report.project.files
    assert report.project.files["gpkg/control/api.py"].all_names == (
        "stop",
        "stop_async",
        "drain",
        "drain_async",
        "pause",
    )


@pytest.mark.slow
def test_fix_rewrites_the_fixable_sites_to_the_assigned_and_re_exported_twins(tmp_path: Path, monkeypatch) -> None:
    work = tmp_path / "graph"
    shutil.copytree(PACKAGE, work)
    before = check(cwd=work, select=["MM010"]).diagnostics
    fixable = sum(d.fixable for d in before)
    monkeypatch.chdir(work)
    result = CliRunner().invoke(cli, ["fix", "--select", "MM010", "--no-cache"], catch_exceptions=False)
    assert result.exit_code == 1, result.output  # unfixable sites remain
    after = check(cwd=work, select=["MM010"]).diagnostics
    assert len(after) == len(before) - fixable and not any(d.fixable for d in after)
    inputs = (work / "gpkg/inputs.py").read_text(encoding="utf-8")
    assert "request = await self.process_inputs_async(prompt)  # fixable" in inputs
    assert "yield await self.process_inputs_async(chunk)" in inputs
    assert "return await load_embeds_async(path)" in inputs
    routes = (work / "gpkg/routes.py").read_text(encoding="utf-8")
    assert "await control.halt_async(engine)" in routes and "await ctl.stop_async(engine)" in routes


def test_only_the_configured_wrappers_define_twins(tmp_path: Path) -> None:
    shutil.copytree(PACKAGE / "gpkg", tmp_path / "gpkg")
    config = tmp_path / "mmlint.toml"
    config.write_text('paths = ["gpkg"]\ntwin-wrappers = ["to_thread"]\n', encoding="utf-8")
    report = check(cwd=tmp_path, config=config, select=["MM010"])
    lines = {d.span.line for d in report.diagnostics if d.path == "gpkg/inputs.py"}
    assert lines == {35}  # `self.render`, twinned through `partial(asyncio.to_thread, ...)`


def test_a_twin_bypassed_two_calls_deep_names_the_chain_and_the_fix() -> None:
    (deep,) = [d for d in _report().diagnostics if d.path == "gpkg/engine.py" and d.span.line == 52]
    assert deep.code == "MM010" and not deep.fixable and not deep.edits
    assert "`_rpc_async` is defined at gpkg/engine.py:18" in deep.help
    assert "needs an async path through the chain to `_rpc_async`" in deep.help
    assert deep.chain == (
        "`Engine.get_load` at gpkg/engine.py:25",
        "`Engine._collect_loads` at gpkg/engine.py:22",
        "`self._rpc`",
    )


def test_a_blocking_chain_that_bypasses_a_twin_is_mm010s_not_mm005s(tmp_path: Path) -> None:
    shutil.copytree(PACKAGE / "gpkg", tmp_path / "gpkg")
    config = tmp_path / "mmlint.toml"
    config.write_text('paths = ["gpkg"]\n[blocking-calls]\nextend = ["*.socket.poll"]\n', encoding="utf-8")
    report = check([tmp_path / "gpkg" / "engine.py"], cwd=tmp_path, config=config)
    codes = {(d.span.line, d.code) for d in report.diagnostics}
    assert (52, "MM010") in codes and (52, "MM005") not in codes and (56, "MM005") not in codes


def test_a_root_whose_mm003_is_ignored_for_its_file_leaves_its_awaits_to_mm004(tmp_path: Path) -> None:
    shutil.copytree(PACKAGE / "gpkg", tmp_path / "gpkg")
    config = tmp_path / "mmlint.toml"
    config.write_text(
        'paths = ["gpkg"]\n[exempt]\npaths = ["gpkg/vendored/**"]\nfunctions = ["legacy_render"]\n'
        '[per-file-ignores]\n"gpkg/hollow.py" = ["MM003"]\n',
        encoding="utf-8",
    )
    report = check(cwd=tmp_path, config=config, select=["MM003", "MM004"])
    assert {(d.span.line, d.code) for d in report.diagnostics if d.path == "gpkg/hollow.py"} == {
        (10, "MM004"),
        (18, "MM004"),
        (26, "MM004"),
    }
