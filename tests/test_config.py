"""Configuration discovery, validation and the Settings it builds. Every test
writes real pyproject.toml / mmlint.toml files so discovery is exercised."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

import mmlint.config.load as config
from mmlint.config.load import (
    ConfigError,
    config_key_line,
    find_config_file,
    load_settings,
    parse_codes,
)
from mmlint.config.settings import DEFAULT_BLOCKING_CALLS, DEFAULT_TWINS, Settings
from mmlint.facts.model import TwinPair

# The codes SPEC.md defines. The catalogue may grow (wave 2 adds codes), so
# validation is pinned to this list here; test_codes_come_from_the_catalogue
# proves the catalogue is what config consults (and tests/test_rule_registry.py
# that the catalogue and the rule modules agree).
SPEC_CODES = ("MM001", "MM002", "MM003", "MM004", "MM005", "MM006", "MM007", "MM008", "MM009", "MM999")


@pytest.fixture(autouse=True)
def _spec_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config, "RULE_CODES", SPEC_CODES)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def error_of(cwd: Path, config_file: Path | None = None, **overrides) -> str:
    with pytest.raises(ConfigError) as info:
        load_settings(cwd, config_file, **overrides)
    message = str(info.value)
    assert "\n" not in message
    return message


# --- defaults and discovery ------------------------------------------------------


def test_no_configuration_gives_defaults_rooted_at_cwd(tmp_path: Path) -> None:
    settings = load_settings(tmp_path)
    assert settings == Settings(config_file=None, root=tmp_path)
    assert settings.twins == DEFAULT_TWINS
    assert settings.blocking_calls == DEFAULT_BLOCKING_CALLS
    assert settings.min_call_sites is None


def test_every_key_in_pyproject(tmp_path: Path) -> None:
    (tmp_path / "python" / "sglang" / "srt" / "multimodal").mkdir(parents=True)
    write(
        tmp_path / "pyproject.toml",
        """
        [project]
        name = "demo"

        [tool.mmlint]
        paths = ["python/sglang/srt/multimodal"]
        exclude = ["**/tests/**"]
        select = ["MM0"]
        ignore = ["MM005"]
        min-call-sites = 20

        [tool.mmlint.exempt]
        paths = ["**/base_processor.py"]
        classes = ["BaseMultimodalProcessor"]
        functions = ["SomeProcessor.legacy_entry", "helper"]

        [[tool.mmlint.twins]]
        sync = "encode_frames"
        async = "encode_frames_async"

        [tool.mmlint.per-file-ignores]
        "**/legacy/*.py" = ["MM003"]

        [tool.mmlint.blocking-calls]
        extend = ["decord.VideoReader", "*.get_frames"]
        """,
    )
    settings = load_settings(tmp_path)
    assert settings.config_file == tmp_path / "pyproject.toml"
    assert settings.root == tmp_path
    assert settings.paths == (tmp_path / "python" / "sglang" / "srt" / "multimodal",)
    assert settings.exclude == ("**/tests/**",)
    assert settings.select == ("MM0",)
    assert settings.ignore == ("MM005",)
    assert settings.min_call_sites == 20
    assert settings.exempt_paths == ("**/base_processor.py",)
    assert settings.exempt_classes == frozenset({"BaseMultimodalProcessor"})
    assert settings.exempt_functions == frozenset({"SomeProcessor.legacy_entry", "helper"})
    assert settings.twins == DEFAULT_TWINS + (TwinPair("encode_frames", "encode_frames_async"),)
    assert settings.per_file_ignores == (("**/legacy/*.py", ("MM003",)),)
    # decord.VideoReader is already in the defaults (image-decoding): each pattern once.
    assert settings.blocking_calls == DEFAULT_BLOCKING_CALLS + ("*.get_frames",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.select = ("MM",)  # type: ignore[misc]


@pytest.mark.parametrize("name", ["mmlint.toml", ".mmlint.toml"])
def test_standalone_files_use_top_level_keys(tmp_path: Path, name: str) -> None:
    write(
        tmp_path / name,
        """
        min-call-sites = 3
        exclude = ["gen/"]

        [exempt]
        classes = ["Base"]
        """,
    )
    settings = load_settings(tmp_path)
    assert settings.config_file == tmp_path / name
    assert settings.min_call_sites == 3
    assert settings.exclude == ("gen/",)
    assert settings.exempt_classes == frozenset({"Base"})


def test_pyproject_without_table_is_passed_over_for_mmlint_toml(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n[tool.ruff]\nline-length = 100\n')
    write(tmp_path / "mmlint.toml", "min-call-sites = 4\n")
    assert load_settings(tmp_path).config_file == tmp_path / "mmlint.toml"


def test_pyproject_with_table_wins_over_mmlint_toml_in_same_directory(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.mmlint]\nmin-call-sites = 1\n")
    write(tmp_path / "mmlint.toml", "min-call-sites = 2\n")
    write(tmp_path / ".mmlint.toml", "min-call-sites = 3\n")
    assert load_settings(tmp_path).min_call_sites == 1


def test_mmlint_toml_wins_over_hidden_variant(tmp_path: Path) -> None:
    write(tmp_path / "mmlint.toml", "min-call-sites = 2\n")
    write(tmp_path / ".mmlint.toml", "min-call-sites = 3\n")
    assert load_settings(tmp_path).min_call_sites == 2


def test_nearest_configuration_upward_wins(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.mmlint]\nmin-call-sites = 10\n")
    write(tmp_path / "repo" / "mmlint.toml", "min-call-sites = 5\n")
    # A pyproject.toml without the table in between is not a configuration.
    write(tmp_path / "repo" / "pkg" / "pyproject.toml", '[project]\nname = "pkg"\n')
    cwd = tmp_path / "repo" / "pkg" / "sub"
    cwd.mkdir()
    settings = load_settings(cwd)
    assert settings.config_file == tmp_path / "repo" / "mmlint.toml"
    assert settings.root == tmp_path / "repo"
    assert settings.min_call_sites == 5
    assert find_config_file(cwd) == tmp_path / "repo" / "mmlint.toml"


def test_unrelated_broken_pyproject_upward_is_ignored(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[project\nname = \n")
    cwd = tmp_path / "child"
    cwd.mkdir()
    assert load_settings(cwd).config_file is None


# --- explicit --config ---------------------------------------------------------------


def test_explicit_pyproject_reads_tool_table(tmp_path: Path) -> None:
    write(tmp_path / "conf" / "pyproject.toml", "[tool.mmlint]\nmin-call-sites = 7\n")
    write(tmp_path / "mmlint.toml", "min-call-sites = 1\n")  # would be found otherwise
    settings = load_settings(tmp_path, Path("conf/pyproject.toml"))
    assert settings.config_file == tmp_path / "conf" / "pyproject.toml"
    assert settings.root == tmp_path / "conf"
    assert settings.min_call_sites == 7


def test_explicit_other_name_reads_top_level(tmp_path: Path) -> None:
    write(tmp_path / "ci" / "strict.toml", 'min-call-sites = 30\nselect = ["MM001"]\n')
    settings = load_settings(tmp_path, tmp_path / "ci" / "strict.toml")
    assert settings.min_call_sites == 30
    assert settings.select == ("MM001",)
    assert settings.root == tmp_path / "ci"


def test_explicit_pyproject_without_table_gives_defaults_at_its_directory(tmp_path: Path) -> None:
    write(tmp_path / "p" / "pyproject.toml", '[project]\nname = "x"\n')
    settings = load_settings(tmp_path, Path("p/pyproject.toml"))
    assert settings.root == tmp_path / "p"
    assert settings.min_call_sites is None


def test_explicit_missing_file_is_an_error(tmp_path: Path) -> None:
    assert error_of(tmp_path, Path("nope.toml")) == "nope.toml: configuration file not found"


def test_explicit_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    assert error_of(tmp_path, Path("d")) == "d: configuration file is not a file"


# --- paths anchored to the configuration file --------------------------------------------


def test_paths_are_relative_to_the_configuration_file(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "one.py").write_text("")
    write(tmp_path / "mmlint.toml", 'paths = ["src/pkg", "./src/one.py", "src/pkg/../pkg"]\n')
    cwd = tmp_path / "src" / "pkg"
    settings = load_settings(cwd)
    # Normalised and deduplicated, absolute whatever the cwd.
    assert settings.paths == (tmp_path / "src" / "pkg", tmp_path / "src" / "one.py")
    assert all(path.is_absolute() for path in settings.paths)


def test_missing_configured_path_is_an_error_naming_it(tmp_path: Path) -> None:
    write(tmp_path / "mmlint.toml", 'paths = ["python/sglang/srt/multimodal"]\n')
    message = error_of(tmp_path)
    assert message.startswith("mmlint.toml:1: 'paths[0]' names 'python/sglang/srt/multimodal', which does not exist")
    assert str(tmp_path / "python" / "sglang" / "srt" / "multimodal") in message


def test_error_names_config_outside_cwd_by_absolute_path(tmp_path: Path) -> None:
    write(tmp_path / "mmlint.toml", "bogus = 1\n")
    cwd = tmp_path / "a"
    cwd.mkdir()
    assert error_of(cwd).startswith(f"{tmp_path / 'mmlint.toml'}:1: unknown key 'bogus'")


# --- unknown keys ----------------------------------------------------------------------------


def test_unknown_key_suggests_the_close_one(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.mmlint]\nmin_call_sites = 20\n")
    assert error_of(tmp_path) == (
        "pyproject.toml:2: unknown key 'min_call_sites' in [tool.mmlint] (did you mean 'min-call-sites'?)"
    )


def test_unknown_key_without_close_match_has_no_suggestion(tmp_path: Path) -> None:
    write(tmp_path / "mmlint.toml", "colour = true\n")
    assert error_of(tmp_path) == "mmlint.toml:1: unknown key 'colour' in the top level"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[tool.mmlint.exempt]\nclass = ['A']\n",
            "pyproject.toml:2: unknown key 'class' in [tool.mmlint.exempt] (did you mean 'classes'?)",
        ),
        (
            "[tool.mmlint.blocking-calls]\nextends = ['x.y']\n",
            "pyproject.toml:2: unknown key 'extends' in [tool.mmlint.blocking-calls] (did you mean 'extend'?)",
        ),
        (
            "[tool.mmlint.blocking-calls]\nreplace = ['x.y']\n",
            "pyproject.toml:2: unknown key 'replace' in [tool.mmlint.blocking-calls]",
        ),
        (
            "[[tool.mmlint.twins]]\nsync = 'a'\nasync = 'b'\n[[tool.mmlint.twins]]\nsync = 'c'\nasnc = 'd'\n",
            "pyproject.toml:6: unknown key 'asnc' in [[tool.mmlint.twins]] entry 2 (did you mean 'async'?)",
        ),
        (
            "[tool.mmlint]\nperfile-ignores = {}\n",
            "pyproject.toml:2: unknown key 'perfile-ignores' in [tool.mmlint] (did you mean 'per-file-ignores'?)",
        ),
    ],
)
def test_unknown_nested_keys(tmp_path: Path, text: str, expected: str) -> None:
    write(tmp_path / "pyproject.toml", text)
    assert error_of(tmp_path) == expected


def test_unknown_nested_key_in_standalone_file(tmp_path: Path) -> None:
    write(tmp_path / "mmlint.toml", "[exempt]\nfunction = ['f']\n")
    assert error_of(tmp_path) == "mmlint.toml:2: unknown key 'function' in [exempt] (did you mean 'functions'?)"


# --- wrong types -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'min-call-sites = "20"',
            "'min-call-sites' must be a non-negative integer of at most 1,000,000,000, got string",
        ),
        ("min-call-sites = -1", "'min-call-sites' must be a non-negative integer of at most 1,000,000,000, got -1"),
        (
            "min-call-sites = true",
            "'min-call-sites' must be a non-negative integer of at most 1,000,000,000, got boolean",
        ),
        ("min-call-sites = 2.5", "'min-call-sites' must be a non-negative integer of at most 1,000,000,000, got float"),
        ('paths = "src"', "'paths' must be an array of strings, got string"),
        ("exclude = [1]", "'exclude[0]' must be a string, got integer"),
        ('exclude = ["ok", ""]', "'exclude[1]' must not be empty"),
        ('select = "MM001"', "'select' must be an array of strings, got string"),
        ('ignore = [["MM001"]]', "'ignore[0]' must be a string, got array"),
        ('exempt = ["a"]', "'exempt' must be a table, got array"),
        ("exempt = { paths = 3 }", "'exempt.paths' must be an array of strings, got integer"),
        ('exempt = { classes = ["a.b"] }', "'exempt.classes[0]' must be a class name, got 'a.b'"),
        (
            'exempt = { functions = ["Cls::method"] }',
            "'exempt.functions[0]' must be 'function' or 'Class.method', got 'Cls::method'",
        ),
        ("twins = { sync = 'a', async = 'b' }", "'twins' must be an array of tables, got table"),
        ("twins = ['a']", "'twins[0]' must be a table with 'sync' and 'async', got string"),
        ("twins = [{ sync = 'a' }]", "'twins[0]' is missing the key 'async'"),
        ("twins = [{ async = 'a' }]", "'twins[0]' is missing the key 'sync'"),
        ("twins = [{ sync = 'a', async = 1 }]", "'twins[0].async' must be a string, got integer"),
        ("twins = [{ sync = 'a.b', async = 'c' }]", "'twins[0].sync' must be a Python identifier, got 'a.b'"),
        ("twins = [{ sync = 'same', async = 'same' }]", "'twins[0]': 'sync' and 'async' must differ, both are 'same'"),
        ('per-file-ignores = ["x"]', "'per-file-ignores' must be a table, got array"),
        (
            'per-file-ignores = { "a.py" = "MM001" }',
            "'per-file-ignores.\"a.py\"' must be an array of strings, got string",
        ),
        ('per-file-ignores = { "" = ["MM001"] }', "'per-file-ignores' has an empty glob"),
        ("blocking-calls = ['time.sleep']", "'blocking-calls' must be a table, got array"),
        ("blocking-calls = { extend = 'x' }", "'blocking-calls.extend' must be an array of strings, got string"),
        ("paths = 1979-05-27", "'paths' must be an array of strings, got date"),
    ],
)
def test_wrong_types(tmp_path: Path, text: str, expected: str) -> None:
    write(tmp_path / "mmlint.toml", text + "\n")
    line = text.count("\n") + 1  # the offending key is on the last line
    assert error_of(tmp_path) == f"mmlint.toml:{line}: {expected}"


def test_tool_mmlint_must_be_a_table(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool]\nmmlint = 3\n")
    assert error_of(tmp_path) == "pyproject.toml:2: 'tool.mmlint' must be a table, got integer"


def test_invalid_toml_names_file_and_line(tmp_path: Path) -> None:
    write(tmp_path / "mmlint.toml", "min-call-sites = 3\nselect = = 1\n")
    message = error_of(tmp_path)
    assert message.startswith("mmlint.toml: invalid TOML: ")
    assert "line 2" in message


def test_invalid_utf8_is_reported(tmp_path: Path) -> None:
    (tmp_path / "mmlint.toml").write_bytes(b"min-call-sites = 3 # caf\xe9\n")
    assert error_of(tmp_path).startswith("mmlint.toml: invalid TOML: not valid UTF-8")


# --- rule codes -------------------------------------------------------------------------------------


@pytest.mark.parametrize("codes", [["MM"], ["MM0"], ["MM00"], ["MM001", "MM999"], ["MM9"]])
def test_codes_and_prefixes_are_accepted(tmp_path: Path, codes: list[str]) -> None:
    write(tmp_path / "mmlint.toml", f"select = {codes!r}\nignore = {codes!r}\n".replace("'", '"'))
    settings = load_settings(tmp_path)
    assert settings.select == tuple(codes)
    assert settings.ignore == tuple(codes)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('select = ["MM0X1"]', "unknown rule code or prefix 'MM0X1' in 'select' (did you mean 'MM001'?)"),
        ('ignore = ["mm003"]', "unknown rule code or prefix 'mm003' in 'ignore' (did you mean 'MM003'?)"),
        ('ignore = ["E501"]', "unknown rule code or prefix 'E501' in 'ignore'"),
        ('select = ["MM0010"]', "unknown rule code or prefix 'MM0010' in 'select' (did you mean 'MM001'?)"),
        (
            '[per-file-ignores]\n"**/legacy/*.py" = ["MM003", "MX003"]',
            "unknown rule code or prefix 'MX003' in 'per-file-ignores.\"**/legacy/*.py\"' (did you mean 'MM003'?)",
        ),
    ],
)
def test_unknown_codes_are_errors(tmp_path: Path, text: str, expected: str) -> None:
    write(tmp_path / "mmlint.toml", text + "\n")
    line = text.count("\n") + 1  # the offending key is on the last line
    assert error_of(tmp_path) == f"mmlint.toml:{line}: {expected}"


def test_codes_come_from_the_catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "mmlint.toml", 'select = ["XY12"]\n')
    monkeypatch.setattr(config, "RULE_CODES", ("XY123",))
    assert load_settings(tmp_path).select == ("XY12",)
    monkeypatch.setattr(config, "RULE_CODES", ("MM001",))
    assert "unknown rule code or prefix 'XY12'" in error_of(tmp_path)


# --- twins and blocking calls ------------------------------------------------------------------------


def test_configured_twins_are_added_after_the_default_without_duplicates(tmp_path: Path) -> None:
    write(
        tmp_path / "mmlint.toml",
        """
        [[twins]]
        sync = "process_and_combine_mm_data"
        async = "process_and_combine_mm_data_async"

        [[twins]]
        sync = "load_video"
        async = "load_video_async"

        [[twins]]
        sync = "load_video"
        async = "load_video_async"
        """,
    )
    assert load_settings(tmp_path).twins == DEFAULT_TWINS + (TwinPair("load_video", "load_video_async"),)


def test_blocking_calls_extend_the_defaults(tmp_path: Path) -> None:
    write(tmp_path / "mmlint.toml", '[blocking-calls]\nextend = ["time.sleep", "imageio.imread"]\n')
    assert load_settings(tmp_path).blocking_calls == DEFAULT_BLOCKING_CALLS + ("imageio.imread",)


def test_knowledge_sets_are_extended_and_dropped_by_name(tmp_path: Path) -> None:
    write(tmp_path / "mmlint.toml", '[blocking-calls]\nextend-sets = ["video-frames"]\ndrop-sets = ["file-io"]\n')
    settings = load_settings(tmp_path)
    assert "*.get_batch" in settings.blocking_calls and "open" not in settings.blocking_calls
    assert "video-frames" in settings.blocking_sets and "file-io" not in settings.blocking_sets
    assert "open" in DEFAULT_BLOCKING_CALLS and "*.get_batch" not in DEFAULT_BLOCKING_CALLS


def test_an_unknown_knowledge_set_is_an_error_naming_the_known_ones(tmp_path: Path) -> None:
    write(tmp_path / "mmlint.toml", '[blocking-calls]\ndrop-sets = ["tokenisers"]\n')
    with pytest.raises(ConfigError, match="unknown set 'tokenisers'.*tokenizers"):
        load_settings(tmp_path)


def test_twin_wrappers_replace_the_default_names(tmp_path: Path) -> None:
    assert load_settings(tmp_path).twin_wrappers == (
        "make_async",
        "make_async_with_semaphore",
        "to_thread",
        "run_in_executor",
    )
    write(tmp_path / "mmlint.toml", 'twin-wrappers = ["offload"]\n')
    assert load_settings(tmp_path).twin_wrappers == ("offload",)


# --- CLI overrides --------------------------------------------------------------------------------------


def test_cli_select_replaces_and_ignore_adds(tmp_path: Path) -> None:
    write(tmp_path / "mmlint.toml", 'select = ["MM00"]\nignore = ["MM003"]\n')
    settings = load_settings(tmp_path, select=["MM001"], ignore=["MM002"])
    assert settings.select == ("MM001",)
    assert settings.ignore == ("MM003", "MM002")
    assert settings.is_selected("MM001")
    assert not settings.is_selected("MM004")


def test_cli_values_may_be_comma_separated(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, select=["MM001, MM002"], extend_select=["MM9"], ignore=["MM002,"])
    assert settings.select == ("MM001", "MM002", "MM9")
    assert settings.ignore == ("MM002",)


def test_cli_extend_select_adds_to_configured(tmp_path: Path) -> None:
    write(tmp_path / "mmlint.toml", 'select = ["MM001"]\n')
    assert load_settings(tmp_path, extend_select=["MM003", "MM001"]).select == ("MM001", "MM003")


def test_no_cli_overrides_keep_configuration(tmp_path: Path) -> None:
    write(tmp_path / "mmlint.toml", 'select = ["MM001"]\n')
    settings = load_settings(tmp_path, select=None, ignore=[])
    assert settings.select == ("MM001",)
    assert settings.ignore == ()


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"select": ["MM0X1"]}, "unknown rule code or prefix 'MM0X1' in --select (did you mean 'MM001'?)"),
        ({"ignore": ["mm001"]}, "unknown rule code or prefix 'mm001' in --ignore (did you mean 'MM001'?)"),
        ({"extend_select": ["Q"]}, "unknown rule code or prefix 'Q' in --extend-select"),
    ],
)
def test_cli_codes_are_validated(tmp_path: Path, overrides: dict, expected: str) -> None:
    assert error_of(tmp_path, **overrides) == expected


def test_parse_codes() -> None:
    assert parse_codes("MM001,MM00 , MM9,,", "--select") == ("MM001", "MM00", "MM9")
    assert parse_codes("", "--ignore") == ()
    with pytest.raises(ConfigError, match=r"^unknown rule code or prefix 'XX' in --ignore$"):
        parse_codes("MM001,XX", "--ignore")


# --- key lines ------------------------------------------------------------------------------------------------


def test_config_key_line_in_pyproject(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    write(
        tmp_path / "pyproject.toml",
        """
        [project]
        name = "demo"
        min-call-sites = "not ours"

        [tool.mmlint]
        paths = ["src"]
        min-call-sites = 20

        [tool.mmlint.exempt]
        classes = ["Base"]
        "functions" = ["A.b"]

        [tool.mmlint.per-file-ignores]
        "**/legacy/*.py" = ["MM003"]
        """,
    )
    settings = load_settings(tmp_path)
    assert config_key_line(settings, "min-call-sites") == 7
    assert config_key_line(settings, "paths") == 6
    assert config_key_line(settings, "exempt") == 9
    assert config_key_line(settings, "exempt.classes") == 10
    assert config_key_line(settings, "exempt.functions") == 11
    assert config_key_line(settings, 'per-file-ignores."**/legacy/*.py"') == 14
    # Not written out: the nearest enclosing table.
    assert config_key_line(settings, "exempt.paths") == 9
    assert config_key_line(settings, "exclude") == 5


def test_config_key_line_in_standalone_file_with_inline_and_dotted_keys(tmp_path: Path) -> None:
    write(
        tmp_path / "mmlint.toml",
        """
        # mmlint settings
        exempt = { classes = ["Base"] }
        blocking-calls.extend = ["a.b"]

          min-call-sites   =   2
        """,
    )
    settings = load_settings(tmp_path)
    assert config_key_line(settings, "exempt.classes") == 2
    assert config_key_line(settings, "blocking-calls.extend") == 3
    assert config_key_line(settings, "min-call-sites") == 5
    assert config_key_line(settings, "exclude") == 1


def test_config_key_line_without_configuration_is_one(tmp_path: Path) -> None:
    assert config_key_line(load_settings(tmp_path), "min-call-sites") == 1


def test_a_twin_name_in_two_pairs_is_an_error(tmp_path):
    (tmp_path / "mmlint.toml").write_text(
        '[[twins]]\nsync = "encode"\nasync = "encode_async"\n[[twins]]\nsync = "encode"\nasync = "encode_v2"\n'
    )
    with pytest.raises(ConfigError) as error:
        load_settings(tmp_path)
    assert str(error.value) == (
        "mmlint.toml:1: 'twins': 'encode' belongs to two pairs, encode/encode_async and encode/encode_v2"
    )


# --- twin discovery (MM010) --------------------------------------------------------------------


def test_twin_discovery_defaults_and_values(tmp_path: Path) -> None:
    assert load_settings(tmp_path).auto_twins is True
    assert load_settings(tmp_path).twin_patterns == ("{name}_async", "async_{name}", "a{name}")
    write(tmp_path / "mmlint.toml", 'auto-twins = false\ntwin-patterns = ["{name}_nb", "{name}_async", "{name}_nb"]\n')
    settings = load_settings(tmp_path)
    assert settings.auto_twins is False
    assert settings.twin_patterns == ("{name}_nb", "{name}_async")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('auto-twins = "yes"', "'auto-twins' must be true or false, got string"),
        ('twin-patterns = "{name}_async"', "'twin-patterns' must be an array of strings, got string"),
        ('twin-patterns = ["_async"]', "'twin-patterns[0]' must hold '{name}' once"),
        ('twin-patterns = ["{name}"]', "'twin-patterns[0]' must hold '{name}' once"),
        ('twin-patterns = ["{name}-async"]', "'twin-patterns[0]' must hold '{name}' once"),
        ('twin-patterns = ["{name}_{name}"]', "'twin-patterns[0]' must hold '{name}' once"),
        ("twin_patterns = []", "unknown key 'twin_patterns' in the top level (did you mean 'twin-patterns'?)"),
    ],
)
def test_bad_twin_discovery_settings_are_errors(tmp_path: Path, text: str, expected: str) -> None:
    write(tmp_path / "mmlint.toml", text + "\n")
    assert error_of(tmp_path).startswith(f"mmlint.toml:1: {expected}")


def test_a_wrong_value_in_a_sub_table_points_at_its_own_line(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.mmlint]\nselect = ["MM"]\n\n[tool.mmlint.fake-async]\nreport-light = 1\n')
    assert error_of(tmp_path) == "pyproject.toml:5: 'fake-async.report-light' must be true or false, got integer"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            'exclude = ["[abc"]',
            "pyproject.toml:2: 'exclude[0]' is not a valid glob: the `[` at 1 in '[abc' opens a character class that is never closed",
        ),
        (
            'extend-exclude = ["ok/**", "x/[z-a].py"]',
            "pyproject.toml:2: 'extend-exclude[1]' is not a valid glob: bad character class '[z-a]'",
        ),
        ('[tool.mmlint.exempt]\npaths = ["**/[gen"]', "pyproject.toml:3: 'exempt.paths[0]' is not a valid glob"),
        (
            '[tool.mmlint.per-file-ignores]\n"[legacy" = ["MM003"]',
            "pyproject.toml:3: per-file-ignores key '[legacy' is not a valid glob",
        ),
    ],
)
def test_a_glob_that_cannot_match_as_written_is_an_error(tmp_path: Path, table: str, message: str) -> None:
    write(tmp_path / "pyproject.toml", "[tool.mmlint]\n" + table + "\n")
    assert error_of(tmp_path).startswith(message)


def test_an_escaped_bracket_and_a_closed_class_are_valid_globs(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.mmlint]\nexclude = ["\\\\[abc", "[abc]", "[!a-c]x"]\n')
    assert load_settings(tmp_path).exclude == ("\\[abc", "[abc]", "[!a-c]x")
