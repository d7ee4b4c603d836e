"""A small sample of the fix fuzz campaign (benchmarks/fuzz_fix.py), so CI runs
it on every change; the full campaign is `python benchmarks/fuzz_fix.py`.
Also checks the campaign's byte verifier itself: it must accept an exact fix
and catch a fix that touches anything else."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import fuzz_fix  # noqa: E402
from fuzz_gen import hypothesmith_modules, template_modules  # noqa: E402
from fuzz_verify import Site, byte_problems  # noqa: E402

ORIGINAL = (
    "\ufeffclass P:\r\n"
    "    async def f(self, a):\r\n"
    "\f        x = self.process_and_combine_mm_data(a)[0]  # note  # mmlint: ignore[MM003]\r\n"
).encode("utf-8")
SITE = Site(3, 14, 3, 49)


def test_the_verifier_accepts_an_exact_fix() -> None:
    fixed = ORIGINAL.replace(
        b"self.process_and_combine_mm_data(a)", b"(await self.process_and_combine_mm_data_async(a))"
    )
    assert byte_problems(ORIGINAL, fixed.replace(b"  # mmlint: ignore[MM003]", b""), [SITE]) == []


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ((b"\f", b""), "differs outside the edit spans"),  # a lost form feed
        ((b"\r\n", b"\n"), "line break"),  # line endings normalised
        ((b"# note  ", b"# not"), "differs outside the edit spans"),  # a truncated comment
        ((b"\xef\xbb\xbf", b""), "encoding changed"),  # the BOM dropped
    ],
)
def test_the_verifier_catches_bytes_changed_outside_the_edits(change: tuple[bytes, bytes], expected: str) -> None:
    fixed = ORIGINAL.replace(
        b"self.process_and_combine_mm_data(a)", b"(await self.process_and_combine_mm_data_async(a))"
    )
    problems = byte_problems(ORIGINAL, fixed.replace(*change, 1), [SITE])
    assert any(expected in p for p in problems), problems


def test_the_verifier_accepts_a_leading_directive_removed_with_the_blanks_after_it() -> None:
    original = b"x = 1  # mmlint: ignore[MM005]  # stale\n"
    assert byte_problems(original, b"x = 1  # stale\n", []) == []
    assert byte_problems(original, b"x = 1  # stal\n", [])


def test_the_verifier_catches_an_unfixed_site_and_prose_removal() -> None:
    assert any("not rewritten" in p for p in byte_problems(ORIGINAL, ORIGINAL, [SITE]))
    prose = b"class P:\n    x = 1  # see `# mmlint: ignore` here\n"
    assert byte_problems(prose, prose.replace(b"`# mmlint: ignore`", b"``"), [])


@pytest.mark.slow
def test_generation_is_reproducible_by_seed() -> None:
    assert template_modules(5, 20, "a") == template_modules(5, 20, "a")
    assert template_modules(5, 20, "a") != template_modules(6, 20, "a")
    assert hypothesmith_modules(5, 3, "a") == hypothesmith_modules(5, 3, "a")


@pytest.mark.slow
def test_a_sample_of_the_campaign_has_no_failures() -> None:
    result = fuzz_fix.run_campaign(count=60, seed=2024, jobs=1, batch_size=60)
    assert sum(result.generated.values()) == 60
    assert result.checked == 60 and result.fixable_sites > 0 and result.files_fixed > 0
    assert [(f.kind, f.module, f.detail[:300]) for f in result.failures] == []
