"""The pre-commit hooks, run by the real pre-commit against this project.

pre-commit clones the hook repository at a commit and pip-installs it into a
fresh virtualenv, so the test gives it a git repository holding exactly this
working tree's package files (committed in a snapshot): the test then covers
the code under test, whether or not it is committed yet, and works the same
from a clean clone. The installation needs the package registry; the test
skips only when that is unreachable."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent
# What `pip install .` of the project needs, plus the hook manifest.
PROJECT_FILES = ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml")
PROJECT_PACKAGE = "mmlint"

PROCESSOR = """\
from mmproc.base import BaseProcessor


class ClipProcessor(BaseProcessor):
    async def process_mm_data_async(self, image_data, input_text, request_obj, **kwargs):
        base_output = self.load_mm_data(input_text, image_data=image_data)
        items, input_ids, _ = self.process_and_combine_mm_data(
            base_output,
            self.mm_tokens,
        )
        return {"mm_items": items, "input_ids": input_ids.tolist()}
"""
FIXED_PROCESSOR = PROCESSOR.replace(
    "= self.process_and_combine_mm_data(", "= await self.process_and_combine_mm_data_async("
)
# Same shape, in a directory the configuration excludes: pre-commit names it
# explicitly (--all-files), and mmlint must still leave it alone.
LEGACY_PROCESSOR = PROCESSOR.replace("ClipProcessor", "OldClipProcessor")
CONFIG = """\
[tool.mmlint]
paths = ["mmproc"]
exclude = ["**/legacy/**"]
"""

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "mmlint tests",
    "GIT_AUTHOR_EMAIL": "tests@mmlint.invalid",
    "GIT_COMMITTER_NAME": "mmlint tests",
    "GIT_COMMITTER_EMAIL": "tests@mmlint.invalid",
    # Fixed dates: the same tree gives the same commit.
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
}

# pip's words for "could not reach the index", as pre-commit relays them.
REGISTRY_FAILURE = re.compile(
    r"Failed to establish a new connection|Temporary failure in name resolution|Network is unreachable"
    r"|No matching distribution found|Could not find a version that satisfies|ProxyError|ConnectTimeout"
    r"|Max retries exceeded"
)


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, **GIT_IDENTITY}
    subprocess.run(["git", "-c", "commit.gpgsign=false", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    _git(path, "init", "-q")
    return path


def _commit_all(path: Path) -> None:
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "snapshot")


def _snapshot_project(dest: Path) -> Path:
    """A git repository holding this project's package files as they are now."""
    _make_repo(dest)
    for name in PROJECT_FILES:
        shutil.copy2(PROJECT / name, dest / name)
    shutil.copytree(
        PROJECT / PROJECT_PACKAGE, dest / PROJECT_PACKAGE, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    _commit_all(dest)
    return dest


def _registry_reachable(tmp_path: Path) -> bool:
    probe = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(tmp_path / "probe"), "click"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return probe.returncode == 0


@pytest.fixture(scope="module")
def pre_commit_home(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pre-commit's home, kept apart from the user's own (~/.cache/pre-commit) in the
    pytest cache, or a temporary directory when the cache plugin is disabled.
    try-repo installs the hook environment in a store of its own each run, so
    this holds pre-commit's log, which the failure message quotes."""
    cache = getattr(request.config, "cache", None)
    if cache is None:
        return tmp_path_factory.mktemp("pre-commit-home")
    return Path(cache.mkdir("pre-commit-home"))


@pytest.fixture()
def workspace(tmp_path: Path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install pre-commit)")
    hooks_repo = _snapshot_project(tmp_path / "mmlint-snapshot")
    user_repo = _make_repo(tmp_path / "user-repo")
    (user_repo / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    (user_repo / "mmproc" / "processors" / "legacy").mkdir(parents=True)
    (user_repo / "mmproc" / "__init__.py").write_text("", encoding="utf-8")
    (user_repo / "mmproc" / "processors" / "__init__.py").write_text("", encoding="utf-8")
    (user_repo / "mmproc" / "processors" / "clip.py").write_text(PROCESSOR, encoding="utf-8")
    (user_repo / "mmproc" / "processors" / "legacy" / "old_clip.py").write_text(LEGACY_PROCESSOR, encoding="utf-8")
    _commit_all(user_repo)
    return hooks_repo, user_repo


def _try_repo(
    hooks_repo: Path, user_repo: Path, hook: str, home: Path, tmp_path: Path, *, all_files: bool = True
) -> subprocess.CompletedProcess:
    """``all_files=False``: the hook sees the staged files only, as on `git commit`."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PRE_COMMIT", "GIT_"))}
    env.update(PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never", **GIT_IDENTITY)
    scope = ["--all-files"] if all_files else []
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(hooks_repo),
            hook,
            *scope,
            "--verbose",
            "--color",
            "never",
        ],
        cwd=user_repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = result.stdout + result.stderr
    log = home / "pre-commit.log"
    if result.returncode not in (0, 1) or "An unexpected error has occurred" in output:
        details = output + (log.read_text(encoding="utf-8", errors="replace") if log.exists() else "")
        if REGISTRY_FAILURE.search(details) and not _registry_reachable(tmp_path):
            pytest.skip("the package registry is unreachable, so pre-commit cannot install the hook environment")
        pytest.fail(f"pre-commit itself failed (exit {result.returncode}):\n{details}")
    return result


@pytest.mark.slow
def test_hooks_check_fix_and_pass(workspace, pre_commit_home: Path, tmp_path: Path) -> None:
    hooks_repo, user_repo = workspace
    clip = user_repo / "mmproc" / "processors" / "clip.py"
    legacy = user_repo / "mmproc" / "processors" / "legacy" / "old_clip.py"
    call_line = PROCESSOR.splitlines().index("        items, input_ids, _ = self.process_and_combine_mm_data(") + 1

    first = _try_repo(hooks_repo, user_repo, "mmlint", pre_commit_home, tmp_path)
    output = first.stdout + first.stderr
    assert first.returncode == 1, output
    assert re.search(rf"mmproc/processors/clip\.py:{call_line}:\d+:.*MM001", output), output
    assert "old_clip.py" not in output  # excluded, though pre-commit named it

    fixing = _try_repo(hooks_repo, user_repo, "mmlint-fix", pre_commit_home, tmp_path)
    output = fixing.stdout + fixing.stderr
    assert fixing.returncode == 1, output
    assert "files were modified by this hook" in output, output
    assert clip.read_text(encoding="utf-8") == FIXED_PROCESSOR
    assert legacy.read_text(encoding="utf-8") == LEGACY_PROCESSOR

    second = _try_repo(hooks_repo, user_repo, "mmlint", pre_commit_home, tmp_path)
    output = second.stdout + second.stderr
    assert second.returncode == 0, output
    assert re.search(r"^mmlint\.+Passed$", output, re.MULTILINE), output


@pytest.mark.slow
def test_a_one_file_commit_in_sglangs_layout_is_checked_with_its_configuration(
    pre_commit_home: Path, tmp_path: Path
) -> None:
    """sglang keeps [tool.mmlint] in python/pyproject.toml; pre-commit runs from
    the repository root and names the one staged file. The hollow await needs
    the configured context (the helper in another module) to be seen."""
    from test_config_per_file import PROCESSOR as HOLLOW_AWAIT
    from test_config_per_file import sglang_layout

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install pre-commit)")
    hooks_repo = _snapshot_project(tmp_path / "mmlint-snapshot")
    user_repo = _make_repo(tmp_path / "sglang")
    sglang_layout(user_repo)
    processor = user_repo / "python" / "pkg" / "processors" / "video.py"
    processor.write_text("class VideoProcessor:\n    pass\n", encoding="utf-8")
    _commit_all(user_repo)
    processor.write_text(HOLLOW_AWAIT, encoding="utf-8")
    _git(user_repo, "add", str(processor.relative_to(user_repo)))

    result = _try_repo(hooks_repo, user_repo, "mmlint", pre_commit_home, tmp_path, all_files=False)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert re.search(r"python/pkg/processors/video\.py:\d+:\d+: MM004", output), output
    assert not re.search(r"^python/pkg/helpers\.py:\d+", output, re.MULTILINE), output  # context only


UNFIXABLE_ONLY = """\
class ErnieProcessor:
    def preprocess(self, base_output):
        return self.process_and_combine_mm_data(base_output, self.mm_tokens)
"""


@pytest.mark.slow
def test_the_fix_hook_fails_only_for_a_fix_in_the_readmes_layout(pre_commit_home: Path, tmp_path: Path) -> None:
    """In sglang's layout, configured by the README's own block: a commit whose
    only site cannot be fixed passes the fix hook and fails the check hook; a
    commit with a fixable site is fixed by the fix hook (which then fails, as
    pre-commit fails any hook that modifies files)."""
    from sglang_layout import MULTIMODAL, make_sglang_layout

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install pre-commit)")
    hooks_repo = _snapshot_project(tmp_path / "mmlint-snapshot")
    user_repo = make_sglang_layout(_make_repo(tmp_path / "sglang"))
    _commit_all(user_repo)
    ernie = user_repo / MULTIMODAL / "processors" / "ernie.py"
    ernie.write_text(UNFIXABLE_ONLY, encoding="utf-8")
    _git(user_repo, "add", str(ernie.relative_to(user_repo)))

    fixing = _try_repo(hooks_repo, user_repo, "mmlint-fix", pre_commit_home, tmp_path, all_files=False)
    assert fixing.returncode == 0, fixing.stdout + fixing.stderr
    assert ernie.read_text(encoding="utf-8") == UNFIXABLE_ONLY
    checking = _try_repo(hooks_repo, user_repo, "mmlint", pre_commit_home, tmp_path, all_files=False)
    output = checking.stdout + checking.stderr
    assert checking.returncode == 1 and re.search(r"processors/ernie\.py:3:\d+: MM001", output), output

    _commit_all(user_repo)
    clip = user_repo / MULTIMODAL / "processors" / "clip_new.py"
    clip.write_text(PROCESSOR, encoding="utf-8")
    _git(user_repo, "add", str(clip.relative_to(user_repo)))
    fixing = _try_repo(hooks_repo, user_repo, "mmlint-fix", pre_commit_home, tmp_path, all_files=False)
    output = fixing.stdout + fixing.stderr
    assert fixing.returncode == 1 and "files were modified by this hook" in output, output
    assert clip.read_text(encoding="utf-8") == FIXED_PROCESSOR


# Committed at the repository's root, so pre-commit names them as they are.
OPTION_LIKE_NAMES = ("--config=cfg.py", "--exit-zero.py", "-q.py", "--select=MM999.py")


@pytest.mark.slow
def test_files_named_like_options_are_checked_and_fixed(pre_commit_home: Path, tmp_path: Path) -> None:
    """pre-commit appends file names to `entry`; the hooks end their options
    with `--`, so `--config=cfg.py` (with an empty `cfg.py`, a valid
    configuration were it read as one) is a file with MM001, not the run's
    configuration, and so are the others."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install pre-commit)")
    hooks_repo = _snapshot_project(tmp_path / "mmlint-snapshot")
    user_repo = _make_repo(tmp_path / "user-repo")
    (user_repo / "cfg.py").write_text("", encoding="utf-8")
    (user_repo / "--config=cfg.py").write_text(PROCESSOR, encoding="utf-8")
    _commit_all(user_repo)

    first = _try_repo(hooks_repo, user_repo, "mmlint", pre_commit_home, tmp_path)
    output = first.stdout + first.stderr
    assert first.returncode == 1 and re.search(r"^--config=cfg\.py:\d+:\d+: MM001", output, re.MULTILINE), output

    for name in OPTION_LIKE_NAMES[1:]:
        (user_repo / name).write_text(PROCESSOR, encoding="utf-8")
    _commit_all(user_repo)
    checking = _try_repo(hooks_repo, user_repo, "mmlint", pre_commit_home, tmp_path)
    output = checking.stdout + checking.stderr
    assert checking.returncode == 1, output
    for name in OPTION_LIKE_NAMES:
        assert re.search(rf"^{re.escape(name)}:\d+:\d+: MM001", output, re.MULTILINE), (name, output)
    fixing = _try_repo(hooks_repo, user_repo, "mmlint-fix", pre_commit_home, tmp_path)
    output = fixing.stdout + fixing.stderr
    assert fixing.returncode == 1 and "files were modified by this hook" in output, output
    for name in OPTION_LIKE_NAMES:
        assert (user_repo / name).read_text(encoding="utf-8") == FIXED_PROCESSOR, name
    assert (user_repo / "cfg.py").read_text(encoding="utf-8") == ""


ENTRYPOINT = "python/sglang/srt/entrypoints/http_server.py"
BLOCKING_ENTRYPOINT = "import time\n\n\nasync def generate(request):\n    time.sleep(1)\n    return request\n"
HEADING = re.compile(r"^(\S+\.py):(\d+):\d+: (MM\d+) ", re.MULTILINE)


def _readme_sglang_hooks() -> str:
    """The README's `.pre-commit-config.yaml` for sglang's layout (its second
    yaml block under "Use it with pre-commit")."""
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Use it with pre-commit") :]
    blocks = re.findall(r"```yaml\n(.*?)```", section[: section.index("\n## ")], re.S)
    assert len(blocks) == 2 and "--config python/pyproject.toml" in blocks[1]
    return blocks[1]


def _sglang_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A committed repository in sglang's layout, configured by the README's
    blocks (mmlint's and pre-commit's, its `repo` and `rev` naming a snapshot
    of this tree), with blocking code outside the configured `paths`."""
    from sglang_layout import make_sglang_layout

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install pre-commit)")
    hooks_repo = _snapshot_project(tmp_path / "mmlint-snapshot")
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hooks_repo, capture_output=True, text=True, check=True)
    user_repo = make_sglang_layout(_make_repo(tmp_path / "sglang"))
    hooks = _readme_sglang_hooks()
    hooks = re.sub(r"repo: \S+", f"repo: {hooks_repo.as_uri()}", hooks)
    hooks = re.sub(r"rev: \S+", f"rev: {sha.stdout.strip()}", hooks)
    (user_repo / ".pre-commit-config.yaml").write_text(hooks, encoding="utf-8")
    (user_repo / ENTRYPOINT).parent.mkdir(parents=True)
    (user_repo / ENTRYPOINT).write_text("async def generate(request):\n    return request\n", encoding="utf-8")
    _commit_all(user_repo)
    return hooks_repo, user_repo


def _run_hooks(user_repo: Path, home: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """`pre-commit run ARGS` in ``user_repo``, as on `git commit` without --all-files."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PRE_COMMIT", "GIT_"))}
    env.update(PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never", **GIT_IDENTITY)
    result = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", *args, "--verbose", "--color", "never"],
        cwd=user_repo, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    output = result.stdout + result.stderr
    if result.returncode not in (0, 1) or "An unexpected error has occurred" in output:
        log = home / "pre-commit.log"
        details = output + (log.read_text(encoding="utf-8", errors="replace") if log.exists() else "")
        if REGISTRY_FAILURE.search(details) and not _registry_reachable(tmp_path):
            pytest.skip("the package registry is unreachable, so pre-commit cannot install the hook environment")
        pytest.fail(f"pre-commit itself failed (exit {result.returncode}):\n{details}")
    return result


@pytest.mark.slow
def test_a_commit_touching_code_outside_the_configured_paths_passes(tmp_path: Path) -> None:
    """The hooks pass --force-paths: a staged file outside `paths` is context,
    not a target, though `mmlint check FILE` by hand reports it."""
    home = tmp_path / "pre-commit-home"
    _, user_repo = _sglang_repo(tmp_path)
    (user_repo / ENTRYPOINT).write_text(BLOCKING_ENTRYPOINT, encoding="utf-8")
    _git(user_repo, "add", ENTRYPOINT)
    result = _run_hooks(user_repo, home, tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 0 and "MM005" not in output, output
    assert re.search(r"^mmlint\.+Passed$", output, re.MULTILINE), output
    assert (user_repo / ENTRYPOINT).read_text(encoding="utf-8") == BLOCKING_ENTRYPOINT
    by_hand = subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "--no-cache", ENTRYPOINT], cwd=user_repo,
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(PROJECT)},
    )  # fmt: skip
    assert by_hand.returncode == 1 and "MM005" in by_hand.stdout, by_hand.stdout + by_hand.stderr

    # A file inside `paths` staged beside it is still checked.
    ernie = user_repo / "python/sglang/srt/multimodal/processors/ernie.py"
    ernie.write_text(UNFIXABLE_ONLY, encoding="utf-8")
    _git(user_repo, "add", str(ernie.relative_to(user_repo)))
    result = _run_hooks(user_repo, home, tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 1 and re.search(r"processors/ernie\.py:3:\d+: MM001", output), output
    assert "http_server.py:" not in output, output


@pytest.mark.slow
def test_all_files_reports_what_ci_reports(tmp_path: Path) -> None:
    """`pre-commit run --all-files` names every tracked file; the check hook
    reports the findings of CI's run (the README's workflow command), no more."""
    _, user_repo = _sglang_repo(tmp_path)
    (user_repo / ENTRYPOINT).write_text(BLOCKING_ENTRYPOINT, encoding="utf-8")
    _commit_all(user_repo)
    hooked = _run_hooks(user_repo, tmp_path / "pre-commit-home", tmp_path, "mmlint", "--all-files")
    output = hooked.stdout + hooked.stderr
    assert hooked.returncode == 1, output
    ci = subprocess.run(
        [sys.executable, "-m", "mmlint", "check", "--no-cache", "--config", "python/pyproject.toml"], cwd=user_repo,
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(PROJECT), "NO_COLOR": "1"},
    )  # fmt: skip
    assert ci.returncode == 1, ci.stderr
    found = sorted(HEADING.findall(output))
    assert found and found == sorted(HEADING.findall(ci.stdout)), output
    assert all(path.startswith("python/sglang/srt/multimodal/") for path, _, _ in found)
