"""Findings a maintainer acts on, on sglang's ``srt/multimodal`` (the tree the
other sglang ecosystem tests check) of 0.5.14 and 0.5.23, with the defaults
(issue 40): every finding read and judged.

"heavy": what blocks the loop, in a few words (I/O, or a cost that grows with
the request: an image converted, a video decoded, the prompt tokenized);
"light": true by the rule's letter but cheap; "false": it does not cost what
the finding says. Most findings are the processors' per-request media and
prompt work done on the event loop, which is what the release's async twin
was built to move off it.

Read with care, each in its own words below:
- ``_build_transcription_prompt`` / ``_build_audio_prompt`` (qwen3_asr, qwen_audio,
  glmasr, transformers_auto): the chain names the constant ASR chat template
  (light alone), but the same call decodes the whole prompt when the request
  gives token ids, which grows with the request: heavy.
- lfm2_vl.py:62 (0.5.14) tokenizes the prompt (heavy). Its chain named Kimi's
  GPU wrapper while a base's ``self._processor`` was typed as the union of
  every subclass's assignment; seen from one subclass it is that subclass's
  now (values.Place.receiver), and the chain is ``self._tokenizer``, a
  tokenizer held in an attribute of the unannotated ``_processor``.
- The three ``media_artifacts/base.py`` digests of 0.5.23 hash a cache key's
  JSON of a few options (also FALSE_MM005 in test_weight_sglang.py): false.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mmlint.api import check
from mmlint.core.report import Report

pytestmark = [pytest.mark.ecosystem, pytest.mark.slow]

HEAVY, LIGHT, FALSE = "heavy", "light", "false"
TOKENIZES_PROMPT = (HEAVY, "tokenizes the prompt")
DECODES_PROMPT_IDS = (HEAVY, "decodes the whole prompt's ids")
ASR_PROMPT = (HEAVY, "decodes the prompt's ids when given ids (the chain names the constant template)")

VERDICTS_0_5_14 = {
    ("MM005", "processors/base_processor.py", 815): DECODES_PROMPT_IDS,
    ("MM005", "processors/base_processor.py", 891): DECODES_PROMPT_IDS,
    ("MM005", "processors/base_processor.py", 977): DECODES_PROMPT_IDS,
    ("MM005", "processors/ernie45_vl.py", 125): (HEAVY, "resizes every image"),
    ("MM005", "processors/ernie45_vl.py", 186): (HEAVY, "decodes the video's frames"),
    ("MM010", "processors/ernie45_vl.py", 403): (HEAVY, "resizes the image on the loop; its async twin exists"),
    ("MM005", "processors/internvl.py", 448): (HEAVY, "converts every image"),
    ("MM005", "processors/internvl.py", 483): TOKENIZES_PROMPT,
    ("MM005", "processors/internvl.py", 570): (HEAVY, "tokenizes the prompt with its video tokens"),
    ("MM005", "processors/internvl.py", 661): (HEAVY, "converts every image"),
    ("MM005", "processors/internvl.py", 701): (HEAVY, "tokenizes the prompt with its image tokens"),
    ("MM005", "processors/lfm2_vl.py", 62): TOKENIZES_PROMPT,
    ("MM005", "processors/llava.py", 115): (HEAVY, "loads and decodes every image"),
    ("MM005", "processors/mimo_v2.py", 1947): (HEAVY, "base64-decodes or downloads each video to probe it"),
    ("MM005", "processors/mimo_v2.py", 1952): (HEAVY, "base64-decodes or downloads each video to probe it"),
    ("MM005", "processors/mimo_v2.py", 1957): (HEAVY, "base64-decodes or downloads each video to probe it"),
    ("MM005", "processors/mimo_v2.py", 1960): (HEAVY, "decodes the video's frames"),
    ("MM005", "processors/minicpm.py", 202): (HEAVY, "runs the HF processor on the request's media"),
    ("MM005", "processors/minicpmv4_6.py", 438): (HEAVY, "converts, resizes and slices every image"),
    ("MM005", "processors/minicpmv4_6.py", 439): (HEAVY, "converts, resizes and slices every video frame"),
    ("MM005", "processors/minicpmv4_6.py", 453): TOKENIZES_PROMPT,
    ("MM005", "processors/moss_vl.py", 520): (HEAVY, "runs the HF processor on the request's media"),
    ("MM005", "processors/nano_nemotron_vl.py", 276): TOKENIZES_PROMPT,
    ("MM005", "processors/nano_nemotron_vl.py", 291): (HEAVY, "converts and resizes every image"),
    ("MM005", "processors/nano_nemotron_vl.py", 307): (HEAVY, "tiles and resizes every image"),
    ("MM005", "processors/nano_nemotron_vl.py", 338): (HEAVY, "tiles and resizes every image"),
    ("MM005", "processors/nano_nemotron_vl.py", 441): TOKENIZES_PROMPT,
    ("MM005", "processors/qwen3_asr.py", 72): ASR_PROMPT,
    ("MM005", "processors/qwen_vl.py", 196): (HEAVY, "decodes the video's frames"),
    ("MM005", "processors/transformers_auto.py", 157): (HEAVY, "loads and decodes every image"),
    ("MM005", "processors/voxtral.py", 105): (HEAVY, "re-tokenizes the prompt through the chat template"),
    ("MM005", "processors/whisper.py", 195): (HEAVY, "decodes the request's audio"),
}

VERDICTS_0_5_23 = {
    ("MM005", "media_artifacts/base.py", 222): (HEAVY, "converts every Kimi-K3 image"),
    ("MM005", "media_artifacts/base.py", 312): (FALSE, "sha256 of a small cache key's JSON"),
    ("MM005", "media_artifacts/base.py", 341): (FALSE, "sha256 of a small cache key's JSON"),
    ("MM005", "media_artifacts/base.py", 458): (FALSE, "sha256 of a small cache key's JSON"),
    ("MM005", "processors/bailing_mm.py", 237): DECODES_PROMPT_IDS,
    ("MM005", "processors/base_processor.py", 1309): DECODES_PROMPT_IDS,
    ("MM005", "processors/base_processor.py", 1385): DECODES_PROMPT_IDS,
    ("MM005", "processors/base_processor.py", 1482): DECODES_PROMPT_IDS,
    ("MM005", "processors/cosmos3_edge.py", 657): TOKENIZES_PROMPT,
    ("MM005", "processors/cosmos3_edge.py", 687): (HEAVY, "resizes every image"),
    ("MM005", "processors/cosmos3_edge.py", 690): (HEAVY, "decodes the video's frames"),
    ("MM005", "processors/cosmos3_edge.py", 706): TOKENIZES_PROMPT,
    ("MM005", "processors/cosmos3_edge.py", 710): TOKENIZES_PROMPT,
    ("MM005", "processors/dots_note_omni.py", 518): (HEAVY, "tokenizes each text part of the prompt"),
    ("MM005", "processors/dots_note_omni.py", 532): (HEAVY, "tokenizes each media item's expanded placeholder run"),
    ("MM005", "processors/embedding_gemma2.py", 146): DECODES_PROMPT_IDS,
    ("MM005", "processors/ernie45_vl.py", 122): (HEAVY, "resizes every image"),
    ("MM005", "processors/ernie45_vl.py", 183): (HEAVY, "decodes the video's frames"),
    ("MM010", "processors/ernie45_vl.py", 405): (HEAVY, "resizes the image on the loop; its async twin exists"),
    ("MM005", "processors/glmasr.py", 70): ASR_PROMPT,
    ("MM005", "processors/inkling.py", 324): (HEAVY, "base64-decodes or downloads each audio item"),
    ("MM005", "processors/inkling.py", 326): (HEAVY, "base64-decodes or downloads each audio item"),
    ("MM005", "processors/inkling.py", 327): (HEAVY, "decodes every image of the request"),
    ("MM005", "processors/internvl.py", 449): (HEAVY, "converts every image"),
    ("MM005", "processors/internvl.py", 484): TOKENIZES_PROMPT,
    ("MM005", "processors/internvl.py", 571): (HEAVY, "tokenizes the prompt with its video tokens"),
    ("MM005", "processors/internvl.py", 662): (HEAVY, "converts every image"),
    ("MM005", "processors/internvl.py", 702): (HEAVY, "tokenizes the prompt with its image tokens"),
    ("MM005", "processors/kimi_k3.py", 702): (HEAVY, "converts every image"),
    ("MM005", "processors/kimi_k3.py", 766): (HEAVY, "tokenizes a text prompt (compose_request)"),
    ("MM005", "processors/llava.py", 177): (HEAVY, "loads and decodes every image"),
    ("MM005", "processors/mimo_v2.py", 1926): (HEAVY, "base64-decodes or downloads each video to probe it"),
    ("MM005", "processors/mimo_v2.py", 1931): (HEAVY, "base64-decodes or downloads each video to probe it"),
    ("MM005", "processors/mimo_v2.py", 1936): (HEAVY, "base64-decodes or downloads each video to probe it"),
    ("MM005", "processors/mimo_v2.py", 1939): (HEAVY, "decodes the video's frames"),
    ("MM005", "processors/minicpm.py", 202): (HEAVY, "runs the HF processor on the request's media"),
    ("MM005", "processors/minicpmv4_6.py", 458): (HEAVY, "converts, resizes and slices every image"),
    ("MM005", "processors/minicpmv4_6.py", 461): (HEAVY, "converts, resizes and slices every video frame"),
    ("MM005", "processors/minicpmv4_6.py", 479): TOKENIZES_PROMPT,
    ("MM005", "processors/minicpmv4_6.py", 488): (HEAVY, "hashes every image patch's pixels"),
    ("MM005", "processors/minicpmv4_6.py", 501): (HEAVY, "hashes every video patch's pixels"),
    ("MM005", "processors/minimax_m3_vl.py", 217): (HEAVY, "decodes the video's frames"),
    ("MM005", "processors/minimax_m3_vl.py", 671): (HEAVY, "resizes every image"),
    ("MM005", "processors/moss_vl.py", 552): (HEAVY, "runs the HF processor on the request's media"),
    ("MM005", "processors/muse_spark_omni.py", 802): TOKENIZES_PROMPT,
    ("MM005", "processors/muse_spark_omni.py", 811): (HEAVY, "tokenizes the prompt with its image runs"),
    ("MM005", "processors/muse_spark_omni.py", 828): (HEAVY, "tokenizes a timestamp per video frame"),
    ("MM005", "processors/muse_spark_omni.py", 897): TOKENIZES_PROMPT,
    ("MM005", "processors/muse_spark_omni.py", 915): (HEAVY, "tokenizes the prompt's text parts"),
    ("MM005", "processors/muse_spark_omni.py", 993): (HEAVY, "tokenizes a timestamp per video frame"),
    ("MM005", "processors/nano_nemotron_vl.py", 308): DECODES_PROMPT_IDS,
    ("MM005", "processors/nano_nemotron_vl.py", 309): (LIGHT, "converts three single placeholder ids to tokens"),
    ("MM005", "processors/nano_nemotron_vl.py", 399): TOKENIZES_PROMPT,
    ("MM005", "processors/nano_nemotron_vl.py", 414): (HEAVY, "converts and resizes every image"),
    ("MM005", "processors/nano_nemotron_vl.py", 431): (HEAVY, "tiles and resizes every image"),
    ("MM005", "processors/nano_nemotron_vl.py", 463): (HEAVY, "tiles and resizes every image"),
    ("MM005", "processors/nano_nemotron_vl.py", 574): TOKENIZES_PROMPT,
    ("MM005", "processors/nano_nemotron_vl.py", 579): (HEAVY, "tokenizes every media item's rendered token run"),
    ("MM005", "processors/qwen3_asr.py", 69): ASR_PROMPT,
    ("MM005", "processors/qwen_audio.py", 159): ASR_PROMPT,
    ("MM005", "processors/qwen_vl.py", 267): (HEAVY, "decodes the video's frames"),
    # lru_cache keyed by the prompt: a miss per new prompt tokenizes it.
    ("MM005", "processors/qwen_vl.py", 1205): (HEAVY, "tokenizes each new prompt (a cache keyed by the prompt)"),
    ("MM005", "processors/transformers_auto.py", 194): ASR_PROMPT,
    ("MM005", "processors/transformers_auto.py", 214): (HEAVY, "loads and decodes every image"),
    ("MM005", "processors/unlimited_ocr.py", 107): (LIGHT, "tokenizes the short OCR prefix of images_config"),
    ("MM005", "processors/unlimited_ocr.py", 112): (HEAVY, "hash_feature of every item's pixels"),
    ("MM005", "processors/voxtral.py", 105): (HEAVY, "re-tokenizes the prompt through the chat template"),
    ("MM005", "processors/whisper.py", 195): (HEAVY, "decodes the request's audio"),
}
# Issue 40's goal on each release: at least 70 % heavy, none false.
HEAVY_SHARE_GOAL = 0.7
# Open: each cache key's JSON holds the media item's preprocess options, a
# request's mapping of any size by the source (ImageData.preprocess_kwargs is
# an `Optional[Dict]`), which `_canonicalize` walks whole: the input-size
# bound reads a dict display of short values now, not that one (see
# test_weight_sglang.py's FALSE_MM005).
KNOWN_FALSE_0_5_23 = {key for key, (verdict, _) in VERDICTS_0_5_23.items() if verdict == FALSE}


def _defaults(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Report:
    config = tmp_path_factory.mktemp("config") / "mmlint.toml"
    config.write_text("", encoding="utf-8")  # the defaults, whatever lies above the cache
    return check([tree], cwd=tree, config=config)


@pytest.fixture(scope="module")
def report_0_5_14(sglang_0_5_14: Path, tmp_path_factory: pytest.TempPathFactory) -> Report:
    return _defaults(sglang_0_5_14, tmp_path_factory)


@pytest.fixture(scope="module")
def report_0_5_23(sglang_0_5_23: Path, tmp_path_factory: pytest.TempPathFactory) -> Report:
    return _defaults(sglang_0_5_23, tmp_path_factory)


def _found(report: Report) -> set[tuple[str, str, int]]:
    return {(d.code, d.path, d.span.line) for d in report.diagnostics}


def _heavy_share(verdicts: dict[tuple[str, str, int], tuple[str, str]]) -> float:
    return sum(verdict == HEAVY for verdict, _ in verdicts.values()) / len(verdicts)


def test_every_verdict_is_one_of_three_with_its_reading() -> None:
    for verdicts in (VERDICTS_0_5_14, VERDICTS_0_5_23):
        assert all(verdict in (HEAVY, LIGHT, FALSE) and reading for verdict, reading in verdicts.values())


def test_0_5_14_reports_exactly_the_judged_findings_all_heavy(report_0_5_14: Report) -> None:
    assert _found(report_0_5_14) == VERDICTS_0_5_14.keys()
    assert _heavy_share(VERDICTS_0_5_14) == 1.0


def test_0_5_23_reports_exactly_the_judged_findings(report_0_5_23: Report) -> None:
    assert _found(report_0_5_23) == VERDICTS_0_5_23.keys()
    assert _heavy_share(VERDICTS_0_5_23) >= HEAVY_SHARE_GOAL, _heavy_share(VERDICTS_0_5_23)
    assert len(KNOWN_FALSE_0_5_23) == 3


@pytest.mark.xfail(
    strict=True,
    reason="three digests of a small cache key's JSON (KNOWN_FALSE_0_5_23), "
    "which holds the request's options mapping: no source shape bounds it",
)
def test_0_5_23_reports_nothing_false(report_0_5_23: Report) -> None:
    assert not KNOWN_FALSE_0_5_23 & _found(report_0_5_23)
