"""The heartbeat watchdog: a thread that posts a callback to every running
event loop every few milliseconds and, while one is late by more than the
threshold, samples that loop's thread's stack.

How loops are found: every loop runs through its class's ``run_forever``
(asyncio.run, asyncio.Runner, pytest-asyncio's runner and loop fixtures all
end in ``run_until_complete`` → ``run_forever``), so ``LoopHooks`` wraps
``asyncio.BaseEventLoop.run_forever`` (the selector and proactor loops) and,
once uvloop is imported, ``uvloop.Loop.run_forever``: uvloop's Loop is a Python
subclass of its Cython base, and its ``run_until_complete`` calls
``self.run_forever()`` through the attribute. The wrapper registers the loop
with the thread it runs on for as long as it runs. Hooking creation instead
(policies, ``new_event_loop``) misses ``uvloop.run`` and ``Runner(loop_factory=)``,
and ``asyncio._set_running_loop`` is bound by uvloop at import."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Frames kept per sample, innermost first, and samples kept per stall.
MAX_FRAMES = 64
MAX_SAMPLES = 32
_RUN_FOREVER = "run_forever"  # the one method every loop runs through (see above)


@dataclass(frozen=True, slots=True)
class Frame:
    file: str
    line: int
    function: str  # module-qualified: pkg.b.work


@dataclass(frozen=True, slots=True)
class Stall:
    """A heartbeat late by ``blocked_s``, with the stacks sampled meanwhile."""

    thread: int
    start: float
    end: float
    samples: tuple[tuple[Frame, ...], ...]
    test: str

    @property
    def blocked_s(self) -> float:
        return self.end - self.start


@dataclass(eq=False)
class _Watched:
    loop: asyncio.AbstractEventLoop
    thread: int
    active: bool = True
    sent: float | None = None
    samples: list[tuple[Frame, ...]] = field(default_factory=list)


def sample_stack(thread: int) -> tuple[Frame, ...]:
    frame: types.FrameType | None = sys._current_frames().get(thread)
    found: list[Frame] = []
    while frame is not None and len(found) < MAX_FRAMES:
        code = frame.f_code
        name = getattr(code, "co_qualname", code.co_name)
        module = frame.f_globals.get("__name__", "")
        found.append(Frame(code.co_filename, frame.f_lineno, f"{module}.{name}" if module else name))
        frame = frame.f_back
    return tuple(found)


class Watchdog:
    def __init__(
        self,
        threshold_s: float,
        on_stall: Callable[[Stall], None],
        current_test: Callable[[], str],
        interval_s: float | None = None,
    ) -> None:
        self.threshold_s = threshold_s
        # A beat every half threshold: a stall is seen within 1.5 thresholds.
        # benchmarks/confirm_overhead.py (200 idle async tests, 2 cores), at a
        # half threshold: +2.5 % wall on a quiet machine; -8.8 % to +11.1 % on a
        # loaded one (noise). A quarter threshold gave +10.5 % (loaded).
        self.interval_s = interval_s if interval_s is not None else max(threshold_s / 2, 0.002)
        self._on_stall = on_stall
        self._current_test = current_test
        self._watched: dict[int, _Watched] = {}  # id(loop) -> its current run
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="mmlint-confirm-watchdog", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        self._thread.join(timeout=5)

    def enter(self, loop: asyncio.AbstractEventLoop) -> _Watched | None:
        """``loop`` starts running on this thread (None: it was already watched)."""
        with self._lock:
            if id(loop) in self._watched:
                return None
            watched = self._watched[id(loop)] = _Watched(loop, threading.get_ident())
        self._wake.set()
        return watched

    def leave(self, watched: _Watched | None) -> None:
        if watched is None:
            return
        with self._lock:
            watched.active = False  # a beat still queued on the loop is stale now
            if self._watched.get(id(watched.loop)) is watched:
                del self._watched[id(watched.loop)]

    def _run(self) -> None:
        while not self._stopping:
            if not self._watched:
                self._wake.wait()
                self._wake.clear()
                continue
            time.sleep(self.interval_s)
            now = time.perf_counter()
            with self._lock:
                watched = list(self._watched.values())
            for one in watched:
                if one.sent is None:
                    one.sent = now
                    try:
                        one.loop.call_soon_threadsafe(self._beat, one, now)
                    except RuntimeError:  # closed under us
                        self.leave(one)
                elif now - one.sent > self.threshold_s and len(one.samples) < MAX_SAMPLES:
                    one.samples.append(sample_stack(one.thread))

    def _beat(self, watched: _Watched, sent: float) -> None:
        """Runs on the loop: how late it came is how long the loop was held."""
        now = time.perf_counter()
        with self._lock:
            if not watched.active or watched.sent != sent:
                return
            samples, watched.samples, watched.sent = tuple(watched.samples), [], None
        if now - sent > self.threshold_s:
            self._on_stall(Stall(watched.thread, sent, now, samples, self._current_test()))


class LoopHooks:
    """``run_forever`` wrapped on the loop classes (see the module's doc)."""

    def __init__(self, watchdog: Watchdog) -> None:
        self.watchdog = watchdog
        self._patched: list[tuple[type, Any]] = []

    def refresh(self) -> None:
        classes: list[type] = [asyncio.BaseEventLoop]
        uvloop = sys.modules.get("uvloop")
        if uvloop is not None and isinstance(getattr(uvloop, "Loop", None), type):
            classes.append(uvloop.Loop)
        for klass in classes:
            if any(klass is done for done, _ in self._patched):
                continue
            original = vars(klass).get("run_forever")
            self._patched.append((klass, original))
            setattr(klass, _RUN_FOREVER, self._wrap(klass))

    def uninstall(self) -> None:
        for klass, original in reversed(self._patched):
            if original is None:
                delattr(klass, _RUN_FOREVER)
            else:
                setattr(klass, _RUN_FOREVER, original)
        self._patched.clear()

    def _wrap(self, klass: type) -> Callable[..., Any]:
        inherited = klass.run_forever  # type: ignore[attr-defined]
        watchdog = self.watchdog

        def run_forever(loop: asyncio.AbstractEventLoop, *args: Any, **kwargs: Any) -> Any:
            watched = watchdog.enter(loop)
            try:
                return inherited(loop, *args, **kwargs)
            finally:
                watchdog.leave(watched)

        run_forever.__wrapped__ = inherited  # type: ignore[attr-defined]
        return run_forever
