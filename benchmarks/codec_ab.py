"""A/B of the facts cache's entry format: the hand-written codec (frozen
dataclasses to tuples, written with `marshal`) against `pickle`, both behind
the same HMAC-SHA256 (issue 38).

    python benchmarks/codec_ab.py [--target whole --target vllm | --target fixtures | --target PATH]
        [--rounds 7] [--codec-rev REV]

Real facts: one cold `mmlint check` of the target fills a scratch cache, and
every entry it stored (per-file outcomes, light-tier entries of the files the
reach led to) is read back with the running mmlint, whatever its format.
Then, per round, each arm in turn (codec, pickle; pickle, codec the next
round, so load falls on both alike), over all of those entries:

- encode: the payload to bytes, MAC included (a light entry's groups of sync
  defs each encoded on its own first, as the cache keeps them);
- write: each entry to its own file, atomically (temp file, rename);
- read: each file's bytes (mmlint.core.safe_read, as the cache reads them);
- verify+decode: the MAC checked, then the bytes decoded and checked (format,
  key, the top-level type: a miss otherwise);
- groups: every light entry's group decoded (a run decodes only the groups the
  reach asks for: this is the most it could).

It prints each phase's median (ms), pickle ÷ codec, the spread (max ÷ min)
of each arm's read path, the bytes, and the decision: keep the codec only if
it wins by more than 10 % on the warm read path (read + verify+decode of the
entries: what a run whose results miss does for every unchanged file).

The codec arm is mmlint.core.datacodec when the tree has it, else that
module as of ``--codec-rev`` (default: the commit before the one that
removed it), configured as mmlint.check.cache configured it then.

Figures (CPython 3.11.7, 2 cores shared with another job; pickle ÷ codec,
CPU medians; two runs, of 7 rounds at load 4-6 and of 9 at load 2; the
codec as it stood before its removal, a fresh codec each round):

    sglang 0.5.23 whole package (172 outcomes, 241 light entries, 4,202 groups)
      read+verify+decode   1.15x (noise 1.57/1.48)   0.95x (noise 1.19/1.16)
      + every group        1.17x                     1.03x
      groups alone         1.25x                     1.36x  (76 -> 104 ms, all 4,202)
      encode               0.80x                     0.79x
      bytes                9.11 MB -> 10.09 MB (1.11x; outcomes 1.01x, light entries 1.22x)
    vLLM 0.33.0 whole package (126 outcomes, 247 light entries, 2,606 groups)
      read+verify+decode   0.87x (noise 1.38/1.19)   0.87x (noise 1.73/1.39)
      + every group        0.95x                     0.95x
      groups alone         1.28x                     1.32x  (45 -> 59 ms, all 2,606)
      encode               0.80x                     0.85x
      bytes                5.00 MB -> 5.57 MB (1.11x; outcomes 1.00x, light entries 1.22x)

End to end (benchmarks/ab.py, scenario "edited", 7 runs, CPU of the process
tree): the pickle tree ÷ the codec tree 0.999 on sglang (3.42 s, spread
1.41), 1.010 on vLLM (2.35 s, spread 1.12). The codec never won by more than
10 % beyond the noise: it was replaced by pickle behind the same MAC.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import hashlib
import hmac
import importlib
import marshal
import os
import pickle
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from targets import TARGET_NAMES, resolve  # noqa: E402

from mmlint.core.gc_tuning import collect_less_often  # noqa: E402
from mmlint.core.safe_read import read_placed  # noqa: E402
from mmlint.facts.light_groups import LightEntry  # noqa: E402
from mmlint.facts.model import SyncDef  # noqa: E402
from mmlint.facts.outcome import FileOutcome, ParseFailure, Parsed, Unparsed  # noqa: E402

OUTCOME_CLASSES = (Parsed, Unparsed, ParseFailure)  # FileOutcome's members

OFFLINE_TARGETS = {"fixtures": REPO / "fixtures", "mmlint": REPO / "mmlint"}
SGLANG_VERSION = "0.5.23"
FORMAT = "facts-ab"
MARSHAL_VERSION = 4
MAC_DIGITS = 64
READ_LIMIT = 1 << 30
KEEP_CODEC_ABOVE = 1.10  # pickle ÷ codec on the warm read path


@dataclass
class Record:
    """One stored entry, as objects: an outcome, or a light entry's parts."""

    key: str
    outcome: FileOutcome | None = None
    light: LightEntry | None = None  # its bodies emptied; the groups' defs are in ``defs``
    defs: tuple[tuple[SyncDef, ...], ...] = ()


