"""Which configuration governs which target: the run's scopes. The stages
after the project run once per scope (mmlint.check.findings)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mmlint.check.discovery import Discovery, SourceFile
from mmlint.config.settings import Settings

__all__ = ["Scope", "covers", "scopes_of"]


@dataclass(frozen=True)
class Scope:
    """One configuration of the run and the targets it governs."""

    settings: Settings
    targets: dict[str, Path]
    # The run covers everything the configuration scans (its `paths`, else its
    # directory): its stale entries and too-few call sites can be judged (MM008, MM009).
    full_scan: bool


def scopes_of(targets: Mapping[str, SourceFile], discovery: Discovery, for_cwd: Settings) -> list[Scope]:
    """The configurations governing the targets (as discovery found them), and
    those of the directories walked (a configuration whose scan came out empty
    still hears of it, MM008); ``for_cwd``: the working directory's."""
    governed: dict[int, tuple[Settings, dict[str, Path]]] = {}
    for shown, source in targets.items():
        governed.setdefault(id(source.settings), (source.settings, {}))[1][shown] = source.path
    for settings in ([for_cwd] if discovery.full_scan else []) + list(discovery.walked_settings):
        governed.setdefault(id(settings), (settings, {}))
    return [
        Scope(settings, files, covers(discovery, settings))
        for settings, files in sorted(governed.values(), key=lambda pair: str(pair[0].config_file or ""))
    ]


def covers(discovery: Discovery, settings: Settings) -> bool:
    """Whether every directory or file the configuration scans lies under a directory walked."""
    scope = settings.paths or (settings.root,)
    return all(any(_is_under(str(path), str(walked)) for walked in discovery.walked) for path in scope)


def _is_under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(os.path.join(directory, ""))
