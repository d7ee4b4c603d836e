"""MM012 stale-configuration: on a full scan, exemptions and per-file-ignores that
match or act on nothing are reported against the configuration file, at the
line of their key; on a partial scan (pre-commit) they are not judged."""

from __future__ import annotations

import textwrap

import pytest

from mmlint.api import check

PROCESSOR = textwrap.dedent(
    """\
    class ClipProcessor(BaseMultimodalProcessor):
        async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
            return self.process_and_combine_mm_data(image_data, self.mm_tokens)

        async def legacy_entry(self):
            return 1
    """
)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pkg" / "legacy").mkdir(parents=True)
    (tmp_path / "pkg" / "clip.py").write_text(PROCESSOR)
    (tmp_path / "pkg" / "gemma.py").write_text(PROCESSOR.replace("ClipProcessor", "GemmaProcessor"))
    (tmp_path / "pkg" / "legacy" / "old.py").write_text("async def old():\n    return 1\n")
    return tmp_path


def write_config(project, body: str) -> None:
    (project / "pyproject.toml").write_text('[tool.mmlint]\npaths = ["pkg"]\n' + textwrap.dedent(body))


def stale(report):
    return sorted(
        (d.path, d.span.line, d.message, d.help)
        for d in report.diagnostics
        if d.code == "MM012" and d.path == "pyproject.toml"
    )


def test_live_entries_are_not_reported(project):
    write_config(
        project,
        """
        [tool.mmlint.exempt]
        classes = ["ClipProcessor"]
        functions = ["GemmaProcessor.legacy_entry"]
        paths = ["**/legacy/*.py"]

        [tool.mmlint.per-file-ignores]
        "**/gemma.py" = ["MM001"]
        """,
    )
    report = check(cwd=project)
    assert stale(report) == []
    assert [(d.path, d.code) for d in report.diagnostics] == [("pkg/gemma.py", "MM003")]  # the entry point


def test_dead_entries_are_reported_at_their_keys(project):
    write_config(
        project,
        """
        [tool.mmlint.exempt]
        classes = ["GoneProcessor"]
        functions = ["ClipProcessor.gone", "gone_helper"]
        paths = ["**/gone/*.py"]

        [tool.mmlint.per-file-ignores]
        "**/nowhere/*.py" = ["MM003"]
        "**/clip.py" = ["MM002"]
        """,
    )
    assert stale(check(cwd=project)) == [
        (
            "pyproject.toml",
            5,
            "stale configuration: exempt.classes entry names no class",
            "no parsed file defines a class 'GoneProcessor', so it exempts nothing; "
            "delete the entry, or correct the name it meant",
        ),
        (
            "pyproject.toml",
            6,
            "stale configuration: exempt.functions entry names no function",
            "no parsed file defines a function 'ClipProcessor.gone', so it exempts nothing; "
            "delete the entry, or correct the name it meant",
        ),
        (
            "pyproject.toml",
            6,
            "stale configuration: exempt.functions entry names no function",
            "no parsed file defines a function 'gone_helper', so it exempts nothing; "
            "delete the entry, or correct the name it meant",
        ),
        (
            "pyproject.toml",
            7,
            "stale configuration: exempt.paths entry matches no scanned file",
            "'**/gone/*.py': delete the entry, or correct the glob it meant",
        ),
        (
            "pyproject.toml",
            10,
            "stale configuration: per-file-ignores entry matches no scanned file",
            "'**/nowhere/*.py': delete the entry, or correct the glob it meant",
        ),
        (
            "pyproject.toml",
            11,
            "stale configuration: per-file-ignores entry ignores nothing",
            "'**/clip.py': MM002 not reported in the files it matches; delete the entry, or the codes no longer needed",
        ),
    ]


def test_partial_scans_do_not_judge_configuration(project):
    write_config(project, '\n[tool.mmlint.exempt]\npaths = ["**/gone/*.py"]\n')
    assert stale(check(["pkg/clip.py"], cwd=project)) == []


def test_per_file_ignores_of_unselected_codes_are_not_judged(project):
    write_config(project, '\n[tool.mmlint.per-file-ignores]\n"**/clip.py" = ["MM002"]\n')
    assert stale(check(cwd=project, select=["MM001", "MM012"])) == []
    assert len(stale(check(cwd=project))) == 1


def test_bare_ignore_is_judged_only_when_every_rule_runs(tmp_path):
    (tmp_path / "m.py").write_text(
        "async def f(self):\n    await g()\n    return self.process_and_combine_mm_data(1)  # mmlint: ignore\n"
    )
    assert [d.code for d in check(cwd=tmp_path, select=["MM009"]).diagnostics] == []
    assert [d.code for d in check(cwd=tmp_path).diagnostics] == []  # it suppresses the MM001
    (tmp_path / "m.py").write_text("async def f(self):\n    await g()  # mmlint: ignore\n")
    assert [d.code for d in check(cwd=tmp_path).diagnostics] == ["MM009"]


def test_a_suppression_and_an_exemption_of_the_same_finding_are_both_in_use(project):
    source = PROCESSOR.replace(
        "return self.process_and_combine_mm_data(image_data, self.mm_tokens)",
        "return self.process_and_combine_mm_data(image_data, self.mm_tokens)  # mmlint: ignore[MM001]",
    )
    (project / "pkg" / "clip.py").write_text(source)
    write_config(
        project,
        '\n[tool.mmlint.exempt]\nclasses = ["ClipProcessor"]\n\n[tool.mmlint.per-file-ignores]\n"**/clip.py" = ["MM001"]\n',
    )
    report = check(cwd=project)
    assert [d for d in report.diagnostics if d.code in ("MM009", "MM012")] == []


def test_stale_configuration_is_not_an_unused_suppression(project):
    write_config(project, '\n[tool.mmlint.exempt]\npaths = ["**/gone/*.py"]\n')
    codes = [d.code for d in check(cwd=project, ignore=["MM009"]).diagnostics if d.path == "pyproject.toml"]
    assert codes == ["MM012"]
    assert [d.path for d in check(cwd=project, ignore=["MM012"]).diagnostics if d.path == "pyproject.toml"] == []
