"""Cross-file suspension analysis: which async defs suspend on every path, on
some paths, or never; which awaits are hollow; which timeouts cannot fire.

Built from the FileFacts of every parsed file (targets and context).
Verdicts are a least fixed point: every async def starts as "never" and is
re-evaluated until nothing changes, so a cycle with no real suspension point
never suspends, and a cycle with one does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from mmlint.analysis.flow import (
    ALWAYS,
    NEVER,
    SOME,
    SUSPENDED,
    Judgement,
    Verdict,
    apply_verdict,
    run_body,
    verdict_of,
)
from mmlint.analysis.passes import passes_until_stable
from mmlint.analysis.resolve import DefKey, Resolution, Resolver
from mmlint.core.diagnostics import Span
from mmlint.facts.model import AsyncDef, FileFacts, TimeoutFact

NOT_JUDGED: Final = "not judged"

__all__ = [
    "ALWAYS",
    "NEVER",
    "NOT_JUDGED",
    "SOME",
    "Judgement",
    "Verdict",
    "ChainLink",
    "HollowAwait",
    "IneffectiveTimeout",
    "SuspensionAnalysis",
    "analyse_files",
]


@dataclass(frozen=True, slots=True)
class ChainLink:
    name: str  # qualname of the async def
    path: str
    line: int


@dataclass(frozen=True, slots=True)
class HollowAwait:
    path: str
    span: Span
    text: str  # "preprocess(...)"
    chain: tuple[ChainLink, ...]  # the callee first, then what it awaits, ...
    ends_in_cycle: bool  # the last link repeats an earlier one
    # The last link has no await / async for / async with at all (else it only
    # reaches hollow ones).
    ends_without_suspension_point: bool
    enclosing: DefKey


@dataclass(frozen=True, slots=True)
class IneffectiveTimeout:
    path: str
    timeout: TimeoutFact
    chain: tuple[ChainLink, ...]  # wait_for: the wrapped coroutine's chain; timeout: empty
    ends_in_cycle: bool
    ends_without_suspension_point: bool
    enclosing: DefKey


class SuspensionAnalysis:
    """Verdicts for every async def of a scan, and the findings built on them."""

    def __init__(self, files: dict[str, FileFacts], resolver: Resolver | None = None) -> None:
        self.files = files
        self.resolver = resolver if resolver is not None else Resolver(files)
        self.defs: dict[DefKey, AsyncDef] = {
            (path, index): info for path, facts in files.items() for index, info in enumerate(facts.async_defs)
        }
        self._resolutions: dict[tuple[DefKey, int], Resolution] = {}
        for key, info in self.defs.items():
            facts = files[key[0]]
            for index, awaited in enumerate(info.awaits):
                self._resolutions[(key, index)] = self.resolver.resolve_callee(
                    facts, info.class_name, awaited.callee, _method(info), info.qualname
                )
        self.verdicts: dict[DefKey, Verdict] = self._fixed_point()
        self.defs_by_path: dict[str, list[DefKey]] = {}
        for key in self.defs:
            self.defs_by_path.setdefault(key[0], []).append(key)

    def _keys(self, paths: frozenset[str] | None) -> list[DefKey]:
        if paths is None:
            return list(self.defs)
        return [key for path in sorted(paths) for key in self.defs_by_path.get(path, ())]

    # ------------------------------------------------------------ verdicts

    def _fixed_point(self) -> dict[DefKey, Verdict]:
        verdicts: dict[DefKey, Verdict] = {key: NEVER for key in self.defs}
        # A def's verdict reads those of the defs its awaits resolve to: it is
        # run again only when one of them changed (five passes over every
        # body, on sglang, where one and the changes do).
        awaiting: dict[DefKey, list[DefKey]] = {}
        for (key, _), resolution in self._resolutions.items():
            for target in resolution.targets:
                awaiting.setdefault(target, []).append(key)

        def visit(key: DefKey) -> bool:
            new = verdict_of(run_body(self.defs[key].body, self._await_effect(key, verdicts)))
            if new == verdicts[key]:
                return False
            verdicts[key] = new
            return True

        passes_until_stable(list(self.defs), awaiting, visit)
        return verdicts

    def _await_effect(self, key: DefKey, verdicts: dict[DefKey, Verdict]) -> Callable[[int, int], int]:
        def effect(index: int, states: int) -> int:
            return self._apply_resolution(self._resolutions[(key, index)], states, verdicts)

        return effect

    @staticmethod
    def _apply_resolution(resolution: Resolution, states: int, verdicts: dict[DefKey, Verdict]) -> int:
        result = apply_verdict(ALWAYS, states) if resolution.unresolved or not resolution.targets else 0
        for target in resolution.targets:
            result |= apply_verdict(verdicts[target], states)
        return result

    def verdict(self, key: DefKey) -> Verdict:
        return self.verdicts[key]

    def classify(self, key: DefKey) -> Judgement:
        """The one classification MM003, MM004, MM007 and `audit` share:
        NOT_JUDGED for interface-only defs (stubs, abstract methods, overloads,
        Protocol members, async generators), else the verdict. A NEVER def with
        no suspension point at all is MM003's (``AsyncDef.is_fake_async``);
        one whose awaits are all hollow is MM004's."""
        return NOT_JUDGED if self.defs[key].is_interface_only else self.verdicts[key]

    def resolution(self, key: DefKey, await_index: int) -> Resolution:
        return self._resolutions[(key, await_index)]

    def await_is_hollow(self, key: DefKey, await_index: int) -> bool:
        resolution = self._resolutions[(key, await_index)]
        return resolution.fully_resolved and all(self.verdicts[t] == NEVER for t in resolution.targets)

    # ------------------------------------------------------------ findings

    def chain_from(self, start: DefKey) -> tuple[tuple[ChainLink, ...], bool, bool]:
        """Follow hollow awaits from ``start``: the links, whether the chain
        loops back, and whether the last link has no suspension point at all."""
        links: list[ChainLink] = []
        seen: set[DefKey] = set()
        key = start
        while True:
            info = self.defs[key]
            links.append(ChainLink(info.qualname, key[0], info.line))
            seen.add(key)
            following = next(
                (
                    self._resolutions[(key, i)].targets[0]
                    for i in range(len(info.awaits))
                    if self.await_is_hollow(key, i)
                ),
                None,
            )
            if following is None:
                return tuple(links), False, not info.has_suspension_point
            if following in seen:
                again = self.defs[following]
                links.append(ChainLink(again.qualname, following[0], again.line))
                return tuple(links), True, False
            key = following

    def hollow_awaits(self, paths: frozenset[str] | None = None) -> list[HollowAwait]:
        """Every await whose callee resolves to async defs that never suspend."""
        found = []
        for key in self._keys(paths):
            info = self.defs[key]
            for index, awaited in enumerate(info.awaits):
                if self.await_is_hollow(key, index):
                    target = self._resolutions[(key, index)].targets[0]
                    chain, cycle, bare = self.chain_from(target)
                    found.append(HollowAwait(key[0], awaited.span, awaited.text, chain, cycle, bare, key))
        return found

    def ineffective_timeouts(self, paths: frozenset[str] | None = None) -> list[IneffectiveTimeout]:
        found = []
        for key in self._keys(paths):
            info = self.defs[key]
            facts = self.files[key[0]]
            for timeout in info.timeouts:
                if timeout.kind == "wait_for":
                    resolution = self.resolver.resolve_callee(
                        facts, info.class_name, timeout.callee, _method(info), info.qualname
                    )
                    if resolution.fully_resolved and all(self.verdicts[t] == NEVER for t in resolution.targets):
                        chain, cycle, bare = self.chain_from(resolution.targets[0])
                        found.append(IneffectiveTimeout(key[0], timeout, chain, cycle, bare, key))
                else:
                    effect = self._await_effect(key, self.verdicts)
                    if not run_body(timeout.body, effect) & SUSPENDED:
                        found.append(IneffectiveTimeout(key[0], timeout, (), False, False, key))
        return sorted(found, key=lambda finding: (finding.path, finding.timeout.span))


def _method(info: AsyncDef) -> str | None:
    """The method name a def's `self.` calls dispatch from (None outside a class body)."""
    return info.name if info.class_name is not None else None


def analyse_files(files: dict[str, FileFacts]) -> SuspensionAnalysis:
    """The analysis over facts keyed by display path."""
    return SuspensionAnalysis(files)
