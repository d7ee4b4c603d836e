"""The Python API: check, fix and audit from code, with what the command line
would report as values.

    from mmlint.api import check

    def test_processors_use_the_worker_pool():
        report = check(["python/sglang/srt/multimodal"], select=["MM001", "MM002"])
        assert not report.diagnostics, "\\n".join(d.message for d in report.diagnostics)

``fix()`` rewrites (or, with ``write=False``, plans) the fixable sites in the
same rounds as `mmlint fix` and returns the FixRun; ``audit()`` returns the
Audit that `mmlint audit` prints.

The command line is this module's first caller: ``scan()`` is ``check()``
for a caller that has built its own ConfigResolver (the command line's
--extend-select, --exclude, --force-paths) and wants the run's options
(progress, the caches, standard input, findings only); ``discover_files``,
``configuration_below``, ``cache_root`` and ``clean_cache`` are the rest of
what `mmlint` needs of the engine.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from mmlint.baseline import apply_baseline
from mmlint.check.cache import Cleaned, clean
from mmlint.check.cache import cache_root as cache_root
from mmlint.check.config_below import configuration_below as configuration_below
from mmlint.check.discovery import DiscoveryError, discover
from mmlint.check.engine import AnalysedReport, Report
from mmlint.check.reading import StdinSource as StdinSource
from mmlint.config.load import ConfigError
from mmlint.config.resolve import ConfigResolver
from mmlint.core.diagnostics import Diagnostic, Span

if TYPE_CHECKING:
    from mmlint.audit import Audit
    from mmlint.fix import FixRun

__all__ = [
    "check",
    "fix",
    "audit",
    "Report",
    "AnalysedReport",
    "FixRun",
    "Audit",
    "Diagnostic",
    "Span",
    "ConfigError",
    "DiscoveryError",
]

PathArg = str | os.PathLike[str]


if not TYPE_CHECKING:  # hidden from type checkers, which know the two names from the imports above

    def __getattr__(name: str) -> Any:
        # The audit and the fixer load only when asked for: a warm `check`
        # never needs them, and their imports were a fifth of its run.
        if name == "Audit":
            from mmlint.audit import Audit

            return Audit
        if name == "FixRun":
            from mmlint.fix import FixRun

            return FixRun
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check(
    paths: Sequence[PathArg] | None = None,
    *,
    config: PathArg | None = None,
    cwd: PathArg | None = None,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
) -> AnalysedReport:
    """Check ``paths`` (files or directories; None: the configured `paths`, else
    ``cwd``) and return the Report: ``diagnostics``, ``files_scanned`` and
    ``call_sites``. ``config`` names a configuration file for every file, else
    each file is governed by the closest one at or above it (as in ruff). Raises ConfigError or DiscoveryError for bad input."""
    where, resolver = _resolver(config, cwd, select, ignore)
    return scan([Path(p) for p in paths] if paths else None, resolver, where)


@overload
def scan(
    paths: Sequence[Path] | None,
    resolver: ConfigResolver,
    cwd: Path,
    *,
    progress: bool = False,
    use_cache: bool = True,
    stdin: StdinSource | None = None,
    findings_only: Literal[False] = False,
) -> AnalysedReport: ...


@overload
def scan(
    paths: Sequence[Path] | None,
    resolver: ConfigResolver,
    cwd: Path,
    *,
    progress: bool = False,
    use_cache: bool = True,
    stdin: StdinSource | None = None,
    findings_only: bool,
) -> Report: ...


def scan(
    paths: Sequence[Path] | None,
    resolver: ConfigResolver,
    cwd: Path,
    *,
    progress: bool = False,
    use_cache: bool = True,
    stdin: StdinSource | None = None,
    findings_only: bool = False,
) -> Report:
    """check() with a resolver built by the caller (``cwd`` absolute or not):
    ``progress`` (a bar on stderr when it fits), ``use_cache`` (the facts and
    results caches), ``stdin`` (a source to check instead of ``paths``) and
    ``findings_only`` (a run the results cache may answer: a Report without
    the project)."""
    from mmlint.check import engine  # looked up at each call: a test may stand in for the engine

    return engine.run_check(
        paths, resolver, cwd, progress=progress, use_cache=use_cache, stdin=stdin, findings_only=findings_only
    )


def clean_cache(root: Path) -> Cleaned:
    """Remove the cache's entries under ``root`` (mmlint.api.cache_root()): `mmlint clean`."""
    return clean(root)


def discover_files(paths: Sequence[Path] | None, resolver: ConfigResolver, cwd: Path) -> tuple[Path, ...]:
    """The files a run over ``paths`` would read (absolute, in its order)."""
    return discover(paths, resolver, cwd).files


def fix(
    paths: Sequence[PathArg] | None = None,
    *,
    config: PathArg | None = None,
    cwd: PathArg | None = None,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    write: bool = True,
    baseline: PathArg | None = None,
) -> FixRun:
    """Fix ``paths`` as `mmlint fix` does (the same rounds, verification and
    atomic writes; ``write=False`` plans without writing, as `--diff`) and return
    the FixRun: ``changed`` (each with its old and new bytes), ``unfixed``,
    ``errors``, ``clean``. ``baseline``: leave the sites that baseline file
    records. Raises ConfigError, DiscoveryError or BaselineError for bad input."""
    from mmlint.fix.run import MAX_FIX_ROUNDS, fix_in_rounds, named_links

    where, resolver = _resolver(config, cwd, select, ignore)
    targets = [Path(p) for p in paths] if paths else None

    def scanned() -> AnalysedReport:
        report = scan(targets, resolver, where)
        return apply_baseline(report, Path(baseline)).report if baseline is not None else report

    run, _ = fix_in_rounds(
        scanned(),
        lambda _buffers: scanned(),
        write=write,
        links=named_links(tuple(targets or ()), where),
        max_rounds=MAX_FIX_ROUNDS,
    )
    return run


def audit(
    paths: Sequence[PathArg] | None = None,
    *,
    config: PathArg | None = None,
    cwd: PathArg | None = None,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
) -> Audit:
    """The inventory `mmlint audit` prints: ``rows`` (one per file with a twin
    call or an async def), ``totals``, ``defs`` and the discovered ``twins``."""
    from mmlint.audit import build_audit

    return build_audit(check(paths, config=config, cwd=cwd, select=select, ignore=ignore))


def _resolver(
    config: PathArg | None, cwd: PathArg | None, select: Sequence[str] | None, ignore: Sequence[str] | None
) -> tuple[Path, ConfigResolver]:
    where = Path(os.path.abspath(cwd)) if cwd is not None else Path.cwd()
    resolver = ConfigResolver(
        where,
        Path(config) if config is not None else None,
        select=list(select) if select is not None else None,
        ignore=list(ignore) if ignore is not None else None,
    )
    return where, resolver
