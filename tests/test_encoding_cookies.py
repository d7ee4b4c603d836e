"""Files whose encoding cookie names something other than UTF-8 are checked
like any other, through the command line: with or without a trigger, ASCII
only or not (the prefilter once decoded such a file, re-encoded it as UTF-8
and read the cookie again, without end)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import pytest

LATIN1_TRIGGER = (
    "# -*- coding: latin-1 -*-\n"
    "class Clip:\n"
    "    async def process(self, x):\n"
    "        return self.process_and_combine_mm_data(x)  # caf\xe9\n"
).encode("latin-1")

# name -> bytes; none holds a trigger except those whose name says so.
FILES = {
    "latin1_ascii.py": b"# -*- coding: latin-1 -*-\nx = 1\n",
    "latin1_accent.py": b"# -*- coding: latin-1 -*-\nx = '\xe9'\n",
    "cp1252_euro.py": b"# coding: cp1252\nx = '\x80'\n",
    "cp1252_ascii.py": b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nx = 1\n",
    "ascii.py": b"# coding: ascii\nx = 1\n",
    "utf7.py": b"# coding: utf-7\nx = '+AOk-'\n",
    "iso8859_15.py": b"# coding: iso-8859-15\nx = '\xa4'\n",
    "latin1_trigger.py": LATIN1_TRIGGER,
    "utf7_trigger.py": b"# coding: utf-7\n+AGE-sync def f(self): return self.process+AF8-and+AF8-combine+AF8-mm+AF8-data(1)\n",
}


def _capped() -> None:
    # A regression would recurse with a text doubling at every level: fail at
    # 2 GiB instead of taking the machine's memory.
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.slow
@pytest.mark.parametrize("command", [["check"], ["fix", "--diff"]])
def test_a_tree_of_encoding_cookies_is_checked_normally(tmp_path, command):
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    args = [sys.executable, "-m", "mmlint", *command, "--no-cache"]
    if command == ["check"]:
        args += ["--format", "json"]
    result = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120, preexec_fn=_capped)
    assert "internal error" not in result.stderr and "Error" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr
    if command == ["check"]:
        report = json.loads(result.stdout)
        assert report["files_scanned"] == len(FILES)
        found = sorted((d["path"], d["line"], d["code"]) for d in report["diagnostics"])
        # MM003 too: each coroutine never suspends and reaches the sync body.
        assert found == [
            ("latin1_trigger.py", 3, "MM003"),
            ("latin1_trigger.py", 4, "MM001"),
            ("utf7_trigger.py", 2, "MM001"),
            ("utf7_trigger.py", 2, "MM003"),
        ]
    else:
        assert "+        return await self.process_and_combine_mm_data_async(x)" in result.stdout
    for name, data in FILES.items():  # nothing written
        assert (tmp_path / name).read_bytes() == data
