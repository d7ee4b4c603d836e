"""Which build of mmlint is running, as the caches key their entries by it
(mmlint.check.cache, mmlint.check.results).

Two builds sharing one cache directory must never take each other's entries:
a rule, the collector, a budget or a class the cache pickles may differ in
any module. So the fingerprint covers every file of the package as it is on disk (each file's
path relative to the package and the sha256 of its bytes, in sorted order:
code and data alike; only ``__pycache__`` and compiled ``.pyc``/``.pyo`` files
are left out, as Python derives them from the sources), mmlint's version,
libcst's version, and Python's implementation, version, bytecode tag and
highest pickle protocol (the one the cache writes).

It is taken once per process, when a cache is first keyed. Reading and
hashing the package's ~130 files takes about 4 ms (a warm `check` of sglang
takes 350 ms; the results key read every module before this module existed),
so no stand-in that could go stale (sizes and mtimes) is kept: the bytes are
what decides.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from functools import cache
from pathlib import Path

from mmlint import __version__

PACKAGE = Path(__file__).resolve().parent.parent  # mmlint/
_DERIVED_DIRECTORIES = frozenset({"__pycache__"})
_DERIVED_SUFFIXES = (".pyc", ".pyo")


@cache
def build_fingerprint() -> bytes:
    """The sha256 of this build: the package's files, the versions that
    decide an outcome besides them."""
    versions = "|".join(
        (
            __version__,
            installed_libcst_version(),
            sys.implementation.name,
            sys.version,
            str(sys.implementation.cache_tag),
            str(pickle.HIGHEST_PROTOCOL),
        )
    )
    digest = hashlib.sha256(versions.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(package_digest(PACKAGE))
    return digest.digest()


def package_digest(root: Path) -> bytes:
    """The sha256 of every file under ``root`` but derived bytecode: each
    file's path relative to ``root`` (with ``/``) and the sha256 of its bytes,
    in sorted order. A file that cannot be read is hashed as such, by its
    error, so the digest still differs from the readable file's."""
    files = sorted(_package_files(root))
    digest = hashlib.sha256()
    for relative in files:
        digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
        try:
            with open(os.path.join(root, relative), "rb") as handle:
                digest.update(b"F" + hashlib.sha256(handle.read()).digest())
        except OSError as error:
            digest.update(f"unreadable {error.errno}".encode() + b"\0")
    return digest.digest()


def _package_files(root: Path) -> list[str]:
    found = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = [name for name in subdirectories if name not in _DERIVED_DIRECTORIES]
        relative = os.path.relpath(directory, root)
        for name in names:
            if not name.endswith(_DERIVED_SUFFIXES):
                path = name if relative == os.curdir else os.path.join(relative, name)
                found.append(path.replace(os.sep, "/"))
    return found


def installed_libcst_version() -> str:
    """Which libcst is installed, without importing it (a warm run never needs
    it) or importlib.metadata (a tenth of a warm run's budget): the text of
    its generated version module, else the distribution's metadata."""
    import importlib.util

    spec = importlib.util.find_spec("libcst")
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        try:
            with open(os.path.join(location, "_version.py"), "rb") as handle:
                return hashlib.sha256(handle.read()).hexdigest()
        except OSError:
            continue
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("libcst")
    except PackageNotFoundError:
        return "unknown"
