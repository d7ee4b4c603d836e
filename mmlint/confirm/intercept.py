"""Interceptors: each finding's blocking callee wrapped where it lives (a module
attribute or a class attribute), timing the calls made on a thread whose event
loop is running, and attributing each to the findings whose sites are on the
caller's stack. One wrapper serves every finding of its callee.

A callee resolves only from modules already imported (sys.modules): the
plugin imports nothing the project's code does not; ``refresh`` retries the
pending ones as modules arrive (after collection, before each test)."""

from __future__ import annotations

import asyncio
import builtins
import functools
import inspect
import os
import sys
import threading
import time
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmlint.confirm.sites import Site, SourceDefs, innermost_def

# How far up the caller's stack a finding's site is looked for (a chain of
# scanned helpers between the async def and the blocking call).
MAX_DEPTH = 64


@dataclass
class CallStats:
    calls: int = 0
    total_s: float = 0.0
    max_s: float = 0.0
    test_at_max: str = ""

    def add(self, elapsed: float, test: str) -> None:
        self.calls += 1
        self.total_s += elapsed
        if elapsed >= self.max_s:
            self.max_s, self.test_at_max = elapsed, test


@dataclass
class _Patch:
    """One attribute replaced: restored by ``Interceptors.uninstall``."""

    owner: Any
    name: str
    original_raw: Any  # as found in the owner's __dict__ (a staticmethod stays one)
    original: Callable[..., Any]
    wrapper: Callable[..., Any]
    sites_by_file: dict[str, list[Site]]  # the wrapper's: real path -> the findings it serves there


class Recorder:
    """The calls timed on a loop, per finding, and the long ones' intervals
    (a stall they overlap is explained by them)."""

    def __init__(self, threshold_s: float) -> None:
        self.threshold_s = threshold_s
        self.stats: dict[Site, CallStats] = {}
        self.long_calls: list[tuple[int, float, float, Site]] = []  # thread, start, end, site
        self.current_test = ""
        self._lock = threading.Lock()
        self._real: dict[str, str] = {}

    def real(self, filename: str) -> str:
        known = self._real.get(filename)
        if known is None:
            known = self._real[filename] = os.path.realpath(filename)
        return known

    def record(
        self, sites_by_file: dict[str, list[Site]], frame: types.FrameType | None, start: float, end: float
    ) -> None:
        matched: list[Site] = []
        depth = 0
        while frame is not None and depth < MAX_DEPTH:
            for site in sites_by_file.get(self.real(frame.f_code.co_filename), ()):
                if site.covers(frame.f_lineno) and site not in matched:
                    matched.append(site)
            frame, depth = frame.f_back, depth + 1
        if not matched:
            return  # called on the loop, from none of the findings' sites
        with self._lock:
            for site in matched:
                self.stats.setdefault(site, CallStats()).add(end - start, self.current_test)
                if end - start > self.threshold_s:
                    self.long_calls.append((threading.get_ident(), start, end, site))


def timed(original: Callable[..., Any], sites_by_file: dict[str, list[Site]], recorder: Recorder) -> Callable[..., Any]:
    """``original``, timed when called on a running loop's thread."""
    running_loop = asyncio._get_running_loop  # the C accessor: no Python frame per call
    clock = time.perf_counter

    def timed_call(*args: Any, **kwargs: Any) -> Any:
        if running_loop() is None:
            return original(*args, **kwargs)
        start = clock()
        try:
            return original(*args, **kwargs)
        finally:
            recorder.record(sites_by_file, sys._getframe(1), start, clock())

    try:
        functools.update_wrapper(timed_call, original)
    except (AttributeError, TypeError):
        pass
    timed_call.__mmlint_timed__ = True  # type: ignore[attr-defined]
    return timed_call


@dataclass(frozen=True, slots=True)
class Resolved:
    owner: Any  # a module or a class
    name: str
    raw: Any


