"""Which configuration governs which file, as in ruff: the closest
``pyproject.toml`` with ``[tool.mmlint]``, ``mmlint.toml`` or ``.mmlint.toml``
at or above the file; ``--config FILE`` names one for every file. Without
any, the defaults apply, anchored to the working directory.

Lookups are cached per directory and each configuration file is read once,
so a walk over a large tree costs a dictionary lookup per file. The command
line's --select / --ignore / --extend-select and --exclude / --extend-exclude
are layered over every configuration, and --force-paths (``force_paths``:
the configured ``paths`` bind files named explicitly, as ``exclude`` does)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from mmlint.config.load import apply_cli, config_in_directory, read_explicit_config
from mmlint.config.settings import Settings

__all__ = ["ConfigResolver"]


class ConfigResolver:
    """Maps a file (or directory) to the Settings that govern it."""

    def __init__(
        self,
        cwd: Path,
        config_file: Path | None = None,
        *,
        select: Sequence[str] | None = None,
        ignore: Sequence[str] | None = None,
        extend_select: Sequence[str] | None = None,
        exclude: Sequence[str] | None = None,
        extend_exclude: Sequence[str] | None = None,
        force_paths: bool = False,
    ) -> None:
        self.cwd = Path(os.path.abspath(cwd))
        # A file named explicitly outside its configuration's `paths` is left
        # out, as one `exclude` matches (the hooks ask it: ruff's --force-exclude).
        self.force_paths = force_paths
        self._overrides = (select, ignore, extend_select)
        self._glob_overrides = (exclude, extend_exclude)
        self._by_directory: dict[str, Settings] = {}
        self._fixed: Settings | None = None
        if config_file is not None:
            path = Path(os.path.abspath(self.cwd / config_file))
            self._fixed = self._layer(read_explicit_config(path, self.cwd))
        self._default: Settings | None = None
        # Validates the CLI codes and the cwd's configuration up front: a bad one is an error even with no files.
        self.for_cwd = self.settings_for_directory(self.cwd)

    @classmethod
    def fixed(cls, settings: Settings, cwd: Path) -> ConfigResolver:
        """Every file governed by ``settings`` (built already, overrides applied)."""
        resolver = cls.__new__(cls)
        resolver.cwd = Path(os.path.abspath(cwd))
        resolver._overrides = (None, None, None)
        resolver._glob_overrides = (None, None)
        resolver.force_paths = False
        resolver._by_directory, resolver._default = {}, None
        resolver._fixed = settings
        resolver.for_cwd = settings
        return resolver

    def settings_for(self, path: Path) -> Settings:
        """The Settings of the file ``path`` (absolute; it need not exist)."""
        if self._fixed is not None:
            return self._fixed
        directory = os.path.dirname(os.path.abspath(path))
        found = self._by_directory.get(directory)  # a file's directory is almost always known: no Path built
        return found if found is not None else self.settings_for_directory(Path(directory))

    def settings_for_directory(self, directory: Path) -> Settings:
        """The Settings governing the files directly inside ``directory`` (absolute)."""
        if self._fixed is not None:
            return self._fixed
        key = str(directory)
        found = self._by_directory.get(key)
        if found is not None:
            return found
        found = config_in_directory(directory, self.cwd)  # each directory is looked at once
        if found is not None:
            settings = self._layer(found)
        elif directory.parent != directory:
            settings = self.settings_for_directory(directory.parent)
        else:
            settings = self._defaults()
        self._by_directory[key] = settings
        return settings

    def loaded(self) -> tuple[Settings, ...]:
        """Every configuration met so far (the fixed one with --config)."""
        if self._fixed is not None:
            return (self._fixed,)
        return tuple(dict.fromkeys(self._by_directory.values()))

    def _defaults(self) -> Settings:
        if self._default is None:
            self._default = self._layer(Settings(config_file=None, root=self.cwd))
        return self._default

    def _layer(self, settings: Settings) -> Settings:
        exclude, extend_exclude = self._glob_overrides
        return apply_cli(settings, *self._overrides, exclude=exclude, extend_exclude=extend_exclude, cwd=self.cwd)
