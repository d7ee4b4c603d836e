"""The floors mmlint is measured against, each run as a fresh process:

    python floors.py ast TARGET      # the stdlib-`ast` script doing MM001-MM003
    python floors.py hash TARGET     # read and sha256 every .py file
    python floors.py parse LISTFILE  # libcst parse_module of the listed files, one process
    python floors.py astparse LISTFILE  # CPython's ast.parse of the listed files, one process

TARGET is a directory (every *.py under it) or one file. Each prints one
number, so a broken floor is visible rather than fast.
"""

from __future__ import annotations

import sys
from pathlib import Path

TWIN = "process_and_combine_mm_data"


def python_files(target: Path) -> list[Path]:
    return [target] if target.is_file() else sorted(target.rglob("*.py"))


def ast_script(target: Path) -> int:
    """The hand-rolled check mmlint replaces: parse every file (no prefilter),
    find sync twin calls and async defs that never suspend; lineno only."""
    import ast

    found = 0
    for path in python_files(target):
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                function = node.func
                name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
                found += name == TWIN
            elif isinstance(node, ast.AsyncFunctionDef):
                found += not any(isinstance(n, (ast.Await, ast.AsyncFor, ast.AsyncWith)) for n in ast.walk(node))
    return found


def read_and_hash(target: Path) -> int:
    import hashlib

    digests = set()
    for path in python_files(target):
        digests.add(hashlib.sha256(path.read_bytes()).digest())
    return len(digests)


def parse_listed(list_file: Path) -> int:
    import libcst

    parsed = 0
    for line in list_file.read_text("utf-8").splitlines():
        try:
            libcst.parse_module(Path(line).read_bytes())
        except libcst.ParserSyntaxError:
            continue
        parsed += 1
    return parsed


def ast_parse_listed(list_file: Path) -> int:
    """What parsing the prefiltered files costs at the least: no tool that
    reads them can be cheaper than CPython's own parser. Where this alone is
    past half the `ast` script (a package whose files nearly all define an
    `async def`), "cold <= 0.5x the script" cannot be met by parsing less."""
    import ast

    parsed = 0
    for line in list_file.read_text("utf-8").splitlines():
        try:
            ast.parse(Path(line).read_bytes())
        except (SyntaxError, ValueError):
            continue
        parsed += 1
    return parsed


def main() -> None:
    floors = {"ast": ast_script, "hash": read_and_hash, "parse": parse_listed, "astparse": ast_parse_listed}
    if len(sys.argv) != 3 or sys.argv[1] not in floors:
        sys.exit(f"usage: floors.py {{{'|'.join(floors)}}} PATH")
    sys.setrecursionlimit(20_000)  # libcst recurses per nesting level, as mmlint allows
    print(floors[sys.argv[1]](Path(sys.argv[2])))


if __name__ == "__main__":
    main()