# -- the facts ------------------------------------------------------------------------------


def collect(target: Path, scratch: Path) -> list[Record]:
    """Every entry a cold `mmlint check` of ``target`` stores, read back."""
    cache_dir = scratch / "cache"
    env = {**os.environ, "PYTHONPATH": str(REPO), "MMLINT_CACHE_DIR": str(cache_dir)}
    env.pop("MMLINT_NO_CACHE", None)
    result = subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "--exit-zero", "-q", str(target)],
        env=env,
        cwd=target,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if result.returncode != 0:
        raise SystemExit(f"mmlint check failed on {target}:\n{result.stderr[-2000:]}")
    os.environ["MMLINT_CACHE_DIR"] = str(cache_dir)
    from mmlint.check.cache import FactsCache, group_sync_defs, open_cache

    cache = open_cache().cache
    assert isinstance(cache, FactsCache), "no cache opened"
    records = []
    for path in sorted(cache.directory.glob("??/*")):
        key = path.name
        outcome = cache.load(key)
        if outcome is not None:
            records.append(Record(key, outcome=outcome))
            continue
        light = cache.load_light(key)
        if light is None:
            raise SystemExit(f"an entry neither kind reads: {path}")
        defs = tuple(group_sync_defs(body) for body in light.bodies)
        records.append(Record(key, light=LightEntry(light.facts, light.groups, light.positions, ()), defs=defs))
    return records


# -- the arms -------------------------------------------------------------------------------


def _mac(secret: bytes, signed: bytes) -> bytes:
    return hmac.new(secret, signed, hashlib.sha256).hexdigest().encode("ascii")


def _verified(secret: bytes, raw: bytes) -> bytes:
    signed = raw[MAC_DIGITS:]
    if not hmac.compare_digest(_mac(secret, signed), raw[:MAC_DIGITS]):
        raise ValueError("bad MAC")
    return signed


def _checked(entry: Any, key: str) -> Any:
    if type(entry) is not tuple or len(entry) != 3 or entry[0] != FORMAT or entry[1] != key:
        raise ValueError("not an entry of this format and key")
    return entry[2]


class Arm:
    name = ""

    def fresh(self) -> None:
        """Start a round as a new process would."""

    def encode(self, secret: bytes, record: Record) -> bytes:
        raise NotImplementedError

    def decode(self, secret: bytes, key: str, raw: bytes, light: bool) -> FileOutcome | LightEntry:
        """The entry under ``key``: a LightEntry if ``light``, else a FileOutcome (the caller knows which)."""
        raise NotImplementedError

    def decode_group(self, body: bytes) -> tuple[SyncDef, ...]:
        raise NotImplementedError


