"""Weight and transitive blocking on the whole sglang 0.5.23 package, defaults.

The sets were recorded by running mmlint before and after weighing: every
MM004 and MM005 of before stays except the three awaits of light callees (a
gRPC health `Check` returning a constant response, two Ollama stream helpers
that only build a `StreamingResponse`); every heavy MM003 stays; the light
ones (test doubles, constant and response-building routes, hooks) drop. Three
MM005 are new, through scanned sync helpers: the `requests` polling helper
of the diffusion benchmark, the cache flush of the serving benchmark, and the
crash dump that sleeps, called from the SIGTERM watchdog.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mmlint.api import check

pytestmark = pytest.mark.ecosystem

MM003_BEFORE = 97

MM003 = {
    ("multimodal_gen/runtime/entrypoints/action/api.py", 237),
    ("multimodal_gen/runtime/entrypoints/http_server.py", 238),
    ("multimodal_gen/runtime/entrypoints/http_server.py", 249),
    ("multimodal_gen/runtime/entrypoints/http_server.py", 302),
    ("multimodal_gen/runtime/entrypoints/openai/common_api.py", 219),
    ("multimodal_gen/runtime/entrypoints/openai/common_api.py", 232),
    ("multimodal_gen/runtime/entrypoints/openai/realtime/adapters/nomas_realtime_adapter.py", 127),
    ("multimodal_gen/test/unit/realtime/test_realtime_output_transport.py", 214),
    ("multimodal_gen/test/unit/realtime/test_realtime_output_transport.py", 459),
    ("multimodal_gen/test/unit/test_multiple_task_types.py", 209),
    ("multimodal_gen/test/unit/test_prompt_enhancement.py", 365),
    ("multimodal_gen/test/unit/test_sensenova_u1.py", 170),
    ("multimodal_gen/test/unit/test_video_job_lifecycle.py", 308),
    ("srt/disaggregation/encoder/receiver.py", 177),
    ("srt/disaggregation/encoder/receiver.py", 187),
    ("srt/disaggregation/encoder/receiver.py", 197),
    ("srt/disaggregation/encoder/runtime.py", 1422),
    ("srt/disaggregation/encoder/server.py", 453),
    ("srt/entrypoints/anthropic/serving.py", 807),
    ("srt/entrypoints/anthropic/serving.py", 1439),
    ("srt/entrypoints/grpc_bridge.py", 54),
    ("srt/entrypoints/grpc_bridge.py", 415),
    ("srt/entrypoints/grpc_server.py", 52),
    ("srt/entrypoints/http_server.py", 242),
    ("srt/entrypoints/http_server.py", 636),
    ("srt/entrypoints/http_server.py", 813),
    ("srt/entrypoints/http_server.py", 1186),
    ("srt/entrypoints/http_server.py", 1379),
    ("srt/entrypoints/http_server.py", 1713),
    ("srt/entrypoints/http_server.py", 1723),
    ("srt/entrypoints/http_server.py", 1735),
    ("srt/entrypoints/http_server.py", 1775),
    ("srt/entrypoints/http_server.py", 1994),
    ("srt/entrypoints/http_server.py", 2152),
    ("srt/entrypoints/openai/serving_responses.py", 733),
    ("srt/entrypoints/openai/serving_tokenize.py", 39),
    ("srt/entrypoints/openai/serving_tokenize.py", 150),
    ("srt/entrypoints/openai/serving_transcription.py", 444),
    ("srt/managers/multi_tokenizer_mixin.py", 716),
    ("srt/managers/tokenizer_control_mixin.py", 1001),
    ("srt/managers/tokenizer_manager.py", 2420),
    ("srt/multimodal/processors/ernie45_vl.py", 116),
    ("srt/multimodal/processors/ernie45_vl.py", 174),
    ("srt/multimodal/processors/inkling.py", 300),
    ("srt/multimodal/processors/minimax_m3_vl.py", 207),
    ("srt/multimodal/processors/qwen_vl.py", 248),
    ("srt/multimodal/processors/whisper.py", 166),
}

MM004 = {
    ("srt/disaggregation/encoder/preprocessor.py", 544),
    ("srt/disaggregation/encoder/runtime.py", 1455),
    ("srt/entrypoints/anthropic/serving.py", 214),
    ("srt/entrypoints/http_server.py", 308),
    ("srt/entrypoints/openai/serving_responses.py", 446),
    ("srt/managers/multi_tokenizer_mixin.py", 714),
    ("srt/multimodal/processors/ernie45_vl.py", 411),
    ("srt/multimodal/processors/interns1pro.py", 65),
    ("srt/multimodal/processors/minimax_m3_vl.py", 696),
    ("srt/multimodal/processors/qwen_vl.py", 1027),
}

MM005 = {
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

MM004_OF_LIGHT_CALLEES = {
    ("srt/disaggregation/encoder/grpc_server.py", 78),
    ("srt/entrypoints/ollama/serving.py", 98),
    ("srt/entrypoints/ollama/serving.py", 216),
}
MM005_BEFORE = MM005 - {
    ("benchmark/serving.py", 1523),
    ("multimodal_gen/benchmarks/bench_serving.py", 519),
    ("srt/managers/tokenizer_manager.py", 3522),
}

# Every MM003 of before that is no longer reported by default, with why.
MOVED_TO_LIGHT = {
    ("multimodal_gen/runtime/entrypoints/http_server.py", 204): "light: route returning a constant dict",
    ("multimodal_gen/runtime/entrypoints/http_server.py", 284): "light: route building a dict from attributes",
    ("multimodal_gen/runtime/entrypoints/openai/common_api.py", 189): "light: route: argument-less getter, HTTPException, dict",
    ("multimodal_gen/runtime/entrypoints/openai/realtime/realtime_adapter.py", 162): "stub: hook whose body is `del session`",
    ("multimodal_gen/test/unit/realtime/test_realtime_consistency_harness.py", 188): "light: test double returning self",
    ("multimodal_gen/test/unit/realtime/test_realtime_consistency_harness.py", 191): "stub: test double returning a constant",
    ("multimodal_gen/test/unit/realtime/test_realtime_consistency_harness.py", 194): "light: test double appending a decoded message",
    ("multimodal_gen/test/unit/realtime/test_realtime_consistency_harness.py", 197): "light: test double popping from a list",
    ("multimodal_gen/test/unit/realtime/test_realtime_output_transport.py", 30): "light: test double appending to a list",
    ("multimodal_gen/test/unit/realtime/test_realtime_runtime.py", 244): "light: monkeypatched stand-in returning its argument",
    ("multimodal_gen/test/unit/realtime/test_realtime_runtime.py", 471): "stub: hook whose body is `del session`",
    ("multimodal_gen/test/unit/realtime/test_realtime_runtime.py", 524): "light: test double appending to a list",
    ("multimodal_gen/test/unit/realtime/test_realtime_runtime.py", 542): "light: test double appending to a list",
    ("multimodal_gen/test/unit/realtime/test_realtime_runtime.py", 546): "light: test double returning a constant stats dict",
    ("multimodal_gen/test/unit/realtime/test_realtime_runtime.py", 600): "light: test double raising WebSocketDisconnect",
    ("multimodal_gen/test/unit/realtime/test_realtime_runtime.py", 603): "light: test double appending to a list",
    ("multimodal_gen/test/unit/realtime/test_realtime_runtime.py", 697): "light: monkeypatched stand-in clearing a set",
    ("multimodal_gen/test/unit/realtime/test_realtime_runtime.py", 730): "light: test double appending to a list",
    ("multimodal_gen/test/unit/realtime/test_realtime_runtime.py", 780): "light: test double appending to a list",
    ("multimodal_gen/test/unit/realtime/test_realtime_runtime.py", 1012): "light: test double appending and building stats",
    ("multimodal_gen/test/unit/test_health_warmup_gate.py", 227): "light: test route returning its body",
    ("multimodal_gen/test/unit/test_health_warmup_gate.py", 261): "light: test double returning self",
    ("multimodal_gen/test/unit/test_health_warmup_gate.py", 264): "stub: test double returning a constant",
    ("multimodal_gen/test/unit/test_health_warmup_gate.py", 267): "light: fake client: counter, list append, response object",
    ("multimodal_gen/test/unit/test_image_response_bytes.py", 369): "light: test double building an OutputBatch",
    ("multimodal_gen/test/unit/test_multiple_task_types.py", 213): "light: test double returning a list",
    ("multimodal_gen/test/unit/test_openai_security.py", 100): "light: httpx event hook appending to a list",
    ("multimodal_gen/test/unit/test_openai_security.py", 358): "light: test double building an OutputBatch",
    ("multimodal_gen/test/unit/test_prompt_enhancement.py", 602): "light: test double returning an httpx.Response",
    ("multimodal_gen/test/unit/test_scheduler_client.py", 473): "light: test double returning a dict or lambda",
    ("multimodal_gen/test/unit/test_video_job_lifecycle.py", 305): "light: test double returning a tuple",
    ("srt/disaggregation/common/conn.py", 3075): "light: route returning web.Response",
    ("srt/disaggregation/encoder/grpc_server.py", 68): "light: gRPC servicer returning a HealthCheckResponse",
    ("srt/disaggregation/encoder/receiver.py", 173): "light: route returning Response(OK)",
    ("srt/entrypoints/elastic_ep.py", 78): "light: route: argument-less getters, ORJSONResponse",
    ("srt/entrypoints/http_server.py", 579): "light: exception handler building an error response",
    ("srt/entrypoints/http_server.py", 695): "light: dependency reading a header, raising RequestValidationError",
    ("srt/entrypoints/http_server.py", 715): "light: route: argument-less is_ready(), Response",
    ("srt/entrypoints/http_server.py", 2026): "light: route building a ModelCard / ORJSONResponse",
    ("srt/entrypoints/http_server.py", 2118): "stub: route returning a constant string",
    ("srt/entrypoints/http_server.py", 2126): "stub: route returning a constant string",
    ("srt/entrypoints/http_server.py", 2146): "light: route: argument-less get_tags()",
    ("srt/entrypoints/http_server.py", 2191): "light: route: argument-less is_healthy(), Response",
    ("srt/entrypoints/ollama/serving.py", 133): "light: builds a StreamingResponse over a nested async generator",
    ("srt/entrypoints/ollama/serving.py", 250): "light: builds a StreamingResponse over a nested async generator",
    ("srt/entrypoints/openai/serving_base.py", 169): "light: default override returning an error response",
    ("srt/entrypoints/openai/serving_base.py", 185): "light: default override returning an error response",
    ("srt/utils/common.py", 3636): "light: route returning Response(status_code=200)",
    ("srt/utils/common.py", 3641): "light: route returning Response(status_code=200)",
    ("srt/utils/common.py", 3646): "light: route returning Response(status_code=200)",
}


@pytest.fixture(scope="module")
def report(sglang_0_5_23_package: Path, tmp_path_factory: pytest.TempPathFactory):
    config = tmp_path_factory.mktemp("config") / "mmlint.toml"
    config.write_text("", encoding="utf-8")
    return check([sglang_0_5_23_package], cwd=sglang_0_5_23_package, config=config, select=["MM003", "MM004", "MM005"])


def _sites(report, code: str) -> set[tuple[str, int]]:
    return {(d.path, d.span.line) for d in report.diagnostics if d.code == code}


def test_heavy_fake_async_stays_and_light_drops(report) -> None:
    assert _sites(report, "MM003") == MM003
    assert MM003_BEFORE - len(MM003) == len(MOVED_TO_LIGHT) == 50
    assert not MM003 & MOVED_TO_LIGHT.keys()


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


def test_hollow_awaits_of_heavy_callees_stay_with_the_mm003_related(report) -> None:
    assert _sites(report, "MM004") == MM004
    mm003 = {(d.path, d.span) for d in report.diagnostics if d.code == "MM003"}
    for hollow in (d for d in report.diagnostics if d.code == "MM004"):
        assert all((r.path, r.span) in mm003 for r in hollow.related), hollow


def test_blocking_calls_of_before_stay_and_the_polling_helper_is_found(report) -> None:
    assert _sites(report, "MM005") == MM005
    assert MM005_BEFORE <= MM005 and len(MM005_BEFORE) == 6
    polling = next(d for d in report.diagnostics if d.code == "MM005" and d.path == "multimodal_gen/benchmarks/bench_serving.py")
    assert "`wait_for_service` at multimodal_gen/benchmarks/bench_serving.py:486 → `requests.get`" in polling.message
