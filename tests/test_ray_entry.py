"""Ray Serve deployments as entry points (issue 40): recognised from the
decorator resolved through the file's imports, never from a bare name; the
sync methods a request runs on the replica's loop; the prefilter and the
reach keep a file whose only root is such a method."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mmlint.api import check
from mmlint.check.prefilter import Prefilter
from mmlint.config.settings import DEFAULT_TWINS
from mmlint.facts.light import light_facts
from mmlint.facts.model import FileFacts
from mmlint.facts.ray_entry import replica_loop_methods

BODY = """
class Model:
    def __call__(self, request):
        return request
"""


def _facts(source: str, tmp_path: Path) -> FileFacts:
    text = textwrap.dedent(source)
    path = tmp_path / "app.py"
    path.write_text(text, encoding="utf-8")
    facts = light_facts(text.encode(), path, "app.py")
    assert facts is not None
    return facts


def _roots(source: str, tmp_path: Path) -> list[str]:
    facts = _facts(source, tmp_path)
    return [facts.sync_defs[index].qualname for index in replica_loop_methods(facts)]


@pytest.mark.parametrize(
    ("imports", "decorator"),
    [
        ("from ray import serve", "@serve.deployment"),
        ("from ray import serve", "@serve.deployment(num_replicas=2, ray_actor_options={'num_gpus': 1})"),
        ("import ray.serve as serve", "@serve.deployment"),
        ("import ray.serve as rs", "@rs.deployment()"),
        ("from ray.serve import deployment", "@deployment"),
        ("from ray.serve import deployment as replicated", "@replicated(max_ongoing_requests=8)"),
        ("import ray", "@ray.serve.deployment"),
        ("import ray.serve", "@ray.serve.deployment"),
    ],
)
def test_a_deployment_is_recognised_through_each_import_form(imports: str, decorator: str, tmp_path: Path) -> None:
    assert _roots(f"{imports}\n\n{decorator}{BODY}", tmp_path) == ["Model.__call__"]


@pytest.mark.parametrize(
    ("imports", "decorator"),
    [
        ("", "@deployment"),  # a bare name, imported from nowhere
        ("from launcher import deployment", "@deployment"),
        ("from .serving import deployment", "@deployment"),  # a relative import is the package's own
        ("import kserve as serve", "@serve.deployment"),
        ("from ray import serve", "@serve.ingress(app)"),
        ("import ray", "@ray.remote"),  # an actor: its sync methods run in its own thread
        ("from ray import serve", "@serve.deployment.options"),
    ],
)
def test_no_other_decorator_makes_a_deployment(imports: str, decorator: str, tmp_path: Path) -> None:
    assert _roots(f"{imports}\n\n{decorator}{BODY}", tmp_path) == []


def test_only_the_methods_a_request_runs_on_the_loop_are_roots(tmp_path: Path) -> None:
    roots = _roots(
        """
        from fastapi import FastAPI
        from ray import serve

        app = FastAPI()

        @serve.deployment
        @serve.ingress(app)
        class Model:
            def __init__(self): ...
            def __call__(self, request): return request
            def generate(self, prompt): return prompt
            def _helper(self): return 1
            def reconfigure(self, config): return config
            @property
            def name(self): return "m"
            @app.get("/health")
            def health(self): return "ok"
            @staticmethod
            def version(): return 1
            def stub(self): ...

            class Inner:
                def run(self): return 1

            def outer(self):
                def nested(): return 1
                return nested()
        """,
        tmp_path,
    )
    assert roots == ["Model.__call__", "Model.generate", "Model.version", "Model.outer"]


def test_a_function_deployment_is_a_root_and_a_function_from_elsewhere_is_not(tmp_path: Path) -> None:
    roots = _roots(
        """
        from launcher import deployment
        from ray import serve

        @serve.deployment(num_replicas=2)
        def thumbnail(request): return request

        @deployment
        def archive(request): return request

        def plain(request): return request
        """,
        tmp_path,
    )
    assert roots == ["thumbnail"]


@pytest.mark.parametrize(
    ("imports", "call", "deployed"),
    [
        ("from ray import serve", "Model = serve.deployment(Model)", True),
        ("from ray import serve", "app = serve.deployment(num_replicas=2)(Model).bind()", True),
        ("from ray import serve", "serve.run(serve.deployment(Model).bind())", True),
        ("from ray.serve import deployment", "Replicated = deployment(Model, name='m')", True),
        ("import ray", "app = ray.serve.deployment(Model).bind()", True),
        ("from launcher import deployment", "Job = deployment(Model)", False),  # another library's
        ("from ray import serve", "serve.deployment(Other)", False),  # another class
        ("from ray import serve", "def build():\n    return serve.deployment(Model)", False),  # not module level
    ],
)
def test_a_deployment_is_also_made_by_a_call(imports: str, call: str, deployed: bool, tmp_path: Path) -> None:
    source = f"{imports}\n\nclass Model:\n    def __call__(self, request):\n        return request\n\n\nclass Other: ...\n\n{call}\n"
    assert _roots(source, tmp_path) == (["Model.__call__"] if deployed else [])


def test_methods_inherited_from_a_base_in_the_module_are_roots_unless_redefined(tmp_path: Path) -> None:
    roots = _roots(
        """
        from ray import serve
        from models import Remote

        class Base:
            def fetch(self, url): return url
            def warm(self): return 1
            def _helper(self): return 2

        class Middle(Base):
            def warm(self): return 3

        class Other(Base):  # no deployment derives from it
            def extra(self): return 4

        @serve.deployment
        class Model(Middle, Remote):
            def __call__(self, request): return request
        """,
        tmp_path,
    )
    assert roots == ["Base.fetch", "Middle.warm", "Model.__call__"]


def test_a_handle_method_calling_another_that_blocks_is_reported_once(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        textwrap.dedent(
            """
            import time
            from ray import serve

            @serve.deployment
            class Model:
                def score(self, text):
                    time.sleep(1)
                    return text

                def __call__(self, request):
                    return self.score(request.text)
            """
        ),
        encoding="utf-8",
    )
    (found,) = check(cwd=tmp_path).diagnostics
    assert (found.span.line, found.code) == (8, "MM005")


def test_a_function_deployed_by_a_call_is_a_root(tmp_path: Path) -> None:
    roots = _roots(
        """
        from ray import serve

        def thumbnail(request): return request

        def plain(request): return request

        app = serve.deployment(thumbnail).bind()
        """,
        tmp_path,
    )
    assert roots == ["thumbnail"]


def test_an_async_reconfigure_of_a_deployment_is_a_lifecycle_hook(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        textwrap.dedent(
            """
            import requests
            from ray import serve

            @serve.deployment
            class Ranker:
                async def reconfigure(self, config):
                    self.weights = requests.get(config["url"], timeout=10).content

                async def rank(self, request):
                    return requests.get(request.url, timeout=10).json()
            """
        ),
        encoding="utf-8",
    )
    (found,) = check(cwd=tmp_path).diagnostics
    assert (found.span.line, found.code, found.context) == (11, "MM005", "Ray Serve deployment method")


def test_a_deployments_method_has_its_calls_placed_and_no_other_def_does(tmp_path: Path) -> None:
    facts = _facts(
        """
        import requests
        from ray import serve

        @serve.deployment
        class Model:
            def __call__(self, request):
                return requests.get(request.url)

        class Plain:
            def __call__(self, request):
                return requests.get(request.url)
        """,
        tmp_path,
    )
    spans = {info.qualname: [call.span for call in info.calls] for info in facts.sync_defs}
    assert spans["Plain.__call__"] == [None]
    (span,) = spans["Model.__call__"]
    assert span is not None and (span.line, span.column) == (8, 16)


@pytest.mark.parametrize(
    ("source", "passes"),
    [
        (b"from ray import serve\n\n@serve.deployment\nclass M:\n    def __call__(self): ...\n", True),
        (b"import ray.serve\n\n@ray.serve.deployment\nclass M: ...\n", True),
        (b"from ray.serve import deployment\n", True),
        (b"from ray import (\n    get,\n    serve,\n)\n\n@serve.deployment\nclass M: ...\n", True),
        (b"from ray import \\\n    serve\n\nM = serve.deployment(M)\n", True),  # a continued line
        (b"from ray import get, \\\r\n    serve\r\n# a deployment\r\n", True),
        (b"from ray import get\\\n\nserve = 1  # deployment\n", False),  # the continuation ends at the blank line
        (b"from array import array  # deployment\n", False),
        (b"from ray import get\nserve = 1  # a deployment\n", False),  # `serve` not imported from ray
        (b"import ray  # see the deployment notes\n", False),  # no Ray Serve import
        (b"import ray\n\n@ray.remote\nclass Worker: ...\n", False),  # no deployment: nothing runs on a loop
        (b"x = 'ray'\n", False),
    ],
)
def test_the_prefilter_reads_a_file_that_may_define_a_deployment(source: bytes, passes: bool) -> None:
    assert Prefilter(DEFAULT_TWINS).could_hold_finding(source) is passes


def test_a_file_with_only_a_sync_deployment_is_checked_and_its_chain_followed(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text(
        "import requests\n\n\ndef fetch(url):\n    return requests.get(url, timeout=5)\n", encoding="utf-8"
    )
    (tmp_path / "app.py").write_text(
        textwrap.dedent(
            """
            from ray import serve

            from helpers import fetch

            @serve.deployment
            class Model:
                def __call__(self, request):
                    return fetch(request.url)
            """
        ),
        encoding="utf-8",
    )
    (found,) = check(cwd=tmp_path).diagnostics
    assert (found.path, found.span.line, found.code) == ("app.py", 9, "MM005")
    assert found.context == "Ray Serve deployment method"
    assert found.chain == ("`fetch` at helpers.py:4", "`requests.get`")
    assert "RAY_SERVE_RUN_SYNC_IN_THREADPOOL=1" in found.help and "`def Model.__call__`" in found.help
