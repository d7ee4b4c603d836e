"""The sarif reporter: every log validates against the official SARIF 2.1.0
schema, the driver lists every rule, and results carry locations and fixes."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from reporter_support import REAL_PROCESSOR, make_report, sample_report, sync_twin_call

from mmlint.core.diagnostics import Diagnostic, Span
from mmlint.reporters import FORMATS, sarif
from mmlint.rules import all_rules

jsonschema = pytest.importorskip("jsonschema")

# OASIS's published SARIF 2.1.0 schema (errata 01), kept as test data so the
# validation runs in any checkout.
SCHEMA_PATH = Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


def _log(report) -> dict:
    return json.loads(sarif.render(report))


def _assert_valid(validator, log: dict) -> None:
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_sample_log_is_valid_sarif(validator, tmp_path: Path) -> None:
    _assert_valid(validator, _log(sample_report(tmp_path)))


def test_empty_log_is_valid_sarif(validator, tmp_path: Path) -> None:
    log = _log(make_report([], {"a.py": tmp_path / "a.py"}))
    _assert_valid(validator, log)
    assert log["runs"][0]["results"] == []


def test_header_and_driver(tmp_path: Path) -> None:
    from mmlint import __version__

    log = _log(sample_report(tmp_path))
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-schema-2.1.0.json")
    (run,) = log["runs"]
    assert run["columnKind"] == "unicodeCodePoints"
    driver = run["tool"]["driver"]
    assert driver["name"] == "mmlint"
    assert driver["version"] == __version__
    assert "informationUri" not in driver


def test_driver_lists_every_registered_rule_with_docs(tmp_path: Path) -> None:
    from mmlint.docs import render_rule_markdown, render_rule_text

    rules = all_rules()
    assert rules, "no rules registered"
    descriptors = _log(sample_report(tmp_path))["runs"][0]["tool"]["driver"]["rules"]
    assert [d["id"] for d in descriptors] == [rule.code for rule in rules]
    for rule, descriptor in zip(rules, descriptors):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["fullDescription"]["text"].strip()
        assert descriptor["help"] == {"text": render_rule_text(rule), "markdown": render_rule_markdown(rule)}


def test_results_point_at_the_rule_and_the_region(tmp_path: Path) -> None:
    log = _log(sample_report(tmp_path))
    (run,) = log["runs"]
    codes = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["MM003", "MM001", "MM009"]
    assert [r["level"] for r in results] == ["error", "error", "warning"]
    for result in results:
        assert codes[result["ruleIndex"]] == result["ruleId"]
    location = results[1]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "processors/clip.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 29, "startColumn": 34, "endLine": 31, "endColumn": 10}
    assert results[0]["message"]["text"].startswith("`async def load` never suspends")
    # Reserved characters are percent-encoded: a ":" left bare in the first segment
    # of a relative reference would read as a URI scheme.
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "odd%20dir/a%2Cb%3Ac.py"


def test_help_is_a_markdown_message_a_property_and_the_fix_description(tmp_path: Path) -> None:
    results = _log(sample_report(tmp_path))["runs"][0]["results"]
    helped, plain = results[1], results[2]
    help_text = "await `process_and_combine_mm_data_async` instead: 100% the same"
    assert helped["message"] == {
        "text": "`process_and_combine_mm_data` called in an `async def`: it bypasses the worker pool",
        "markdown": "`process_and_combine_mm_data` called in an `async def`: it bypasses the worker pool\n\n"
        f"help: {help_text}",
    }
    assert helped["properties"]["help"] == help_text
    assert helped["fixes"][0]["description"] == {"text": help_text}
    assert set(plain["message"]) == {"text"} and "help" not in plain.get("properties", {})
    assert plain["fixes"][0]["description"] == {"text": "Fix MM009 unused-suppression"}


def test_source_root_is_the_directory_of_the_relative_paths(tmp_path: Path) -> None:
    run = _log(sample_report(tmp_path))["runs"][0]
    root_uri = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert root_uri.endswith("/")
    assert Path(unquote(urlparse(root_uri).path)) == tmp_path


def test_path_outside_the_current_directory_is_an_absolute_file_uri(tmp_path: Path) -> None:
    outside = (tmp_path / "elsewhere" / "x.py").as_posix()
    diagnostic = Diagnostic(outside, Span(1, 1, 1, 6), "MM003", "fake-async", "m")
    result = _log(make_report([diagnostic], {outside: Path(outside)}))["runs"][0]["results"][0]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": Path(outside).as_uri()}


def test_fixes_are_built_from_the_edits(tmp_path: Path) -> None:
    results = _log(sample_report(tmp_path))["runs"][0]["results"]
    assert "fixes" not in results[0]  # MM003 is not fixable
    (fix,) = results[1]["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"] == {"uri": "processors/clip.py", "uriBaseId": "%SRCROOT%"}
    expected = sync_twin_call("processors/clip.py", 29, 34).edits
    assert change["replacements"] == [
        {
            "deletedRegion": {
                "startLine": edit.span.line,
                "startColumn": edit.span.column,
                "endLine": edit.span.end_line,
                "endColumn": edit.span.end_column,
            },
            "insertedContent": {"text": edit.text},
        }
        for edit in expected
    ]


def test_fix_replacements_reproduce_the_fixed_source(tmp_path: Path) -> None:
    """Applying the SARIF replacements by hand gives the rewritten call."""
    line = "        items, ids, _ = self.process_and_combine_mm_data(base, tokens)"
    column = line.index("self") + 1
    diagnostic = sync_twin_call("p.py", 1, column)
    replacements = _log(make_report([diagnostic], {"p.py": tmp_path / "p.py"}))["runs"][0]["results"][0]["fixes"][0][
        "artifactChanges"
    ][0]["replacements"]
    text = line
    for replacement in sorted(replacements, key=lambda r: r["deletedRegion"]["startColumn"], reverse=True):
        region = replacement["deletedRegion"]
        text = (
            text[: region["startColumn"] - 1] + replacement["insertedContent"]["text"] + text[region["endColumn"] - 1 :]
        )
    assert text == "        items, ids, _ = await self.process_and_combine_mm_data_async(base, tokens)"


def test_real_check_output_is_valid_sarif(validator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A report from the engine on a real file, rendered and validated."""
    from mmlint.api import check

    (tmp_path / "proc.py").write_text(REAL_PROCESSOR, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    log = _log(check([tmp_path / "proc.py"]))
    _assert_valid(validator, log)
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "MM001"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "proc.py"
    assert result["fixes"][0]["artifactChanges"][0]["replacements"]


# Legal POSIX file names that once crashed the log or were attributed elsewhere.
STRANGE_NAMES = {
    "C:\\evil.py": "C%3A%5Cevil.py",  # absolute on Windows only: it once made as_uri() raise
    "src\\victim.py": "src%5Cvictim.py",  # one file, not src/victim.py
    "bad\xff.py": "bad%FF.py",  # an invalid UTF-8 byte, not a directory named "bad"
    "50% off #1?.py": "50%25%20off%20%231%3F.py",
}


def test_any_file_name_gets_a_log_with_its_own_uri(validator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from cli_support import CliRunner

    from mmlint.cli import cli

    for name in STRANGE_NAMES:
        (tmp_path / os.fsdecode(name.encode("latin-1") if "\xff" in name else name.encode())).write_text(
            REAL_PROCESSOR, encoding="utf-8"
        )
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "victim.py").write_text("x = 1\n", encoding="utf-8")  # the file a `/` would blame
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    result = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "sarif", "--exit-zero", "-o", "out.sarif"])
    assert result.exit_code == 0, result.output
    log = json.loads((tmp_path / "out.sarif").read_text(encoding="utf-8"))
    _assert_valid(validator, log)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == set(STRANGE_NAMES.values())
    for uri in uris:  # each names the file's own bytes
        assert (tmp_path / os.fsdecode(unquote(uri, encoding="latin-1").encode("latin-1"))).is_file()


@pytest.mark.parametrize("output_format", FORMATS)
def test_no_file_name_stops_a_report_from_being_written(tmp_path: Path, monkeypatch, output_format) -> None:
    import os

    from cli_support import CliRunner

    from mmlint.cli import cli

    for name in [*STRANGE_NAMES, "new\nline.py", "::error::x.py"]:
        (tmp_path / os.fsdecode(name.encode("latin-1") if "\xff" in name else name.encode())).write_text(
            REAL_PROCESSOR, encoding="utf-8"
        )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    result = CliRunner().invoke(cli, ["check", "--no-cache", "--format", output_format, "--exit-zero", "-o", "out"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out").stat().st_size > 0