class CodecArm(Arm):
    """The codec as mmlint.check.cache used it: marshal (version 4) of tuples."""

    name = "codec"

    def __init__(self, datacodec: types.ModuleType) -> None:
        from mmlint.core.diagnostics import Owner
        from mmlint.facts import ir
        from mmlint.facts.model import CalleeRef, CallRef, ImportFact, Parameter

        reachable = datacodec.reachable_dataclasses
        self.shared = (CalleeRef, Owner, Parameter, CallRef, ImportFact, *reachable(ir.Node))
        self.allowed = reachable(FileOutcome, LightEntry)
        self.datacodec = datacodec
        self.defs_hint = tuple[SyncDef, ...]
        self.reuse = False
        self.codec = datacodec.DataCodec(self.allowed, shared=self.shared)

    def fresh(self) -> None:
        """A new codec: its plans built again (every mmlint process built its
        own) and its memo of shared values empty (a process decodes each entry
        once; a round after round with one codec would hit the memo for every
        shared value, which no run does)."""
        if not self.reuse:
            self.codec = self.datacodec.DataCodec(self.allowed, shared=self.shared)

    def encode(self, secret: bytes, record: Record) -> bytes:
        if record.outcome is not None:
            payload = self.codec.encode(record.outcome, FileOutcome)
        else:
            assert record.light is not None
            bodies = tuple(
                marshal.dumps(self.codec.encode(defs, self.defs_hint), MARSHAL_VERSION) for defs in record.defs
            )
            light = LightEntry(record.light.facts, record.light.groups, record.light.positions, bodies)
            payload = self.codec.encode(light, LightEntry)
        signed = marshal.dumps((FORMAT, record.key, payload), MARSHAL_VERSION)
        return _mac(secret, signed) + signed

    def decode(self, secret: bytes, key: str, raw: bytes, light: bool) -> FileOutcome | LightEntry:
        payload = _checked(marshal.loads(_verified(secret, raw)), key)
        decoded: FileOutcome | LightEntry = self.codec.decode(payload, LightEntry if light else FileOutcome)
        return decoded

    def decode_group(self, body: bytes) -> tuple[SyncDef, ...]:
        defs: tuple[SyncDef, ...] = self.codec.decode(marshal.loads(body), self.defs_hint)
        return defs


class PickleArm(Arm):
    """pickle.HIGHEST_PROTOCOL of the objects themselves, the top-level type checked."""

    name = "pickle"

    def encode(self, secret: bytes, record: Record) -> bytes:
        value: FileOutcome | LightEntry
        if record.outcome is not None:
            value = record.outcome
        else:
            assert record.light is not None
            bodies = tuple(pickle.dumps(defs, pickle.HIGHEST_PROTOCOL) for defs in record.defs)
            value = LightEntry(record.light.facts, record.light.groups, record.light.positions, bodies)
        signed = pickle.dumps((FORMAT, record.key, value), pickle.HIGHEST_PROTOCOL)
        return _mac(secret, signed) + signed

    def decode(self, secret: bytes, key: str, raw: bytes, light: bool) -> FileOutcome | LightEntry:
        value = _checked(pickle.loads(_verified(secret, raw)), key)  # noqa: S301  # after the MAC
        if type(value) not in ((LightEntry,) if light else OUTCOME_CLASSES):
            raise ValueError("not an entry of this kind")
        return value  # type: ignore[no-any-return]

    def decode_group(self, body: bytes) -> tuple[SyncDef, ...]:
        defs = pickle.loads(body)  # noqa: S301  # inside an entry whose MAC was checked
        if type(defs) is not tuple or not all(type(info) is SyncDef for info in defs):
            raise ValueError("not a group of sync defs")
        return defs


def load_datacodec(revision: str | None) -> types.ModuleType:
    """mmlint.core.datacodec, from this tree or from git at ``revision``."""
    with contextlib.suppress(ImportError):
        return importlib.import_module("mmlint.core.datacodec")
    path = "mmlint/core/datacodec.py"
    if revision is None:
        removed = subprocess.run(
            ["git", "-C", str(REPO), "log", "-1", "--format=%H", "--diff-filter=D", "--", path],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        if not removed:
            raise SystemExit(f"{path} is neither in this tree nor removed in its history: pass --codec-rev")
        revision = removed + "^"
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{revision}:{path}"], capture_output=True, text=True, check=True
    ).stdout
    module = types.ModuleType("datacodec_ab")
    module.__file__ = f"{revision}:{path}"
    sys.modules[module.__name__] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)  # noqa: S102  # mmlint's own history
    return module


