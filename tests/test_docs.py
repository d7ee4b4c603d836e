"""One text per rule: its sections are all there, `mmlint explain` prints it,
and the committed pages under rules/ are exactly what the rules generate."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import CliRunner

from mmlint.cli import cli
from mmlint.docs import (
    REQUIRED_SECTIONS,
    example_config_toml,
    example_file_text,
    expected_pages,
    readme_with_knowledge_sets,
    readme_with_rules_table,
    render_rule_markdown,
    rule_sections,
)
from mmlint.rules import all_rules

RULES_DIR = Path(__file__).resolve().parent.parent / "rules"
README = RULES_DIR.parent / "README.md"


def _section(page: str, heading: str) -> str:
    """The text of one ``## heading`` section of a rule page."""
    return page.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_rule_docs_have_every_section(rule):
    text = rule_sections(rule)
    for section in REQUIRED_SECTIONS:
        assert section in text, f"{rule.code} lacks {section!r}"
        body = text.split(section, 1)[1].split("\n## ", 1)[0].strip()
        assert len(body) > 40, f"{rule.code}: section {section!r} is too thin"
    assert rule.summary and not rule.summary.endswith(".")
    assert rule.code.startswith("MM") and len(rule.code) == 5


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_explain_prints_the_rule_page(rule):
    result = CliRunner().invoke(cli, ["explain", rule.code.lower()])
    assert result.exit_code == 0, result.output
    assert result.output == render_rule_markdown(rule)
    assert "## Example" in result.output and "## Use instead" in result.output


def test_committed_rule_pages_match_the_rules():
    pages = expected_pages()
    committed = {p.name: p.read_text(encoding="utf-8") for p in RULES_DIR.glob("*.md")}
    stale = sorted(name for name in pages.keys() | committed.keys() if pages.get(name) != committed.get(name))
    assert not stale, f"rules/ is out of date for {stale}: run `python -m mmlint.docs rules/`"


def test_rules_command_lists_every_rule():
    result = CliRunner().invoke(cli, ["rules", "--no-color"])
    assert result.exit_code == 0
    for rule in all_rules():
        assert rule.code in result.output and rule.name in result.output


def test_explain_unknown_code_is_a_usage_error():
    result = CliRunner().invoke(cli, ["explain", "MM123"])
    assert result.exit_code == 2
    assert "unknown rule code 'MM123'" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_good_example_differs_from_the_bad_one_as_shown(rule):
    page = CliRunner().invoke(cli, ["explain", rule.code]).output
    bad, good = _section(page, "## Example"), _section(page, "## Use instead")
    bad = bad.split("`mmlint fix` turns it into:", 1)[0]
    assert bad.strip() != good.strip(), f"{rule.code}: `explain` shows the same text as bad and good"


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_explain_shows_every_file_and_setting_an_example_needs(rule):
    page = CliRunner().invoke(cli, ["explain", rule.code]).output
    for heading, example in (("## Example", rule.bad_examples[0]), ("## Use instead", rule.good_examples[0])):
        shown = _section(page, heading)
        assert example.code.rstrip() in shown
        for name, source in example.files.items():
            assert f"# {name}\n" + example_file_text(source).rstrip() in shown, f"{rule.code}: {name} not shown"
        if example.config:
            assert example_config_toml(example.config).rstrip() in shown, f"{rule.code}: config not shown"


def test_readme_rules_table_is_generated_from_the_rules():
    text = README.read_text(encoding="utf-8")
    assert readme_with_rules_table(text) == text, "README's rules table is stale: run `python -m mmlint.docs rules/`"
    for rule in all_rules():
        assert f"| [{rule.code}](rules/{rule.code}.md) | {rule.name} |" in text


def test_readme_knowledge_table_is_generated_from_the_sets():
    text = README.read_text(encoding="utf-8")
    assert readme_with_knowledge_sets(text) == text, (
        "README's knowledge table is stale: run `python -m mmlint.docs rules/`"
    )
