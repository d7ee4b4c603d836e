"""The one frozen settings object: configuration file values with CLI overrides
applied. Built by mmlint.config.load; read by the engine, the rules and the fixer."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from mmlint.core.knowledge import DEFAULT_SETS, patterns_of, twin_patterns_of
from mmlint.core.twins import TwinPair
from mmlint.config.toml_keys import split_dotted

DEFAULT_TWINS = (TwinPair("process_and_combine_mm_data", "process_and_combine_mm_data_async"),)

DEFAULT_TWIN_PATTERNS = ("{name}_async", "async_{name}", "a{name}")

# The patterns of the knowledge sets that are on by default (mmlint.core.knowledge).
DEFAULT_BLOCKING_CALLS = patterns_of(DEFAULT_SETS)

# Wrappers that make an offloading async twin by assignment: `X_async = make_async(X, ...)`.
DEFAULT_TWIN_WRAPPERS = ("make_async", "make_async_with_semaphore", "to_thread", "run_in_executor")


@dataclass(frozen=True)
class ConfigKey:
    """One configuration key, declared once, on the Settings (or Budgets) field
        it lands in: its dotted name in the configuration table, the kind of value
        it holds (which names how mmlint.config.load reads and validates it), and
        its documentation, and for an integer its ``maximum`` (past it a value is an
    error, not a number some later step cannot hold). ``field`` (the dotted Settings attribute) and ``default``
        come from the field it is declared on (CONFIG_KEYS); the README's table of
        keys is generated from them (mmlint.docs)."""

    name: str
    kind: str
    doc: str
    field: str = ""
    default: object = None
    maximum: int | None = None  # the largest value an integer key takes (every integer key has one)


_KEYS = "config_keys"
T = TypeVar("T")


def setting(default: T, *keys: ConfigKey) -> T:
    """A Settings field that ``keys`` land in, with its default. Several keys may
    land in one field: each one's reader continues from what the ones before
    it made (``blocking-calls.extend-sets`` then ``drop-sets``)."""
    return field(default=default, metadata={_KEYS: keys})


@dataclass(frozen=True, slots=True)
class Budgets:
    """Per-file limits: a file past one is reported (MM999, naming the budget
    and its setting), never parsed, so one generated or hostile file cannot
    take the run's time or memory. The size is checked before the file is
    read; memory and time are estimated from the bytes before the parse
    (mmlint.check.cost) and enforced while a worker process analyses it."""

    max_file_size: int = setting(
        8 * 1024 * 1024, ConfigKey("max-file-size", "positive", "bytes a file may hold", maximum=1 << 30)
    )
    max_nesting_depth: int = setting(
        1000, ConfigKey("max-nesting-depth", "positive", "levels of the syntax tree", maximum=1_000_000)
    )
    max_file_memory: int = setting(
        1024, ConfigKey("max-file-memory", "positive", "MiB one file's analysis may take", maximum=1 << 20)
    )
    max_file_seconds: int = setting(
        60, ConfigKey("max-file-seconds", "positive", "CPU seconds one file's analysis may take", maximum=7 * 24 * 3600)
    )


@dataclass(frozen=True)
class KeyLines:
    """The 1-based line of each table header and ``key = value`` in the
    configuration file, by dotted path, recorded when the file is read."""

    lines: tuple[tuple[tuple[str, ...], int], ...] = ()
    base: tuple[str, ...] = ()  # the configuration's own table (("tool", "mmlint") in a pyproject.toml)

    def line_of(self, dotted_key: str) -> int | None:
        """The line of ``dotted_key`` (``"exempt.paths"``, ``'per-file-ignores."**/x.py"'``;
        "": the configuration's own table), or of its nearest enclosing key or
        table; None when nothing is found. An index (``paths[2]``) is dropped:
        arrays span lines."""
        parts = split_dotted(re.sub(r"\[\d+\]", "", dotted_key)) if dotted_key else []
        if parts is None:
            return None
        lines = dict(self.lines)
        target = self.base + tuple(parts)
        while target:
            if target in lines:
                return lines[target]
            target = target[:-1]
        return None


@dataclass(frozen=True)
class Settings:
    # Where the configuration came from (None: built-in defaults) and the
    # directory its relative paths and globs are anchored to.
    config_file: Path | None = None
    # sha256 of the configuration file's bytes as they were read (the results
    # cache's key: the text MM008 and MM009 report lines of); None without a file
    # or for Settings built by hand.
    config_digest: str | None = None
    # Where each key of that file is written, as it was read.
    key_lines: KeyLines = KeyLines()
    root: Path = field(default_factory=Path.cwd)
    paths: tuple[Path, ...] = setting(
        (), ConfigKey("paths", "paths", "what a run with no PATH scans; absolute once read")
    )
    exclude: tuple[str, ...] = setting(
        (), ConfigKey("exclude", "globs", "files and folders walks skip, added to the default excludes")
    )
    extend_exclude: tuple[str, ...] = setting(
        (), ConfigKey("extend-exclude", "globs", "more such globs (ruff's name; the same effect as `exclude`)")
    )
    respect_gitignore: bool = setting(
        True, ConfigKey("respect-gitignore", "bool", "directory walks skip what `.gitignore` ignores")
    )
    respect_noqa: bool = setting(
        True, ConfigKey("respect-noqa", "bool", "`# noqa` and `# noqa: MM001` suppress, as in ruff")
    )
    select: tuple[str, ...] = setting(("MM",), ConfigKey("select", "codes", "rule codes or prefixes to report"))
    ignore: tuple[str, ...] = setting((), ConfigKey("ignore", "codes", "rule codes or prefixes not to report"))
    min_call_sites: int | None = setting(
        None,
        ConfigKey(
            "min-call-sites", "count", "MM008: fail a full scan that sees fewer twin calls", maximum=1_000_000_000
        ),
    )
    budgets: Budgets = Budgets()
    exempt_paths: tuple[str, ...] = setting(
        (), ConfigKey("exempt.paths", "globs", "files read as context, never reported")
    )
    exempt_classes: frozenset[str] = setting(
        frozenset(), ConfigKey("exempt.classes", "class-names", "classes whose bodies are never reported")
    )
    exempt_functions: frozenset[str] = setting(
        frozenset(),
        ConfigKey("exempt.functions", "function-names", "`Class.method`s or module-level functions never reported"),
    )
    twins: tuple[TwinPair, ...] = setting(
        DEFAULT_TWINS, ConfigKey("twins", "twins", "twin pairs (MM001), added to the default one")
    )
    # MM010: discover twin pairs in the scanned code, by these name patterns.
    auto_twins: bool = setting(True, ConfigKey("auto-twins", "bool", "MM010: discover the package's own twin pairs"))
    twin_patterns: tuple[str, ...] = setting(
        DEFAULT_TWIN_PATTERNS, ConfigKey("twin-patterns", "twin-patterns", "the async names of a sync `{name}`")
    )
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = setting(
        (), ConfigKey("per-file-ignores", "per-file-ignores", "codes not reported in the files a glob matches")
    )
    blocking_sets: tuple[str, ...] = setting(  # the knowledge sets turned on, by name
        DEFAULT_SETS,
        ConfigKey("blocking-calls.extend-sets", "extend-sets", "opt-in knowledge sets to turn on"),
        ConfigKey("blocking-calls.drop-sets", "drop-sets", "default knowledge sets to turn off"),
    )
    # The patterns of the knowledge sets turned on plus `blocking-calls.extend`.
    blocking_calls: tuple[str, ...] = setting(
        DEFAULT_BLOCKING_CALLS,
        ConfigKey("blocking-calls.extend", "call-patterns", "call patterns added to the knowledge sets (MM005)"),
    )
    twin_wrappers: tuple[str, ...] = setting(
        DEFAULT_TWIN_WRAPPERS,
        ConfigKey("twin-wrappers", "wrapper-names", "calls that make an offloading twin: `X_async = make_async(X)`"),
    )
    # The command line is a layer above the configuration (as in ruff): its
    # --ignore beats a more specific configured select; within the command line
    # the more specific of --select / --ignore wins.
    cli_ignore: tuple[str, ...] = ()
    select_from_cli: bool = False
    # [fake-async] report-light: MM003 and MM004 also report light
    # never-suspending coroutines (by default only heavy ones).
    report_light_async: bool = setting(
        False,
        ConfigKey(
            "fake-async.report-light", "bool", "MM003 / MM004: also report light coroutines, not only heavy ones"
        ),
    )
    # Test code and vendored trees are read as context and not reported
    # (mmlint.check.filters.is_test_or_vendored) unless this is set.
    report_tests_and_vendored: bool = setting(
        False,
        ConfigKey(
            "report-tests-and-vendored",
            "bool",
            "also report findings in test code (`tests/`, `test_*.py`, `*_test.py`, `conftest.py`) and vendored "
            "trees (`thirdparty/`, `third_party/`, `vendor/`, `_vendor/`)",
        ),
    )

    @property
    def heavy_calls(self) -> tuple[str, ...]:
        """What weighs a coroutine heavy: the blocking calls, and a call of a
        twin's sync member (the work its worker pool exists for)."""
        return self.blocking_calls + twin_patterns_of(self.twins)

    @property
    def twins_configured(self) -> bool:
        """Twin pairs beyond the default one are configured."""
        return self.twins != DEFAULT_TWINS

    def key_line(self, dotted_key: str) -> int:
        """The 1-based line of ``dotted_key`` (``"min-call-sites"``, ``"exempt.paths"``)
        in the configuration file, as recorded when it was read (KeyLines.line_of),
        for diagnostics reported against it (MM008, MM012); 1 when there is no
        file or nothing is found."""
        return self.key_lines.line_of(dotted_key) or 1

    def is_selected(self, code: str) -> bool:
        """select/ignore by code or prefix, as in ruff: within one layer the more
        specific prefix wins (select MM001 with ignore MM keeps MM001); the command
        line is a layer above the configuration. (Rules that are always on,
        such as MM999, are kept by the rule registry, not here.)"""
        selected = _longest_prefix(code, self.select)
        if self.select_from_cli:  # the command line chose: only its own ignore counts
            return selected > _longest_prefix(code, self.cli_ignore)
        if selected <= _longest_prefix(code, self.ignore):
            return False
        return _longest_prefix(code, self.cli_ignore) < 0


def _longest_prefix(code: str, prefixes: tuple[str, ...]) -> int:
    """Length of the longest prefix in ``prefixes`` that ``code`` starts with; -1 if none."""
    return max((len(p) for p in prefixes if code.startswith(p)), default=-1)


def _declared(cls: type, prefix: str) -> tuple[ConfigKey, ...]:
    instance = cls()
    return tuple(
        dataclasses.replace(key, field=prefix + item.name, default=getattr(instance, item.name))
        for item in dataclasses.fields(cls)
        for key in item.metadata.get(_KEYS, ())
    )


# Every configuration key, in the order they are read: declared on the fields
# they land in. Adding a key is one `setting(...)` there plus its use.
CONFIG_KEYS: tuple[ConfigKey, ...] = _declared(Settings, "") + _declared(Budgets, "budgets.")
