"""Find, read and validate the configuration, and build the frozen Settings.

The configuration lives in ``[tool.mmlint]`` of the nearest ``pyproject.toml``
that has that table, or at the top level of ``mmlint.toml`` / ``.mmlint.toml``
(in each directory in that order); ``--config FILE`` names one explicitly.
``load_settings`` finds the one governing the current directory;
mmlint.config.resolve finds each file's own. Every problem is a ``ConfigError``
whose one-line message names the file, the key and, where one is close, the
key that was probably meant; the CLI turns it into exit code 2.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from mmlint.config.globs import glob_problem
from mmlint.config.settings import CONFIG_KEYS, ConfigKey, KeyLines, Settings
from mmlint.config.toml_keys import key_lines
from mmlint.core.codes import RULE_CODES
from mmlint.core.knowledge import DEFAULT_SETS, SETS_BY_NAME, patterns_of
from mmlint.core.paths import display_path
from mmlint.core.safe_read import CONFIG_MAX_BYTES, read_placed_bytes
from mmlint.core.identifiers import normalise_identifier
from mmlint.core.twins import TwinPair


if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = [
    "CONFIG_FILE_NAMES",
    "ConfigError",
    "apply_cli",
    "config_in_directory",
    "config_key_line",
    "find_config_file",
    "load_settings",
    "parse_codes",
    "read_explicit_config",
]

# Looked for in each directory, in this order; the first one that holds a
# configuration wins.
CONFIG_FILE_NAMES = ("pyproject.toml", "mmlint.toml", ".mmlint.toml")

_PYPROJECT = "pyproject.toml"
# The only files a run reads (configured `paths` naming another file are an error).
SOURCE_SUFFIXES = (".py", ".pyi")
_PYPROJECT_TABLE = ("tool", "mmlint")

# The fields of one [[twins]] entry (the "twins" kind of key).
_TWIN_KEYS = ("sync", "async")
_ABSENT = object()  # a key the table does not hold


class ConfigError(Exception):
    """Invalid or unreadable configuration (or CLI code list); exit code 2.
    ``str()`` is one line naming the file (or option), the key and the problem."""


def find_config_file(cwd: Path) -> Path | None:
    """The configuration file that applies in ``cwd``: the first of
    CONFIG_FILE_NAMES holding a configuration, from ``cwd`` upward."""
    found = _find_config(Path(os.path.abspath(cwd)))
    return None if found is None else found[0]


def load_settings(
    cwd: Path,
    config_file: Path | None = None,
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    extend_select: Sequence[str] | None = None,
) -> Settings:
    """Build the Settings for a run in ``cwd``.

    ``config_file`` (``--config``) names the configuration explicitly (relative
    to ``cwd``); otherwise it is searched for from ``cwd`` upward, and without
    one the defaults apply with the root at ``cwd``. CLI overrides follow ruff:
    ``select`` replaces the configured select, ``extend_select`` adds to it,
    ``ignore`` adds to the configured ignore. Raises ConfigError.
    """
    cwd = Path(os.path.abspath(cwd))
    if config_file is not None:
        path = Path(os.path.abspath(cwd / config_file))
        table, digest, lines = _read_explicit(path, cwd)
    else:
        found = _find_config(cwd)
        if found is None:
            settings = Settings(config_file=None, root=cwd)
            return apply_cli(settings, select, ignore, extend_select)
        path, table, digest, lines = found
    settings = _TableReader(path, cwd, digest, lines).settings(table)
    return apply_cli(settings, select, ignore, extend_select)


def read_explicit_config(path: Path, cwd: Path) -> Settings:
    """The Settings of the configuration file ``path`` (absolute) named with
    ``--config``, without CLI overrides. Raises ConfigError."""
    table, digest, lines = _read_explicit(path, cwd)
    return _TableReader(path, cwd, digest, lines).settings(table)


def config_in_directory(directory: Path, cwd: Path) -> Settings | None:
    """The Settings of the configuration held in ``directory`` itself (not
    above it), without CLI overrides; None when it holds none. ``cwd``: what
    error messages are relative to. Raises ConfigError."""
    found = _find_in_directory(directory, cwd)
    if found is None:
        return None
    path, table, digest, lines = found
    return _TableReader(path, cwd, digest, lines).settings(table)


def parse_codes(text: str, option: str) -> tuple[str, ...]:
    """Split a comma separated CLI value of codes or prefixes (``MM001,MM00``)
    and validate each; ``option`` (``--select``) names it in errors."""
    codes = tuple(part.strip() for part in text.split(",") if part.strip())
    for code in codes:
        problem = _code_problem(code)
        if problem is not None:
            raise ConfigError(f"{problem} in {option}{_code_hint(code)}")
    return codes


def config_key_line(settings: Settings, dotted_key: str) -> int:
    """The 1-based line of ``dotted_key`` in the configuration file, as recorded
    when it was read (Settings.key_line)."""
    return settings.key_line(dotted_key)


# --- finding and reading the file ------------------------------------------


def _find_config(cwd: Path) -> tuple[Path, dict[str, Any], str, KeyLines] | None:
    for directory in (cwd, *cwd.parents):
        found = _find_in_directory(directory, cwd)
        if found is not None:
            return found
    return None


def _find_in_directory(directory: Path, cwd: Path) -> tuple[Path, dict[str, Any], str, KeyLines] | None:
    """The configuration held in ``directory`` itself (not above), with its
    table, the digest of the bytes that was read from and its key lines."""
    for name in CONFIG_FILE_NAMES:
        candidate = directory / name
        try:
            if not candidate.is_file():
                continue
        except OSError:  # a directory that cannot be searched: no file in it can be read either
            return None
        if name == _PYPROJECT:
            table, digest, lines = _pyproject_table(candidate, cwd, required=False)
            if table is None:
                continue
            return candidate, table, digest, lines
        return candidate, *_parse(candidate, cwd)
    return None


def _read_explicit(path: Path, cwd: Path) -> tuple[dict[str, Any], str, KeyLines]:
    if not path.exists():
        raise ConfigError(f"{display_path(path, cwd)}: configuration file not found")
    if path.is_dir():  # a FIFO, a device: read_placed says what it is
        raise ConfigError(f"{display_path(path, cwd)}: configuration file is not a file")
    if path.name == _PYPROJECT:
        # A pyproject.toml named explicitly but without [tool.mmlint] holds no
        # settings: the defaults apply, anchored to its directory.
        table, digest, lines = _pyproject_table(path, cwd, required=True)
        return table or {}, digest, lines
    return _parse(path, cwd)


def _pyproject_table(path: Path, cwd: Path, *, required: bool) -> tuple[dict[str, Any] | None, str, KeyLines]:
    """``[tool.mmlint]`` of a pyproject.toml, or None when it has none. While
    searching upward, a pyproject.toml that never mentions mmlint is skipped
    unparsed, so an unrelated broken file elsewhere does not stop the run.
    With the table, the digest of the bytes it was read from."""
    data = _read_config(path, cwd)
    if not required and b"mmlint" not in data:
        return None, "", KeyLines()
    document, digest, lines = _parse(path, cwd, data)
    tool = document.get("tool")
    if not isinstance(tool, dict) or "mmlint" not in tool:
        return None, digest, lines
    table = tool["mmlint"]
    if not isinstance(table, dict):
        line = lines.line_of("")
        where = f":{line}" if line is not None else ""
        raise ConfigError(f"{display_path(path, cwd)}{where}: 'tool.mmlint' must be a table, got {_type_name(table)}")
    return table, digest, lines


def _read_config(path: Path, cwd: Path) -> bytes:
    """The bytes of a configuration file: a regular file of at most
    CONFIG_MAX_BYTES (mmlint.core.safe_read), else ConfigError."""
    try:
        return read_placed_bytes(path, CONFIG_MAX_BYTES)
    except OSError as error:
        raise ConfigError(f"{display_path(path, cwd)}: cannot read: {error.strerror or error}") from None


def _parse(path: Path, cwd: Path, data: bytes | None = None) -> tuple[dict[str, Any], str, KeyLines]:
    """The TOML document of ``path`` (whose bytes, when already read, are
    ``data``), the sha256 of the bytes it was read from, and where each of
    its keys is written."""
    if data is None:
        data = _read_config(path, cwd)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{display_path(path, cwd)}: invalid TOML: not valid UTF-8 ({error.reason})") from None
    lines = KeyLines(tuple(key_lines(text).items()), _PYPROJECT_TABLE if path.name == _PYPROJECT else ())
    try:
        return tomllib.loads(text), hashlib.sha256(data).hexdigest(), lines
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{display_path(path, cwd)}: invalid TOML: {error}") from None
    except ValueError as error:  # an integer of more digits than Python converts (4,300)
        raise ConfigError(f"{display_path(path, cwd)}: invalid TOML: {error}".split("; use sys.")[0]) from None
    except RecursionError:  # tomllib reads nested arrays and inline tables recursively
        raise ConfigError(
            f"{display_path(path, cwd)}: cannot read: arrays or inline tables nested too deeply for the TOML reader; "
            "flatten them"
        ) from None


# --- validation -------------------------------------------------------------


class _TableReader:
    """Validates one configuration table and turns it into Settings."""

    def __init__(self, path: Path, cwd: Path, digest: str | None = None, lines: KeyLines | None = None) -> None:
        self.path = path
        self.cwd = cwd
        self.digest = digest
        self.lines = lines or KeyLines()
        self.root = path.parent
        self.base = _PYPROJECT_TABLE if path.name == _PYPROJECT else ()

    def settings(self, table: dict[str, Any]) -> Settings:
        """Every key of CONFIG_KEYS read by its kind's reader (``_read_<kind>``)
        into the field it lands in, in the table's order."""
        self._check_layout(table)
        values: dict[str, Any] = {}
        self._values = values  # what the keys read so far made (blocking-calls.extend needs the sets)
        for key in CONFIG_KEYS:
            reader = getattr(self, "_read_" + key.kind.replace("-", "_"))
            values[key.field] = reader(key, _lookup(table, key.name), values.get(key.field, key.default))
        fields: dict[str, Any] = {}
        nested: dict[str, dict[str, Any]] = {}
        for name, value in values.items():
            outer, dot, inner = name.partition(".")
            if dot:
                nested.setdefault(outer, {})[inner] = value
            else:
                fields[name] = value
        defaults = Settings()
        for outer, inner_values in nested.items():  # budgets.max_file_size -> Budgets(max_file_size=...)
            fields[outer] = replace(getattr(defaults, outer), **inner_values)
        return Settings(
            config_file=self.path, config_digest=self.digest, key_lines=self.lines, root=self.root, **fields
        )

    def _check_layout(self, table: dict[str, Any]) -> None:
        """Unknown keys, and sub-tables that are not tables, in the order the keys are declared."""
        names = [key.name.split(".") for key in CONFIG_KEYS]
        self._check_keys(table, _unique(parts[0] for parts in names), ())
        for sub in _unique(parts[0] for parts in names if len(parts) > 1):
            value = table.get(sub, {})
            if not isinstance(value, dict):
                raise self.error(f"'{sub}' must be a table, got {_type_name(value)}", sub)
            self._check_keys(value, tuple(".".join(parts[1:]) for parts in names if parts[0] == sub), (sub,))

    # -- the reader of each kind of key: (key, its value or _ABSENT, the field's value so far) -> the field's value

    def _read_paths(self, key: ConfigKey, value: Any, current: Any) -> Any:
        return current if value is _ABSENT else self._paths(value)

    def _read_globs(self, key: ConfigKey, value: Any, current: Any) -> Any:
        return current if value is _ABSENT else self._globs(value, key.name)

    def _read_bool(self, key: ConfigKey, value: Any, current: Any) -> Any:
        if value is _ABSENT:
            return current
        if not isinstance(value, bool):
            raise self.error(f"'{key.name}' must be true or false, got {_type_name(value)}", key.name)
        return value

    def _read_codes(self, key: ConfigKey, value: Any, current: Any) -> Any:
        return current if value is _ABSENT else self._codes(value, key.name)

    def _read_count(self, key: ConfigKey, value: Any, current: Any) -> Any:
        return current if value is _ABSENT else self._count(value, key, minimum=0)

    def _read_positive(self, key: ConfigKey, value: Any, current: Any) -> Any:
        return current if value is _ABSENT else self._count(value, key, minimum=1)

    def _read_class_names(self, key: ConfigKey, value: Any, current: Any) -> Any:
        # Names are compared as Python compares identifiers: NFKC-normalised, once, here.
        if value is _ABSENT:
            return current
        return frozenset(map(normalise_identifier, self._names(value, key.name, dotted=False)))

    def _read_function_names(self, key: ConfigKey, value: Any, current: Any) -> Any:
        if value is _ABSENT:
            return current
        return frozenset(map(normalise_identifier, self._names(value, key.name, dotted=True)))

    def _read_wrapper_names(self, key: ConfigKey, value: Any, current: Any) -> Any:
        return current if value is _ABSENT else self._names(value, key.name, dotted=False)

    def _read_twins(self, key: ConfigKey, value: Any, current: Any) -> Any:
        """The configured pairs are added to the default one."""
        return self._unambiguous(_unique(current + self._twins([] if value is _ABSENT else value)))

    def _read_twin_patterns(self, key: ConfigKey, value: Any, current: Any) -> Any:
        return current if value is _ABSENT else self._twin_patterns(value, key.name)

    def _read_per_file_ignores(self, key: ConfigKey, value: Any, current: Any) -> Any:
        return current if value is _ABSENT else self._per_file_ignores(value)

    def _read_extend_sets(self, key: ConfigKey, value: Any, current: Any) -> Any:
        names = self._set_names(value, key.name)
        return current + tuple(name for name in names if name not in current)

    def _read_drop_sets(self, key: ConfigKey, value: Any, current: Any) -> Any:
        names = self._set_names(value, key.name)
        return tuple(name for name in current if name not in names)

    def _read_call_patterns(self, key: ConfigKey, value: Any, current: Any) -> Any:
        """The patterns of the knowledge sets turned on (read before), then these."""
        extra = () if value is _ABSENT else tuple(map(normalise_identifier, self._strings(value, key.name)))
        return _unique(patterns_of(self._values.get("blocking_sets", DEFAULT_SETS)) + extra)

    def _set_names(self, value: Any, key: str) -> tuple[str, ...]:
        names = () if value is _ABSENT else self._strings(value, key)
        for index, name in enumerate(names):
            if name not in SETS_BY_NAME:
                known = ", ".join(SETS_BY_NAME)
                raise self.error(f"'{key}[{index}]': unknown set {name!r} (known: {known})", key)
        return names

    # -- errors

    def error(self, message: str, key: str | None = None) -> ConfigError:
        """``key``: the dotted key the message is about, to point at its line."""
        line = self.lines.line_of(key) if key else None
        where = f":{line}" if line is not None else ""
        return ConfigError(f"{display_path(self.path, self.cwd)}{where}: {message}")

    def _section(self, sub: tuple[str, ...], array: bool = False) -> str:
        parts = self.base + sub
        if not parts:
            return "the top level"
        name = ".".join(parts)
        return f"[[{name}]]" if array else f"[{name}]"

    def _check_keys(
        self, table: dict[str, Any], allowed: Sequence[str], sub: tuple[str, ...], where: str | None = None
    ) -> None:
        for key in table:
            if key in allowed:
                continue
            hint = _suggest(key, allowed)
            location = where or self._section(sub)
            suffix = f" (did you mean '{hint}'?)" if hint else ""
            raise self.error(f"unknown key '{key}' in {location}{suffix}", _dotted(*sub, key))

    # -- typed values

    def _array(self, value: Any, key: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.error(f"'{key}' must be an array of strings, got {_type_name(value)}", key)
        return value

    def _strings(self, value: Any, key: str) -> tuple[str, ...]:
        items = self._array(value, key)
        for index, item in enumerate(items):
            if not isinstance(item, str):
                raise self.error(f"'{key}[{index}]' must be a string, got {_type_name(item)}", key)
            if not item.strip():
                raise self.error(f"'{key}[{index}]' must not be empty", key)
            if "\x00" in item:  # no path, glob, name or code holds one
                raise self.error(f"'{key}[{index}]' holds a NUL character", key)
        return tuple(items)

    def _globs(self, value: Any, key: str) -> tuple[str, ...]:
        patterns = self._strings(value, key)
        for index, pattern in enumerate(patterns):
            if (problem := glob_problem(pattern)) is not None:
                raise self.error(f"'{key}[{index}]' is not a valid glob: {problem}", key)
        return patterns

    def _names(self, value: Any, key: str, *, dotted: bool) -> tuple[str, ...]:
        names = self._strings(value, key)
        for index, name in enumerate(names):
            parts = name.split(".") if dotted else [name]
            if not all(part.isidentifier() for part in parts):
                expected = "'function' or 'Class.method'" if dotted else "a class name"
                raise self.error(f"'{key}[{index}]' must be {expected}, got {name!r}", key)
        return names

    def _codes(self, value: Any, key: str) -> tuple[str, ...]:
        codes = self._strings(value, key)
        for code in codes:
            problem = _code_problem(code)
            if problem is not None:
                raise self.error(f"{problem} in '{key}'{_code_hint(code)}", key)
        return codes

    def _count(self, value: Any, key: ConfigKey, *, minimum: int) -> int:
        """An integer from ``minimum`` to the key's maximum (a float, however
        whole, is not one: `1e3` is a float in TOML)."""
        assert key.maximum is not None, f"the integer key {key.name!r} declares no maximum"
        kind = "a non-negative integer" if minimum == 0 else "a positive integer"
        kind += f" of at most {key.maximum:,}"
        # bool is an int subclass in Python, but `true` is not a count.
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(f"'{key.name}' must be {kind}, got {_type_name(value)}", key.name)
        if not minimum <= value <= key.maximum:
            shown = f"{value}" if abs(value) < 10**30 else f"an integer of {len(str(abs(value)))} digits"
            raise self.error(f"'{key.name}' must be {kind}, got {shown}", key.name)
        return value

    def _paths(self, value: Any) -> tuple[Path, ...]:
        resolved: list[Path] = []
        for index, entry in enumerate(self._strings(value, "paths")):
            path = Path(os.path.abspath(self.root / entry))
            # A configuration speaks for its own directory: nothing outside it is
            # read (a shared or downloaded configuration must not reach ../secrets).
            inside = os.path.realpath(path) == os.path.realpath(self.root) or os.path.realpath(path).startswith(
                os.path.join(os.path.realpath(self.root), "")
            )
            if not inside:
                raise self.error(
                    f"'paths[{index}]' names {entry!r}, which is outside the configuration's directory", "paths"
                )
            if not path.exists():
                raise self.error(f"'paths[{index}]' names {entry!r}, which does not exist ({path})", "paths")
            if path.is_file() and not path.name.endswith(SOURCE_SUFFIXES):
                raise self.error(f"'paths[{index}]' names {entry!r}, which is not a Python file (.py, .pyi)", "paths")
            if path not in resolved:
                resolved.append(path)
        return tuple(resolved)

    def _twin_patterns(self, value: Any, key: str) -> tuple[str, ...]:
        """Each pattern names the async twin of a sync ``{name}``: exactly one
        ``{name}`` and other identifier characters around it."""
        patterns = self._strings(value, key)
        for index, pattern in enumerate(patterns):
            if pattern.count("{name}") != 1 or pattern == "{name}" or not pattern.replace("{name}", "x").isidentifier():
                raise self.error(
                    f"'twin-patterns[{index}]' must hold '{{name}}' once with identifier characters around it "
                    f'(as "{{name}}_async"), got {pattern!r}',
                    "twin-patterns",
                )
        return _unique(tuple(map(normalise_identifier, patterns)))

    def _twins(self, value: Any) -> tuple[TwinPair, ...]:
        if not isinstance(value, list):
            raise self.error(f"'twins' must be an array of tables, got {_type_name(value)}", "twins")
        pairs: list[TwinPair] = []
        for index, entry in enumerate(value):
            key = f"twins[{index}]"
            if not isinstance(entry, dict):
                raise self.error(
                    f"'{key}' must be a table with 'sync' and 'async', got {_type_name(entry)}",
                    self._twin_key(index, None),
                )
            self._check_keys(
                entry, _TWIN_KEYS, ("twins",), where=f"{self._section(('twins',), array=True)} entry {index + 1}"
            )
            for name in _TWIN_KEYS:
                if name not in entry:
                    raise self.error(f"'{key}' is missing the key '{name}'", self._twin_key(index, name))
                if not isinstance(entry[name], str):
                    raise self.error(
                        f"'{key}.{name}' must be a string, got {_type_name(entry[name])}", self._twin_key(index, name)
                    )
                if not entry[name].isidentifier():
                    raise self.error(
                        f"'{key}.{name}' must be a Python identifier, got {entry[name]!r}", self._twin_key(index, name)
                    )
            sync, async_ = normalise_identifier(entry["sync"]), normalise_identifier(entry["async"])
            if sync == async_:
                raise self.error(
                    f"'{key}': 'sync' and 'async' must differ, both are {sync!r}", self._twin_key(index, None)
                )
            pairs.append(TwinPair(sync, async_))
        return tuple(pairs)

    def _twin_key(self, index: int, name: str | None) -> str:
        """The key of a [[twins]] entry for its line: entries written as array
        tables share one key path, so the header's first line is the closest
        the key-line finder can point at."""
        return "twins" if name is None else f"twins.{name}"

    def _unambiguous(self, pairs: tuple[TwinPair, ...]) -> tuple[TwinPair, ...]:
        """A name may belong to one pair only: a call must say which twin it is."""
        owner: dict[str, TwinPair] = {}
        for pair in pairs:
            for name in (pair.sync, pair.async_):
                other = owner.setdefault(name, pair)
                if other != pair:
                    raise self.error(
                        f"'twins': {name!r} belongs to two pairs, "
                        f"{other.sync}/{other.async_} and {pair.sync}/{pair.async_}",
                        "twins",
                    )
        return pairs

    def _per_file_ignores(self, value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
        if not isinstance(value, dict):
            raise self.error(f"'per-file-ignores' must be a table, got {_type_name(value)}", "per-file-ignores")
        entries = []
        for glob, codes in value.items():
            key = f'per-file-ignores."{glob}"'
            if not glob.strip():
                raise self.error("'per-file-ignores' has an empty glob", "per-file-ignores")
            if (problem := glob_problem(glob)) is not None:
                raise self.error(f"per-file-ignores key {glob!r} is not a valid glob: {problem}", key)
            entries.append((glob, self._codes(codes, key)))
        return tuple(entries)


def apply_cli(
    settings: Settings,
    select: Sequence[str] | None,
    ignore: Sequence[str] | None,
    extend_select: Sequence[str] | None,
    *,
    exclude: Sequence[str] | None = None,
    extend_exclude: Sequence[str] | None = None,
    cwd: Path | None = None,
) -> Settings:
    """The command line as a layer over a configuration, as in ruff: ``select``
    replaces the configured select, ``extend_select`` adds to it, ``ignore``
    adds to the configured ignore; ``exclude`` replaces the configured
    exclude and ``extend_exclude`` adds to extend-exclude (the default
    excludes stay either way). Command-line globs are relative to ``cwd``."""
    changes: dict[str, object] = {}
    new_select = settings.select
    if select is not None:
        new_select = _cli_codes(select, "--select")
    if extend_select:
        new_select = _unique(new_select + _cli_codes(extend_select, "--extend-select"))
    if new_select != settings.select:
        changes["select"] = new_select
    if select is not None or extend_select:
        changes["select_from_cli"] = True
    if ignore:
        cli_ignore = _cli_codes(ignore, "--ignore")
        changes["ignore"] = _unique(settings.ignore + cli_ignore)
        changes["cli_ignore"] = cli_ignore
    anchor = Path(os.path.abspath(cwd)) if cwd is not None else settings.root
    if exclude is not None:
        changes["exclude"] = tuple(_cli_glob(p, anchor, settings.root, "--exclude") for p in exclude)
    if extend_exclude:
        extra = tuple(_cli_glob(p, anchor, settings.root, "--extend-exclude") for p in extend_exclude)
        changes["extend_exclude"] = _unique(settings.extend_exclude + extra)
    return replace(settings, **changes) if changes else settings  # type: ignore[arg-type]


def _cli_glob(pattern: str, cwd: Path, root: Path, option: str) -> str:
    """A command-line glob (gitignore-style, relative to ``cwd``) as one relative
    to the configuration's ``root``. A pattern that is anchored (a `/` before
    its last character) is prefixed with the way from ``root`` to ``cwd``; one
    that matches at any depth means the same from anywhere."""
    if not pattern.strip():
        raise ConfigError(f"{option}: empty glob")
    if (problem := glob_problem(pattern)) is not None:
        raise ConfigError(f"{option} {pattern!r} is not a valid glob: {problem}")
    if "/" not in pattern.rstrip("/") or pattern.startswith("**/"):
        return pattern
    way = os.path.relpath(cwd, root)
    if way == "." or way == os.pardir or way.startswith(os.pardir + os.sep):
        return pattern.lstrip("/")  # cwd is the root, or outside it: as written
    return f"{Path(way).as_posix()}/{pattern.lstrip('/')}"


def _cli_codes(values: Sequence[str], option: str) -> tuple[str, ...]:
    # The CLI may hand over raw "A,B" strings or already split codes.
    codes: list[str] = []
    for value in values:
        codes.extend(parse_codes(value, option))
    return tuple(codes)


# --- rule codes ----------------------------------------------------------------


def _code_problem(code: str) -> str | None:
    """Why ``code`` is not a known rule code or prefix of one, or None."""
    if not code:
        return "empty rule code"
    if any(known.startswith(code) for known in RULE_CODES):
        return None
    return f"unknown rule code or prefix '{code}'"


def _code_hint(code: str) -> str:
    known = RULE_CODES
    if code and any(c.startswith(code.upper()) for c in known):
        return f" (did you mean '{code.upper()}'?)"
    close = difflib.get_close_matches(code, known, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


# --- helpers --------------------------------------------------------------------


def _dotted(*parts: str) -> str:
    """Join key parts as a TOML dotted key, quoting parts that need it."""
    return ".".join(
        part if re.fullmatch(r"[A-Za-z0-9_-]+", part) else '"' + part.replace('"', '\\"') + '"' for part in parts
    )


def _suggest(key: str, allowed: Sequence[str]) -> str | None:
    normalised = key.replace("_", "-").lower()
    if normalised in allowed:
        return normalised
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    return close[0] if close else None


def _type_name(value: Any) -> str:
    """The TOML name of a parsed value's type."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__  # datetime, date, time


def _lookup(table: dict[str, Any], dotted: str) -> Any:
    """The value of a declared key (``"exempt.paths"``) in ``table``, or _ABSENT
    (sub-tables are known to be tables by then: _check_layout)."""
    value: Any = table
    for part in dotted.split("."):
        if part not in value:
            return _ABSENT
        value = value[part]
    return value


def _unique(items: Iterable[Any]) -> tuple[Any, ...]:
    """Deduplicate keeping the first occurrence's position."""
    return tuple(dict.fromkeys(items))
