"""The deep-stack thread the per-file pass runs on (mmlint.check.deep_stack):
deep recursion works on it, a failing job costs only its own result, and a
pool worker keeps one thread for all its files while any other process is
left with no extra thread (it may fork later)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

from mmlint.check import deep_stack
from mmlint.check.per_file import analyse_file
from mmlint.config.settings import DEFAULT_TWINS


def _recurse(depth: int) -> int:
    return 0 if depth == 0 else 1 + _recurse(depth - 1)


def test_a_job_recurses_past_the_default_limit_and_leaves_no_thread() -> None:
    threads = threading.active_count()
    limit = sys.getrecursionlimit()
    assert deep_stack.run_deep(lambda: _recurse(15_000)) == 15_000
    assert threading.active_count() == threads
    assert sys.getrecursionlimit() == limit


def test_a_job_that_raises_gives_none() -> None:
    assert deep_stack.run_deep(lambda: 1 // 0) is None


def test_a_worker_runs_every_job_on_one_kept_thread() -> None:
    script = textwrap.dedent(
        """
        import threading
        from mmlint.check import deep_stack

        def recurse(depth):
            return 0 if depth == 0 else 1 + recurse(depth - 1)

        deep_stack.keep_one_thread()
        deep_stack.keep_one_thread()  # a second call keeps the same thread
        idents = {deep_stack.run_deep(threading.get_ident) for _ in range(5)}
        assert len(idents) == 1 and threading.get_ident() not in idents, idents
        assert deep_stack.run_deep(lambda: 1 // 0) is None
        assert deep_stack.run_deep(lambda: recurse(15_000)) == 15_000
        assert deep_stack.run_deep(threading.get_ident) in idents  # still serving after a failure
        assert threading.active_count() == 2
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_a_file_deeper_than_the_default_recursion_limit_is_analysed(tmp_path) -> None:
    # Placing the call means generating the statement: libcst recurses per `+`.
    source = "async def f():\n    return await g(" + " + ".join(["1"] * 900) + ")\n"
    path = tmp_path / "deep.py"
    path.write_text(source)
    outcome = analyse_file(source.encode(), path, "deep.py", DEFAULT_TWINS)
    assert type(outcome).__name__ == "Parsed", outcome