# -- one round ------------------------------------------------------------------------------

PHASES = ("encode", "write", "read", "verify+decode", "groups")


def timed(action: Callable[[], object]) -> tuple[tuple[float, float], object]:
    """((CPU seconds, wall seconds), the result) of ``action``."""
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    result = action()
    return (time.process_time() - cpu, time.perf_counter() - wall), result


def write_all(directory: Path, entries: dict[str, bytes]) -> None:
    for key, raw in entries.items():
        target = directory / key[:2] / key
        target.parent.mkdir(exist_ok=True, mode=0o700)
        descriptor, temp_name = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(raw)
        os.replace(temp_name, target)


def one_round(
    arm: Arm, records: list[Record], secret: bytes, directory: Path, check: bool
) -> tuple[dict[str, tuple[float, float]], dict[str, int]]:
    arm.fresh()
    seconds: dict[str, tuple[float, float]] = {}
    seconds["encode"], encoded = timed(lambda: {record.key: arm.encode(secret, record) for record in records})
    assert isinstance(encoded, dict)
    seconds["write"], _ = timed(lambda: write_all(directory, encoded))
    keys = [record.key for record in records]
    kinds = [record.light is not None for record in records]
    seconds["read"], raws = timed(
        lambda: [read_placed(directory / key[:2] / key, READ_LIMIT, follow_links=False).data for key in keys]
    )
    assert isinstance(raws, list)
    seconds["verify+decode"], decoded = timed(
        lambda: [arm.decode(secret, key, raw, light) for key, raw, light in zip(keys, raws, kinds)]
    )
    assert isinstance(decoded, list)
    bodies = [body for value in decoded if isinstance(value, LightEntry) for body in value.bodies]
    seconds["groups"], groups = timed(lambda: [arm.decode_group(body) for body in bodies])
    if check:  # the same objects come back
        assert isinstance(groups, list)
        expected_groups = [defs for record in records for defs in record.defs]
        assert groups == expected_groups, f"{arm.name}: groups differ"
        for record, value in zip(records, decoded):
            if record.outcome is not None:
                assert value == record.outcome, f"{arm.name}: {record.key} differs"
            else:
                assert isinstance(value, LightEntry) and record.light is not None
                assert (value.facts, value.groups, value.positions) == (
                    record.light.facts,
                    record.light.groups,
                    record.light.positions,
                )
    sizes = {
        "entries": sum(len(raw) for raw in encoded.values()),
        "outcomes": sum(len(encoded[r.key]) for r in records if r.outcome is not None),
        "light": sum(len(encoded[r.key]) for r in records if r.light is not None),
        "group bodies": sum(len(body) for body in bodies),
    }
    return seconds, sizes


