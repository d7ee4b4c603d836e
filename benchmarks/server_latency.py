"""How fast `mmlint server` answers an editor, against what editors can use
without it: `mmlint check - --stdin-filename FILE` in a fresh process.

    python benchmarks/server_latency.py               # 20 edits, 3 cold starts
    python benchmarks/server_latency.py --edits 40 --cold 5 --file base_processor.py
    python benchmarks/server_latency.py --changes 60 --starts 5   # the editor's view, beside ruff server
    python benchmarks/server_latency.py --edit comment   # the warm edits a comment line, not code

Two kinds of change (``edited``): ``code``, a statement typed into a
method's body (a new local assigned a call's value, before the file's first
``return`` in a method), as typing is: the file's facts change, every later
line moves, and the workspace's cross-file analyses run again; and
``comment``, a new last line that is a comment: the file is parsed anew but
its facts stay as they were, so the last findings stand. Until 2026-12 the
benchmark timed only the second, which is not what typing costs.

On a copy of sglang 0.5.23's srt/multimodal (cached by the ecosystem test
harness) in a temporary directory, with a cache directory of its own:

- warm: the server has the workspace's facts; each of --edits didChange
  notifications of one processor file (--file; the largest by default), of
  the --edit kind (code by default), is timed until the publishDiagnostics
  of that version, and side by side, edit by edit, `check -` of the same
  text in a fresh process with the same (warm) cache. Target: the server's median at most 0.5x.
- cold: from didOpen to the first diagnostics of a server started on an empty
  cache (it parses the whole workspace as context), against `check -` on an
  empty cache (which reads the one file: no `paths` are configured). No target;
  reported so that the cost of the first open is known.

Beside `ruff server` (`python -m ruff server`, 1-5 ms a change), when ruff is
installed, the same editor's view of both servers, on the same copy:

- first diagnostics: from the `initialize` request, sent as the process
  starts (so its start-up counts), to the first publishDiagnostics of a
  processor file opened right after `initialized`; mmlint on a warm cache
  (the usual start: the cache outlives the editor) and on an empty one.
  Goal: at most 0.5 s (warm).
- per change: --changes didChange notifications of each kind, each
  after a pause longer than the debounce (typing that paused; a change in a
  burst waits for the pause by design), timed to the publishDiagnostics of
  that version; p50 and p95 on the processor file (goal: p95 at most 50 ms)
  and on `processors/base_processor.py` (goal: p95 at most 150 ms), judged
  for each kind. The goals were set on comment lines; a typed statement
  costs several times more (the cross-file analyses), and misses them.

Prints the figures and PASS/FAIL for the warm target and the goals; exits 1
when the warm target is missed or a measured command fails (a missed goal
is reported, not fatal).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from targets import REPO, multimodal  # also puts tests/ on sys.path

from server_client import LspClient  # noqa: E402  (tests/server_client.py)

VERSION = "0.5.23"
TARGET_RATIO = 0.5
TWIN = "process_and_combine_mm_data"
FIRST_GOAL = 0.5
CHANGE_GOALS = {"processor": 0.050, "base_processor.py": 0.150}
PAUSE = 0.2  # between changes: longer than the default debounce (100 ms)
EDITS = ("code", "comment")
MMLINT_SERVER = [sys.executable, "-m", "mmlint", "server"]
RUFF_SERVER = [sys.executable, "-m", "ruff", "server"]


def processor_file(root: Path, name: str | None) -> Path:
    """``processors/NAME``, else the largest processor calling a twin (the base
    class, over twice its size, is not a processor: --file base_processor.py)."""
    if name is not None:
        return root / "processors" / name
    candidates = [
        p
        for p in (root / "processors").glob("*.py")
        if p.name != "base_processor.py" and TWIN in p.read_text(encoding="utf-8")
    ]
    return max(sorted(candidates), key=lambda p: p.stat().st_size)


def edited(text: str, kind: str, n: int) -> str:
    """The document's text after its n-th change. ``code``: a statement
    typed into a function body (a new local and a call, before the file's
    first ``return`` in a method), as typing is: the file's facts change and
    every later line moves. ``comment``: a new last line, a comment, which
    leaves the facts as they were."""
    if kind == "comment":
        return f"{text}\n# change {n}\n"
    first_return = re.search(r"^( {8,})return\b", text, re.MULTILINE)
    if first_return is None:
        raise ValueError("no `return` in a method body to type before")
    indent = first_return.group(1)
    return f"{text[: first_return.start()]}{indent}edited_{n} = len(str({n}))\n{text[first_return.start() :]}"


def time_check_stdin(root: Path, relative: str, text: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "-", "--stdin-filename", relative, "--quiet"],
        input=text.encode("utf-8"),
        cwd=root,
        env=env,
        capture_output=True,
    )
    seconds = time.perf_counter() - start
    if result.returncode not in (0, 1):
        raise RuntimeError(f"check - exited {result.returncode}: {result.stderr.decode(errors='replace')[-2000:]}")
    return seconds


def start_server(root: Path, env: dict[str, str]) -> LspClient:
    client = LspClient(root, env, command=[sys.executable, "-m", "mmlint", "server"])
    client.initialize(root)
    return client


def time_cold_open(root: Path, path: Path, cache: Path) -> float:
    env = {**os.environ, "MMLINT_CACHE_DIR": str(cache)}
    client = start_server(root, env)
    try:
        start = time.perf_counter()
        uri = client.open(path)
        client.diagnostics(uri, version=1, timeout=600)
        return time.perf_counter() - start
    finally:
        client.stop()


def ruff_available() -> bool:
    return subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True).returncode == 0


def versioned(command: list[str]) -> bool:
    """Whether the server's publishDiagnostics carry the document's version (ruff's need not)."""
    return command is MMLINT_SERVER


def time_first_diagnostics(command: list[str], root: Path, path: Path, env: dict[str, str]) -> float:
    """From `initialize`, sent as the process starts, to the opened file's first diagnostics."""
    client = LspClient(root, env, command=command)
    try:
        start = time.perf_counter()
        client.initialize(root)
        uri = client.open(path)
        client.diagnostics(uri, version=1 if versioned(command) else None, timeout=600)
        return time.perf_counter() - start
    finally:
        client.stop()


def time_changes(
    command: list[str], root: Path, path: Path, env: dict[str, str], changes: int, kind: str
) -> list[float]:
    """Each change's (``edited``) didChange → publishDiagnostics of its version, after a pause."""
    text = path.read_text(encoding="utf-8")
    client = LspClient(root, env, command=command)
    seconds = []
    try:
        client.initialize(root)
        uri = client.open(path)
        client.diagnostics(uri, version=1 if versioned(command) else None, timeout=600)
        for change in range(changes):
            version = change + 2
            time.sleep(PAUSE)
            mark = client.mark()
            start = time.perf_counter()
            client.change(uri, edited(text, kind, change), version)
            client.diagnostics(uri, start=mark, version=version if versioned(command) else None, timeout=600)
            seconds.append(time.perf_counter() - start)
    finally:
        client.stop()
    return seconds


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def editor_view(root: Path, scratch: Path, processor: Path, starts: int, changes: int) -> list[str]:
    """The figures beside ruff server, as table rows, and the goals' verdicts."""
    servers = {"mmlint server": MMLINT_SERVER}
    if ruff_available():
        servers["ruff server"] = RUFF_SERVER
    warm_env = {**os.environ, "MMLINT_CACHE_DIR": str(scratch / "editor-warm")}
    # Fills the cache (a server stopped at once may not have persisted its facts yet).
    subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "--quiet", "."], cwd=root, env=warm_env, capture_output=True
    )
    time_first_diagnostics(MMLINT_SERVER, root, processor, warm_env)
    first: dict[str, list[float]] = {name: [] for name in servers}
    cold: list[float] = []
    for index in range(starts):  # interleaved
        for name, command in servers.items():
            first[name].append(time_first_diagnostics(command, root, processor, warm_env))
        cold_env = {**os.environ, "MMLINT_CACHE_DIR": str(scratch / f"editor-cold-{index}")}
        cold.append(time_first_diagnostics(MMLINT_SERVER, root, processor, cold_env))
    files = {"processor": processor, "base_processor.py": root / "processors" / "base_processor.py"}
    per_change = {
        (label, kind, name): time_changes(command, root, path, warm_env, changes, kind)
        for label, path in files.items()
        for kind in EDITS
        for name, command in servers.items()
    }
    rows = ["| measurement | " + " | ".join(servers) + " |", "| --- |" + " ---: |" * len(servers)]
    rows.append(
        f"| first diagnostics from initialize (warm cache), median of {starts} | "
        + " | ".join(f"{statistics.median(first[name]) * 1000:.0f} ms" for name in servers)
        + " |"
    )
    rows.append(
        f"| first diagnostics from initialize (empty cache), median of {starts} | "
        + f"{statistics.median(cold) * 1000:.0f} ms |"
        + " |" * (len(servers) - 1)
    )
    for label, path in files.items():
        for kind in EDITS:
            for stat, pick in (("p50", statistics.median), ("p95", p95)):
                rows.append(
                    f"| per change ({kind} line), {path.name}, {stat} of {changes} | "
                    + " | ".join(f"{pick(per_change[(label, kind, name)]) * 1000:.1f} ms" for name in servers)
                    + " |"
                )
    verdicts = []
    warm_first = statistics.median(first["mmlint server"])
    verdicts.append(
        f"{'PASS' if warm_first <= FIRST_GOAL else 'MISSED'}: first diagnostics {warm_first * 1000:.0f} ms "
        f"(goal <= {FIRST_GOAL * 1000:.0f} ms)"
    )
    for label, goal in CHANGE_GOALS.items():
        for kind in EDITS:
            got = p95(per_change[(label, kind, "mmlint server")])
            verdicts.append(
                f"{'PASS' if got <= goal else 'MISSED'}: p95 per change ({kind} line) on {files[label].name} "
                f"{got * 1000:.1f} ms (goal <= {goal * 1000:.0f} ms)"
            )
    if "ruff server" not in servers:
        verdicts.append("ruff is not installed: no figures beside ruff server")
    return rows + [""] + verdicts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=20, help="warm edits to time (default 20)")
    parser.add_argument("--cold", type=int, default=3, help="cold starts to time (default 3)")
    parser.add_argument("--file", help="the file of processors/ to edit (default: the largest processor)")
    parser.add_argument(
        "--changes", type=int, default=40, help="paused changes to time per file and server (default 40)"
    )
    parser.add_argument("--starts", type=int, default=3, help="server starts to time, per server (default 3)")
    parser.add_argument(
        "--edit", choices=EDITS, default="code", help="the warm edits' kind (default code; see edited())"
    )
    parser.add_argument("--only-editor", action="store_true", help="only the editor's view beside ruff server")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="mmlint-server-bench-") as scratch_dir:
        scratch = Path(scratch_dir)
        root = scratch / "multimodal"
        shutil.copytree(multimodal(VERSION), root)
        path = processor_file(root, args.file)
        relative = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        files = sum(1 for _ in root.rglob("*.py"))
        print(f"sglang {VERSION} srt/multimodal: {files} files; editing {relative} ({len(text.splitlines())} lines)")
        editor = editor_view(root, scratch, path, args.starts, args.changes)
        print()
        print("\n".join(editor))
        print(f"(cpus: {os.cpu_count()}, python {sys.version.split()[0]}, changes {PAUSE * 1000:.0f} ms apart)")
        if args.only_editor:
            return 0

        # Cold: a fresh empty cache for every start, the runs interleaved.
        cold_server, cold_check = [], []
        for index in range(args.cold):
            cold_server.append(time_cold_open(root, path, scratch / f"cold-server-{index}"))
            cold_env = {**os.environ, "MMLINT_CACHE_DIR": str(scratch / f"cold-check-{index}")}
            cold_check.append(time_check_stdin(root, relative, text, cold_env))

        # Warm: one server, one cache shared with `check -`, edit by edit.
        env = {**os.environ, "MMLINT_CACHE_DIR": str(scratch / "warm")}
        time_check_stdin(root, relative, text, env)  # fills the cache with the file as it is
        client = start_server(root, env)
        server_seconds, check_seconds = [], []
        try:
            uri = client.open(path)
            client.diagnostics(uri, version=1, timeout=600)
            for edit in range(args.edits):
                version = edit + 2
                changed = edited(text, args.edit, edit)
                start = time.perf_counter()
                mark = client.mark()
                client.change(uri, changed, version)
                client.diagnostics(uri, start=mark, version=version, timeout=600)
                server_seconds.append(time.perf_counter() - start)
                check_seconds.append(time_check_stdin(root, relative, changed, env))
        finally:
            client.stop()

    server, check = statistics.median(server_seconds), statistics.median(check_seconds)
    cold_s, cold_c = statistics.median(cold_server), statistics.median(cold_check)
    ratio = server / check
    print()
    print("| measurement | mmlint server | check - (fresh process) | ratio |")
    print("| --- | ---: | ---: | ---: |")
    print(
        f"| warm: didChange ({args.edit} line) → diagnostics, median of {args.edits} | {server * 1000:.0f} ms | {check * 1000:.0f} ms | {ratio:.2f}x |"
    )
    print(
        f"| cold: didOpen → first diagnostics, median of {args.cold} | {cold_s * 1000:.0f} ms | {cold_c * 1000:.0f} ms | {cold_s / cold_c:.2f}x |"
    )
    print()
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    print(f"{verdict}: warm server latency {ratio:.2f}x of check - (target <= {TARGET_RATIO}x)")
    print(f"(cpus: {os.cpu_count()}, python {sys.version.split()[0]}, repo {REPO})")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