class Interceptors:
    """Resolve, wrap and unwrap the findings' callees."""

    def __init__(self, sites: Iterable[Site], recorder: Recorder, scanned: Callable[[str], bool], root: Path) -> None:
        self.recorder = recorder
        self.sources = SourceDefs(root)
        self.scanned = scanned
        self.pending: list[Site] = [site for site in sites if site.targets]
        self.sampled_only: dict[Site, str] = {}  # site -> why no callee of it is wrapped
        self.patches: dict[tuple[int, str], _Patch] = {}
        self._modules_seen = -1

    def refresh(self) -> None:
        """Wrap what has become resolvable since the last call."""
        if len(sys.modules) == self._modules_seen:
            return
        self._modules_seen = len(sys.modules)
        by_file = self._modules_by_file()
        still: list[Site] = []
        for site in self.pending:
            outcome = self._wrap_site(site, by_file)
            if outcome == "pending":
                still.append(site)
            elif outcome != "wrapped":
                self.sampled_only[site] = outcome
        self.pending = still
        self._rebind_aliases(by_file)

    def uninstall(self) -> None:
        for patch in self.patches.values():
            if _raw_attr(patch.owner, patch.name) is not patch.original_raw:
                setattr(patch.owner, patch.name, patch.original_raw)
        for module in list(sys.modules.values()):
            if self.scanned(getattr(module, "__file__", None) or ""):
                self._restore_aliases(module)
        self.patches.clear()

    def not_wrapped(self) -> list[str]:
        notes = [f"{site.label}: {why}" for site, why in self.sampled_only.items()]
        notes += [f"{site.label}: its module was never imported" for site in self.pending]
        return sorted(notes)

    # -- resolution

    def _wrap_site(self, site: Site, by_file: dict[str, types.ModuleType]) -> str:
        module = by_file.get(site.file)
        if module is None:
            return "pending"
        reasons: list[str] = []
        for target in site.targets:
            if isinstance(target, tuple):
                resolved = self._resolve_scanned_def(*target, by_file=by_file, reasons=reasons)
            else:
                resolved = _resolve_name(target, module, reasons)
            if resolved is not None and self._install(resolved, site, reasons):
                return "wrapped"
        why = "; ".join(reasons) or "nothing to wrap"
        return f"{why}; measured by sampling the loop at its site only"

    def _resolve_scanned_def(
        self, path: str, line: int, *, by_file: dict[str, types.ModuleType], reasons: list[str]
    ) -> Resolved | None:
        defined = innermost_def(self.sources.ranges(path), line)
        module = by_file.get(self.sources.absolute(path))
        if defined is None or module is None or "<locals>" in defined.qualname:
            reasons.append(f"`{path}:{line}` is not a module-level def or method of an imported module")
            return None
        return _resolve_name(defined.qualname, module, reasons)

    def _install(self, resolved: Resolved, site: Site, reasons: list[str]) -> bool:
        slot = (id(resolved.owner), resolved.name)
        patch = self.patches.get(slot)
        if patch is None:
            raw = resolved.raw
            original = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
            if not callable(original):
                reasons.append(f"`{resolved.name}` is not callable")
                return False
            sites_by_file: dict[str, list[Site]] = {}
            wrapper = timed(original, sites_by_file, self.recorder)
            wrapped_raw = type(raw)(wrapper) if isinstance(raw, (staticmethod, classmethod)) else wrapper
            try:
                setattr(resolved.owner, resolved.name, wrapped_raw)
            except (TypeError, AttributeError) as error:
                owner = getattr(resolved.owner, "__qualname__", getattr(resolved.owner, "__name__", "?"))
                reasons.append(f"`{owner}.{resolved.name}` cannot be set ({error})")
                return False
            patch = self.patches[slot] = _Patch(resolved.owner, resolved.name, raw, original, wrapper, sites_by_file)
        patch.sites_by_file.setdefault(site.file, []).append(site)
        return True

    # -- aliases: `from time import sleep` bound the original in a scanned module

    def _rebind_aliases(self, by_file: dict[str, types.ModuleType]) -> None:
        wrappers = {id(p.original): p.wrapper for p in self.patches.values() if isinstance(p.owner, types.ModuleType)}
        if not wrappers:
            return
        for module in by_file.values():
            namespace = vars(module)
            for name, value in list(namespace.items()):
                wrapper = wrappers.get(id(value))
                if wrapper is not None:
                    namespace[name] = wrapper

    def _restore_aliases(self, module: types.ModuleType) -> None:
        originals = {id(p.wrapper): p.original for p in self.patches.values()}
        namespace = vars(module)
        for name, value in list(namespace.items()):
            original = originals.get(id(value))
            if original is not None:
                namespace[name] = original

    def _modules_by_file(self) -> dict[str, types.ModuleType]:
        found: dict[str, types.ModuleType] = {}
        for module in list(sys.modules.values()):
            filename = getattr(module, "__file__", None)
            if isinstance(filename, str) and self.scanned(filename):
                found[self.recorder.real(filename)] = module
        return found


def _raw_attr(owner: Any, name: str) -> Any:
    return vars(owner).get(name) if hasattr(owner, "__dict__") else getattr(owner, name, None)


def _resolve_name(dotted: str, module: types.ModuleType, reasons: list[str]) -> Resolved | None:
    """``dotted`` as the code of ``module`` spells it (`time.sleep`,
    `Path().read_bytes`, `helper`), else as an absolute name of an imported
    module (`requests.get`), else a builtin (`open`)."""
    parts = dotted.replace("()", "").split(".")
    if not all(part.isidentifier() for part in parts):
        reasons.append(f"`{dotted}` is not a name")
        return None
    for start, first in _starts(parts, module):
        resolved = _walk(start, parts[first:])
        if resolved is not None:
            return resolved
    reasons.append(f"`{dotted}` names no imported object (a receiver's name, a local)")
    return None


def _starts(parts: list[str], module: types.ModuleType) -> Iterable[tuple[Any, int]]:
    if parts[0] in vars(module):
        yield module, 0
    for cut in range(len(parts) - 1, 0, -1):
        imported = sys.modules.get(".".join(parts[:cut]))
        if imported is not None:
            yield imported, cut
            break
    if hasattr(builtins, parts[0]):
        yield builtins, 0


def _walk(obj: Any, rest: list[str]) -> Resolved | None:
    """The owner (module or class) of the last part, and its raw attribute."""
    if not rest:
        return None
    for part in rest[:-1]:
        try:
            obj = inspect.getattr_static(obj, part)
        except AttributeError:
            return None
        if isinstance(obj, (staticmethod, classmethod)):
            return None
    name = rest[-1]
    if isinstance(obj, type):
        for klass in obj.__mro__:  # set it where it is defined, so every subclass sees it
            if name in vars(klass):
                return Resolved(klass, name, vars(klass)[name])
        return None
    if isinstance(obj, types.ModuleType) and name in vars(obj):
        return Resolved(obj, name, vars(obj)[name])
    return None