def compare(label: str, records: list[Record], arms: list[Arm], rounds: int, scratch: Path, verbose: bool) -> bool:
    secret = secrets.token_bytes(32)
    times: dict[str, dict[str, list[tuple[float, float]]]] = {arm.name: {phase: [] for phase in PHASES} for arm in arms}
    sizes: dict[str, dict[str, int]] = {}
    for index in range(-1, rounds):  # round -1: untimed, checks both arms (and builds the codec's plans)
        for arm in arms if index % 2 == 0 else arms[::-1]:
            directory = scratch / f"{label}-{arm.name}-{index}"
            directory.mkdir()
            seconds, sizes[arm.name] = one_round(arm, records, secret, directory, check=index < 0)
            shutil.rmtree(directory)
            for phase, value in seconds.items():
                if index >= 0:
                    times[arm.name][phase].append(value)
    outcomes = sum(r.outcome is not None for r in records)
    groups = sum(len(r.defs) for r in records)
    print(
        f"\n== {label}: {outcomes} outcome entries, {len(records) - outcomes} light entries ({groups} groups); {rounds} rounds"
    )
    a, b = arms[0].name, arms[1].name
    print("medians of CPU ms (this process; wall ms beside them)")
    print(
        f"{'phase':<22}{a + ' ms':>12}{b + ' ms':>12}{b + '/' + a:>14}{'wall ' + a:>12}{'wall ' + b:>12}{'wall ratio':>12}"
    )

    def totals(arm: str, phases: tuple[str, ...], which: int) -> list[float]:
        return [sum(t[which] for t in round_times) for round_times in zip(*(times[arm][p] for p in phases))]

    def row(name: str, phases: tuple[str, ...]) -> float:
        cpu = [statistics.median(totals(arm, phases, 0)) for arm in (a, b)]
        wall = [statistics.median(totals(arm, phases, 1)) for arm in (a, b)]
        print(
            f"{name:<22}{cpu[0] * 1e3:>12.1f}{cpu[1] * 1e3:>12.1f}{cpu[1] / cpu[0]:>13.2f}x"
            f"{wall[0] * 1e3:>12.1f}{wall[1] * 1e3:>12.1f}{wall[1] / wall[0]:>11.2f}x"
        )
        if verbose:
            for arm in (a, b):
                print(f"    {arm}: " + " ".join(f"{t * 1e3:.0f}" for t in totals(arm, phases, 0)))
        return cpu[1] / cpu[0]

    for phase in PHASES:
        row(phase, (phase,))
    row("encode+write", ("encode", "write"))
    warm = row("read+verify+decode", ("read", "verify+decode"))
    row("  + every group", ("read", "verify+decode", "groups"))
    for arm in (a, b):
        path = totals(arm, ("read", "verify+decode"), 0)
        print(f"noise ({arm} read path CPU, max/min): {max(path) / min(path):.2f}")
    for kind in ("entries", "outcomes", "light", "group bodies"):
        print(
            f"bytes, {kind:<14}{sizes[a][kind]:>12,}{sizes[b][kind]:>12,}{sizes[b][kind] / max(sizes[a][kind], 1):>13.2f}x"
        )
    keep = warm > KEEP_CODEC_ABOVE
    verdict = "keep the codec" if keep else "replace the codec with pickle"
    print(
        f"decision: the codec wins by {(warm - 1) * 100:+.1f} % on the warm read path "
        f"(keep it only above {(KEEP_CODEC_ABOVE - 1) * 100:.0f} %): {verdict}"
    )
    return keep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--target",
        action="append",
        help=f"{', '.join(TARGET_NAMES)}, fixtures, mmlint, or a directory (default: whole, vllm)",
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--codec-rev", help="the revision to take mmlint/core/datacodec.py from when this tree has none"
    )
    parser.add_argument(
        "--reuse-codec",
        action="store_true",
        help="one codec for every round (its memo of shared values warm, as in a long-lived process)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="every round's CPU ms too")
    args = parser.parse_args()
    if args.rounds < 5:
        parser.error("at least 5 rounds")
    collect_less_often()  # as mmlint's command line does
    codec = CodecArm(load_datacodec(args.codec_rev))
    codec.reuse = args.reuse_codec
    arms: list[Arm] = [codec, PickleArm()]
    with tempfile.TemporaryDirectory(prefix="mmlint-codec-ab-") as temp:
        scratch = Path(temp)
        for name in args.target or ["whole", "vllm"]:
            if name in OFFLINE_TARGETS:
                target = OFFLINE_TARGETS[name]
            elif name in TARGET_NAMES:
                target = resolve(name, SGLANG_VERSION, scratch)
            else:
                target = Path(name).resolve()
            work = scratch / name.replace(os.sep, "_")
            work.mkdir()
            records = collect(target, work)
            compare(name, records, arms, args.rounds, work, args.verbose)


if __name__ == "__main__":
    main()
