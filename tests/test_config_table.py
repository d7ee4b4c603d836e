"""Each configuration key is declared once (mmlint.config.settings.CONFIG_KEYS):
the loader validates against that table, Settings fields carry it, the README
lists it, and key lines are recorded when the file is read."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from mmlint.config.load import ConfigError, load_settings
from mmlint.config.settings import CONFIG_KEYS, Budgets, Settings
from mmlint.docs import KIND_TYPES, readme_with_config_keys

README = Path(__file__).resolve().parent.parent / "README.md"

# Settings fields that no key lands in: where the configuration came from, and the command line's layer.
NOT_CONFIGURED = {"config_file", "config_digest", "key_lines", "root", "budgets", "cli_ignore", "select_from_cli"}


def test_every_configured_field_carries_its_keys() -> None:
    fields = {f.name for f in dataclasses.fields(Settings)} | {f"budgets.{f.name}" for f in dataclasses.fields(Budgets)}
    landed = {key.field for key in CONFIG_KEYS}
    assert landed <= fields
    assert fields - landed == NOT_CONFIGURED
    assert len({key.name for key in CONFIG_KEYS}) == len(CONFIG_KEYS)
    defaults = Settings()
    for key in CONFIG_KEYS:
        outer, _, inner = key.field.partition(".")
        value = getattr(getattr(defaults, outer), inner) if inner else getattr(defaults, outer)
        assert key.default == value, key.name
        assert key.kind in KIND_TYPES and key.doc


def test_every_declared_key_is_read_and_every_other_is_refused(tmp_path: Path) -> None:
    (tmp_path / "mmlint.toml").write_text("[exempt]\nclases = []\n")
    with pytest.raises(
        ConfigError, match=r"mmlint.toml:2: unknown key 'clases' in \[exempt\] \(did you mean 'classes'\?\)"
    ):
        load_settings(tmp_path)
    # A wrong type for each key is refused naming that key: every key reaches a reader.
    for key in CONFIG_KEYS:
        table, _, name = key.name.rpartition(".")
        text = (f"[{table}]\n" if table else "") + f'{name} = {{ x = "not this" }}\n'
        (tmp_path / "mmlint.toml").write_text(text)
        with pytest.raises(ConfigError) as raised:
            load_settings(tmp_path)
        assert re.search(
            rf"mmlint.toml:{2 if table else 1}: .*{re.escape(key.name.split('.')[-1])}", str(raised.value)
        ), key.name


def test_key_lines_are_recorded_when_the_file_is_read(tmp_path: Path) -> None:
    config = tmp_path / "mmlint.toml"
    config.write_text('select = ["MM"]\n\nmin-call-sites = 3\n\n[exempt]\nclasses = ["Base"]\n')
    settings = load_settings(tmp_path)
    config.write_text("# rewritten since\n")  # the lines are those of the text the settings came from
    assert settings.key_line("min-call-sites") == 3
    assert settings.key_line("exempt.classes") == 6
    assert settings.key_line("exempt.paths") == 5  # not written: its table's line
    assert settings.key_line("twins") == 1  # not found


def test_the_readme_lists_every_key() -> None:
    text = README.read_text(encoding="utf-8")
    assert readme_with_config_keys(text) == text, (
        "README's configuration keys are stale: run `python -m mmlint.docs rules/`"
    )
    sample = text[text.index("```toml\n# python/pyproject.toml") : text.index("<!-- configuration keys")]
    for key in CONFIG_KEYS:
        assert f"| `{key.name}` |" in text
        # The sample configuration above the table shows every key too.
        name = re.escape(key.name.split(".")[-1])
        assert re.search(rf"^({name} = |\[\[?tool\.mmlint\.{name}\]\]?)", sample, re.M), key.name
