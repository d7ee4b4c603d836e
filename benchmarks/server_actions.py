"""What `mmlint server`'s code actions and a stray document cost, against the
CLI on the same files, in a temporary directory:

    python benchmarks/server_actions.py                # 8,000 lines, 15,000 files
    python benchmarks/server_actions.py --lines 2000 --files 3000

- code actions: a module of --lines similar lines (methods calling the sync
  twin, half of them async, so half fixable and half MM001 + MM002) open in
  a server; the time of a codeAction request over the whole file (every
  diagnostic's fix and suppression, and fix all), then of one on a single
  line of the same text (answered from the plan), against `mmlint fix` on a
  copy of the file in a fresh process; and how long `shutdown` + `exit` take
  while such a request runs.
- stray document: a document opened from a folder of --files modules that is
  not the workspace folder: didOpen to the first diagnostics, and a save
  (didSave) to its diagnostics, against `mmlint check FILE` there.

Prints the figures; no target (the issue's: a code action about what `fix`
costs, a stray document about what `check FILE` costs).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from server_client import LspClient  # noqa: E402  (tests/server_client.py)

TWIN = "self.process_and_combine_mm_data"


def similar_lines(lines: int) -> str:
    parts = ["class P(Base):\n"]
    for index in range(lines // 4):
        kind = "async def" if index % 2 == 0 else "def"
        parts.append(
            f"    {kind} m{index}(self, data):\n        x = prepare(data)\n        y = {TWIN}(x)\n        return y\n"
        )
    return "".join(parts)


def cli(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mmlint", *args], cwd=cwd, env=env, capture_output=True, timeout=3600)
    return time.perf_counter() - start


def start(root: Path, env: dict[str, str]) -> LspClient:
    client = LspClient(root, env)
    client.initialize(root)
    return client


def code_action(client: LspClient, uri: str, first: int, last: int) -> float:
    where = {"start": {"line": first, "character": 0}, "end": {"line": last, "character": 0}}
    began = time.perf_counter()
    client.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": where, "context": {"diagnostics": []}},
        timeout=3600,
    )
    return time.perf_counter() - began


def bench_actions(scratch: Path, lines: int) -> list[str]:
    root = scratch / "actions"
    root.mkdir()
    text = similar_lines(lines)
    path = root / "big.py"
    path.write_text(text)
    env = {**os.environ, "MMLINT_CACHE_DIR": str(scratch / "cache-actions")}
    copy = scratch / "fix-copy"
    copy.mkdir()
    (copy / "big.py").write_text(text)
    fix_seconds = cli(["fix", "big.py"], copy, env)
    client = start(root, env)
    try:
        uri = client.open(path)
        client.diagnostics(uri, timeout=3600)
        whole = code_action(client, uri, 0, lines + 1)
        one = code_action(client, uri, 3, 3)
        # A new text, so the next request computes its plan; shut down while it runs.
        client.change(uri, text + "\n", 2)
        client.diagnostics(uri, version=2, timeout=3600)
        client._send(
            {
                "id": 10_000,
                "method": "textDocument/codeAction",
                "params": {
                    "textDocument": {"uri": uri},
                    "context": {"diagnostics": []},
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines + 1, "character": 0}},
                },
            }
        )
        time.sleep(0.2)
        began = time.perf_counter()
        client.stop(timeout=3600)
        exit_seconds = time.perf_counter() - began
    finally:
        client.close()
    return [
        f"| code action, whole file ({lines} lines) | {whole:.2f} s | `fix`: {fix_seconds:.2f} s | {whole / fix_seconds:.2f}x |",
        f"| code action, one line, same text | {one:.3f} s | | |",
        f"| shutdown + exit during a code action | {exit_seconds:.2f} s | | |",
    ]


def bench_stray(scratch: Path, files: int) -> list[str]:
    folder, stray = scratch / "workspace", scratch / "downloads"
    folder.mkdir()
    stray.mkdir()
    for index in range(files):
        package = stray / f"pkg{index // 500}"
        package.mkdir(exist_ok=True)
        (package / f"mod{index}.py").write_text(
            f"async def f{index}(x):\n    return await g(x)\n\n\ndef h{index}():\n    return {index}\n"
        )
    document = stray / "serve.py"
    document.write_text(f"async def handle(self, r):\n    return {TWIN}(r)\n")
    env = {**os.environ, "MMLINT_CACHE_DIR": str(scratch / "cache-stray")}
    check_seconds = cli(["check", "serve.py"], stray, {**env, "MMLINT_CACHE_DIR": str(scratch / "cache-check")})
    client = start(folder, env)
    try:
        began = time.perf_counter()
        uri = client.open(document)
        client.diagnostics(uri, timeout=3600)
        first = time.perf_counter() - began
        began = time.perf_counter()
        client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        # Unchanged diagnostics are not published again: a code action waits for the save's run.
        code_action(client, uri, 0, 0)
        save = time.perf_counter() - began
        client.stop(timeout=3600)
    finally:
        client.close()
    return [
        f"| stray document ({files} files beside it): first diagnostics | {first:.2f} s | `check FILE`: {check_seconds:.2f} s | {first / check_seconds:.2f}x |",
        f"| stray document: save → answered | {save:.2f} s | | |",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=8000, help="lines of the similar-lines module (default 8000)")
    parser.add_argument("--files", type=int, default=15000, help="modules beside the stray document (default 15000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mmlint-server-actions-") as scratch_dir:
        scratch = Path(scratch_dir)
        rows = bench_actions(scratch, args.lines) + bench_stray(scratch, args.files)
    print("| measurement | mmlint server | CLI | ratio |")
    print("| --- | ---: | ---: | ---: |")
    print("\n".join(rows))
    print(f"(cpus: {os.cpu_count()}, python {sys.version.split()[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
