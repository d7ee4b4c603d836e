"""The one frozen settings object: configuration file values with CLI overrides
applied. Built by mmlint.config.load; read by the engine, the rules and the fixer."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mmlint.core.knowledge import DEFAULT_SETS, patterns_of, twin_patterns_of
from mmlint.core.twins import TwinPair

DEFAULT_TWINS = (TwinPair("process_and_combine_mm_data", "process_and_combine_mm_data_async"),)

DEFAULT_TWIN_PATTERNS = ("{name}_async", "async_{name}", "a{name}")

# The patterns of the knowledge sets that are on by default (mmlint.core.knowledge).
DEFAULT_BLOCKING_CALLS = patterns_of(DEFAULT_SETS)

# Wrappers that make an offloading async twin by assignment: `X_async = make_async(X, ...)`.
DEFAULT_TWIN_WRAPPERS = ("make_async", "make_async_with_semaphore", "to_thread", "run_in_executor")


@dataclass(frozen=True, slots=True)
class Budgets:
    """Per-file limits: a file past one is reported (MM999, naming the budget
    and its setting), never parsed, so one generated or hostile file cannot
    take the run's time or memory. The size is checked before the file is
    read; memory and time are estimated from the bytes before the parse
    (mmlint.check.cost) and enforced while a worker process analyses it."""

    max_file_size: int = 8 * 1024 * 1024  # bytes
    max_nesting_depth: int = 1000  # levels of the syntax tree
    max_file_memory: int = 1024  # MiB one file's analysis may take
    max_file_seconds: int = 60  # CPU seconds one file's analysis may take


@dataclass(frozen=True)
class Settings:
    # Where the configuration came from (None: built-in defaults) and the
    # directory its relative paths and globs are anchored to.
    config_file: Path | None = None
    # sha256 of the configuration file's bytes as they were read (the results
    # cache's key: the text MM008 and MM009 report lines of); None without a file
    # or for Settings built by hand.
    config_digest: str | None = None
    root: Path = field(default_factory=Path.cwd)
    paths: tuple[Path, ...] = ()  # absolute
    exclude: tuple[str, ...] = ()  # globs relative to root, gitignore-style
    extend_exclude: tuple[str, ...] = ()  # more such globs (ruff's name; both add to the default excludes)
    respect_gitignore: bool = True  # directory walks skip what .gitignore ignores
    respect_noqa: bool = True  # bare noqa comments and ones naming MM codes suppress, as in ruff
    select: tuple[str, ...] = ("MM",)  # the default when the configuration names none
    ignore: tuple[str, ...] = ()
    min_call_sites: int | None = None
    budgets: Budgets = Budgets()
    exempt_paths: tuple[str, ...] = ()
    exempt_classes: frozenset[str] = frozenset()
    exempt_functions: frozenset[str] = frozenset()
    twins: tuple[TwinPair, ...] = DEFAULT_TWINS
    # MM010: discover twin pairs in the scanned code, by these name patterns.
    auto_twins: bool = True
    twin_patterns: tuple[str, ...] = DEFAULT_TWIN_PATTERNS
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # The patterns of the knowledge sets turned on plus `blocking-calls.extend`.
    blocking_calls: tuple[str, ...] = DEFAULT_BLOCKING_CALLS
    blocking_sets: tuple[str, ...] = DEFAULT_SETS  # the knowledge sets turned on, by name
    twin_wrappers: tuple[str, ...] = DEFAULT_TWIN_WRAPPERS  # `twin-wrappers`
    # The command line is a layer above the configuration (as in ruff): its
    # --ignore beats a more specific configured select; within the command line
    # the more specific of --select / --ignore wins.
    cli_ignore: tuple[str, ...] = ()
    select_from_cli: bool = False
    # [fake-async] report-light: MM003 and MM004 also report light
    # never-suspending coroutines (by default only heavy ones).
    report_light_async: bool = False

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
        """The 1-based line of ``dotted_key`` in the configuration file (1 when
        there is none), for diagnostics reported against it (MM008, MM009)."""
        from mmlint.config.load import (
            config_key_line,  # the loader knows the file's layout
        )

        return config_key_line(self, dotted_key)

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
