"""Weight and transitive blocking on the whole sglang 0.5.23 package, defaults.

Recorded by running mmlint before and after "heavy by evidence" (issue 19)
and read: the 15 MM003 that stay are heavy by their code (tokenizer calls,
video and audio decoding, an image resize, a sync `requests.get` in a route,
`pickle.loads` per worker in a loop, a file read in a test server); the 32
that drop were weighed heavy only through a callee mmlint cannot resolve
(``NOT_HEAVY_BY_EVIDENCE``, with the reason they had): now *unknown*, never a
finding on that alone. Every hollow await of a reported root is a related
location of that root's MM003 (one finding per root cause); the three whose
roots dropped went with them. Every MM005 of before stays; the new ones are
calls of the knowledge sets (tokenizers, chat templates, image, video and
audio decoding, file reads, thread joins).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mmlint.analysis.weight import matching_pattern
from mmlint.api import check
from mmlint.core.knowledge import DEFAULT_SETS, patterns_of

pytestmark = pytest.mark.ecosystem

MM003 = {
    # Three through plain helper modules the reach follows (issue 18 point 1), read
    # and true: the model routes read (and may download) the model index via
    # registry.py and hf_diffusers_utils.py; init_multi_tokenizer appends to a
    # namespace file through runtime_context.py (once per tokenizer process).
    ("multimodal_gen/runtime/entrypoints/openai/common_api.py", 219),
    ("multimodal_gen/runtime/entrypoints/openai/common_api.py", 232),
    ("srt/entrypoints/http_server.py", 242),
    ("multimodal_gen/runtime/entrypoints/http_server.py", 238),  # a loop over the workers calling `status()` each
    ("multimodal_gen/runtime/entrypoints/openai/realtime/adapters/nomas_realtime_adapter.py", 127),  # a loop over segments
    ("multimodal_gen/test/unit/test_prompt_enhancement.py", 365),  # `open(...)` in a test server
    ("srt/entrypoints/anthropic/serving.py", 1439),  # tokenizer.encode
    ("srt/entrypoints/http_server.py", 1379),  # requests.get in a route
    ("srt/entrypoints/openai/serving_responses.py", 733),  # tokenizer.encode
    ("srt/entrypoints/openai/serving_tokenize.py", 39),  # tokenizer.encode
    ("srt/entrypoints/openai/serving_tokenize.py", 150),  # tokenizer.decode
    ("srt/managers/multi_tokenizer_mixin.py", 716),  # pickle.loads per worker
    ("srt/multimodal/processors/ernie45_vl.py", 116),  # image.resize
    ("srt/multimodal/processors/ernie45_vl.py", 174),  # vr.get_batch
    ("srt/multimodal/processors/inkling.py", 300),  # a download loop
    ("srt/multimodal/processors/minimax_m3_vl.py", 207),  # vr.get_frames_as_tensor
    ("srt/multimodal/processors/qwen_vl.py", 248),  # vr.get_frames_as_tensor
    ("srt/multimodal/processors/whisper.py", 166),  # load_audio
}

NOT_HEAVY_BY_EVIDENCE = {
    ('multimodal_gen/runtime/entrypoints/action/api.py', 237): 'calls `action_metadata`, which is heavy',
    ('multimodal_gen/runtime/entrypoints/http_server.py', 249): 'calls `get_served_pipeline_class(...)`, not known to be cheap',
    ('multimodal_gen/runtime/entrypoints/http_server.py', 302): 'calls `get_served_pipeline_class(...)`, not known to be cheap',
    # common_api.py:219, :232 and http_server.py:242 were here; the reach found their evidence (MM003 above).
    ('multimodal_gen/test/unit/realtime/test_realtime_output_transport.py', 214): 'calls `fn(...)`, not known to be cheap',
    ('multimodal_gen/test/unit/realtime/test_realtime_output_transport.py', 459): 'calls `fn(...)`, not known to be cheap',
    ('multimodal_gen/test/unit/test_multiple_task_types.py', 209): 'calls `req.output_file_path(...)`, not known to be cheap',
    ('multimodal_gen/test/unit/test_sensenova_u1.py', 170): 'calls `self.worker.execute_forward_sequentially(...)`, not known to be cheap',
    ('multimodal_gen/test/unit/test_video_job_lifecycle.py', 308): 'calls `upload(...)`, not known to be cheap',
    ('srt/disaggregation/encoder/receiver.py', 177): 'calls `self.register(...)`, not known to be cheap',
    ('srt/disaggregation/encoder/receiver.py', 187): 'calls `self.unregister(...)`, not known to be cheap',
    ('srt/disaggregation/encoder/receiver.py', 197): 'calls `self.list_urls(...)`, not known to be cheap',
    ('srt/disaggregation/encoder/runtime.py', 1422): 'calls `enc.profiler.start(...)`, not known to be cheap',
    ('srt/disaggregation/encoder/server.py', 453): 'calls `self.encoder._deregister_shared_mr(...)`, not known to be cheap',
    ('srt/entrypoints/anthropic/serving.py', 807): 'calls `monotonic_time(...)`, not known to be cheap',
    ('srt/entrypoints/grpc_bridge.py', 54): 'calls `self._is_disconnected_fn(...)`, not known to be cheap',
    ('srt/entrypoints/grpc_bridge.py', 415): 'calls `self.tokenizer_manager.abort_request(...)`, not known to be cheap',
    ('srt/entrypoints/grpc_server.py', 52): 'calls `generate_latest(...)`, not known to be cheap',
    ('srt/entrypoints/http_server.py', 636): 'calls `_anthropic_validation_message`, which is heavy',
    ('srt/entrypoints/http_server.py', 813): 'calls `_global_state.tokenizer_manager.config_value(...)`, not known to be cheap',
    ('srt/entrypoints/http_server.py', 1186): 'calls `_global_state.tokenizer_manager.config_value(...)`, not known to be cheap',
    ('srt/entrypoints/http_server.py', 1713): 'calls `_global_state.tokenizer_manager.configure_logging(...)`, not known to be cheap',
    ('srt/entrypoints/http_server.py', 1723): 'calls `_global_state.tokenizer_manager.abort_request(...)`, not known to be cheap',
    ('srt/entrypoints/http_server.py', 1735): 'calls `native_text_parser(...)`, not known to be cheap',
    ('srt/entrypoints/http_server.py', 1775): 'calls `native_text_parser(...)`, not known to be cheap',
    ('srt/entrypoints/http_server.py', 1994): 'a loop',
    ('srt/entrypoints/http_server.py', 2152): 'calls `raw_request.app.state.ollama_serving.get_show(...)`, not known to be cheap',
    ('srt/entrypoints/openai/serving_transcription.py', 444): 'calls `self.tokenizer_manager.create_abort_task(...)`, not known to be cheap',
    ('srt/managers/tokenizer_control_mixin.py', 1001): 'calls `TokenizerManager.auto_create_handle_loop`, which is heavy',
    ('srt/managers/tokenizer_manager.py', 2420): 'calls `TokenizerManager._dispatch_to_scheduler`, which is heavy',
}

# Hollow awaits of before: folded into their root's MM003, or gone with a root
# that is not heavy by evidence.
FOLDED = {
    ("srt/entrypoints/http_server.py", 308),  # its root, http_server.py:242, is reported now (the reach)
    ("srt/disaggregation/encoder/preprocessor.py", 544),
    ("srt/entrypoints/openai/serving_responses.py", 446),
    ("srt/managers/multi_tokenizer_mixin.py", 714),
    ("srt/multimodal/processors/ernie45_vl.py", 411),
    ("srt/multimodal/processors/interns1pro.py", 65),
    ("srt/multimodal/processors/minimax_m3_vl.py", 696),
    ("srt/multimodal/processors/qwen_vl.py", 1027),
}
GONE_WITH_THEIR_ROOT = {
    ("srt/disaggregation/encoder/runtime.py", 1455),
    ("srt/entrypoints/anthropic/serving.py", 214),
}

MM005_BEFORE = {
    ("benchmark/serving.py", 1523),
    ("benchmark/serving.py", 1643),
    ("benchmark/serving.py", 1847),
    ("multimodal_gen/benchmarks/bench_serving.py", 519),
    ("multimodal_gen/benchmarks/bench_serving.py", 523),
    ("srt/entrypoints/http_server.py", 1388),
    ("srt/managers/tokenizer_manager.py", 3522),
    ("srt/managers/tokenizer_manager.py", 3550),
    ("test/server_fixtures/streaming_session_fixture.py", 250),
}


@pytest.fixture(scope="module")
def report(sglang_0_5_23_package: Path, tmp_path_factory: pytest.TempPathFactory):
    config = tmp_path_factory.mktemp("config") / "mmlint.toml"
    config.write_text("", encoding="utf-8")
    return check([sglang_0_5_23_package], cwd=sglang_0_5_23_package, config=config, select=["MM003", "MM004", "MM005"])


def _sites(report, code: str) -> set[tuple[str, int]]:
    return {(d.path, d.span.line) for d in report.diagnostics if d.code == code}


def test_heavy_fake_async_stays_and_unknown_drops(report) -> None:
    assert _sites(report, "MM003") == MM003
    assert len(NOT_HEAVY_BY_EVIDENCE) == 29 and not MM003 & NOT_HEAVY_BY_EVIDENCE.keys()
    assert all(d.weight == "heavy" and d.reason for d in report.diagnostics if d.code == "MM003")


def test_every_multimodal_finding_of_before_is_heavy(report) -> None:
    multimodal = {site for site in _sites(report, "MM003") if site[0].startswith("srt/multimodal/")}
    assert multimodal == {
        ("srt/multimodal/processors/ernie45_vl.py", 116),
        ("srt/multimodal/processors/ernie45_vl.py", 174),
        ("srt/multimodal/processors/inkling.py", 300),
        ("srt/multimodal/processors/minimax_m3_vl.py", 207),
        ("srt/multimodal/processors/qwen_vl.py", 248),
        ("srt/multimodal/processors/whisper.py", 166),
    }


def test_hollow_awaits_are_related_locations_of_their_root(report) -> None:
    assert _sites(report, "MM004") == set()
    related = {(r.path, r.span.line) for d in report.diagnostics if d.code == "MM003" for r in d.related}
    assert FOLDED <= related and not GONE_WITH_THEIR_ROOT & related


def test_blocking_calls_of_before_stay_and_the_new_ones_are_known_calls(report) -> None:
    blocking = [d for d in report.diagnostics if d.code == "MM005"]
    # A sync twin call is MM010's. Through `sglang.srt.utils`'s `from .common import *`
    # (re-exports followed), `kill_process_tree` (reaps children with `time.sleep`, up to
    # 60 s) is reached from the crash wrappers and the SIGTERM watchdog: three more, true
    # and light (shutdown only). 27 more come through plain modules (the reach), among
    # them media_artifacts/base.py:222, whose chain now runs through KimiK3ImageProcessor
    # (image conversion in a plain module) rather than MuseSpark1xOmni, a class that
    # overrides the calling coroutine with an executor offload: that path is cut.
    # One of those 27 is gone again: http_server.py:353 built OpenAIServingRerank,
    # whose __init__ encodes the literals "yes" and "no" (a bounded input, cheap).
    assert MM005_BEFORE <= _sites(report, "MM005") and len(blocking) == 147
    assert {
        ("srt/managers/multi_tokenizer_mixin.py", 950),
        ("srt/managers/tokenizer_manager.py", 3559),
        ("srt/managers/tokenizer_manager.py", 4046),
    } <= _sites(report, "MM005")
    (fallback,) = [d for d in blocking if (d.path, d.span.line) == ("srt/multimodal/media_artifacts/base.py", 222)]
    assert "MuseSpark" not in " ".join(fallback.chain)
    known = patterns_of(DEFAULT_SETS)
    for d in blocking:
        if (d.path, d.span.line) in MM005_BEFORE:
            continue
        assert matching_pattern(d.chain[-1].strip("`"), known) is not None, d
    polling = [d for d in blocking if d.path == "multimodal_gen/benchmarks/bench_serving.py" and "wait_for_service" in d.chain[0]]
    assert polling and polling[0].chain[-1] == "`requests.get`"
