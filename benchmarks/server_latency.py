"""How fast `mmlint server` answers an editor, against what editors can use
without it: `mmlint check - --stdin-filename FILE` in a fresh process.

    python benchmarks/server_latency.py               # 20 edits, 3 cold starts
    python benchmarks/server_latency.py --edits 40 --cold 5 --file base_processor.py

On a copy of sglang 0.5.23's srt/multimodal (cached by the ecosystem test
harness) in a temporary directory, with a cache directory of its own:

- warm: the server has the workspace's facts; each of --edits didChange
  notifications of one processor file (--file; the largest by default) (its text with a new last line, so it
  is parsed anew) is timed until the publishDiagnostics of that version, and
  side by side, edit by edit, `check -` of the same text in a fresh process
  with the same (warm) cache. Target: the server's median at most 0.5x.
- cold: from didOpen to the first diagnostics of a server started on an empty
  cache (it parses the whole workspace as context), against `check -` on an
  empty cache (which reads the one file: no `paths` are configured). No target;
  reported so that the cost of the first open is known.

Prints the figures and PASS/FAIL for the warm target; exits 1 when it is missed
or a measured command fails.
"""

from __future__ import annotations

import argparse
import os
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


def processor_file(root: Path, name: str | None) -> Path:
    """``processors/NAME``, else the largest processor calling a twin (the base
    class, over twice its size, is not a processor: --file base_processor.py)."""
    if name is not None:
        return root / "processors" / name
    candidates = [
        p for p in (root / "processors").glob("*.py") if p.name != "base_processor.py" and TWIN in p.read_text(encoding="utf-8")
    ]
    return max(sorted(candidates), key=lambda p: p.stat().st_size)


def time_check_stdin(root: Path, relative: str, text: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "-", "--stdin-filename", relative, "--quiet"],
        input=text.encode("utf-8"), cwd=root, env=env, capture_output=True,
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=20, help="warm edits to time (default 20)")
    parser.add_argument("--cold", type=int, default=3, help="cold starts to time (default 3)")
    parser.add_argument("--file", help="the file of processors/ to edit (default: the largest processor)")
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
                edited = f"{text}\n# edit {edit}\n"
                start = time.perf_counter()
                mark = client.mark()
                client.change(uri, edited, version)
                client.diagnostics(uri, start=mark, version=version, timeout=600)
                server_seconds.append(time.perf_counter() - start)
                check_seconds.append(time_check_stdin(root, relative, edited, env))
        finally:
            client.stop()

    server, check = statistics.median(server_seconds), statistics.median(check_seconds)
    cold_s, cold_c = statistics.median(cold_server), statistics.median(cold_check)
    ratio = server / check
    print()
    print("| measurement | mmlint server | check - (fresh process) | ratio |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| warm: didChange → diagnostics, median of {args.edits} | {server * 1000:.0f} ms | {check * 1000:.0f} ms | {ratio:.2f}x |")
    print(f"| cold: didOpen → first diagnostics, median of {args.cold} | {cold_s * 1000:.0f} ms | {cold_c * 1000:.0f} ms | {cold_s / cold_c:.2f}x |")
    print()
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    print(f"{verdict}: warm server latency {ratio:.2f}x of check - (target <= {TARGET_RATIO}x)")
    print(f"(cpus: {os.cpu_count()}, python {sys.version.split()[0]}, repo {REPO})")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
