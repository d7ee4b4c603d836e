"""Module generators for the fix fuzz campaign (benchmarks/fuzz_fix.py).

Two sources, both reproducible from a seed:

- templates: processor-shaped modules (the shapes of /work/shared/REAL_SHAPES.md)
  with the twins called in every context, then dressed with random comments,
  suppressions, indentation, form feeds, line endings and encodings;
- hypothesmith: arbitrary modules from Python's grammar with twin calls spliced
  in (as the body of an `async def`, or followed by a processor class).
"""

from __future__ import annotations

import io
import random
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

SYNC = "process_and_combine_mm_data"
ASYNC = "process_and_combine_mm_data_async"

# Python's own line breaks (the tokenizer's), nothing else.
LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Module:
    """One generated module: its bytes and where it came from (for the summary)."""

    name: str
    source: str  # "template" or "hypothesmith"
    data: bytes


# --- twin calls ---------------------------------------------------------------

_KEYWORDS = (
    "video_metadata=video_metadata",
    "do_sample_frames=False",
    "max_req_input_len=4096",
    "conversations=request_obj.messages",
    "num_frames=8",
    "prompt=input_text",
)


def _arguments(rng: random.Random) -> list[str]:
    shape = rng.randrange(5)
    if shape == 0:
        return ["base_output", "self.mm_tokens"]
    if shape == 1:
        return ["base_output=base_output", "mm_tokens=self.mm_tokens"]
    if shape == 2:
        return ["base_output", "self.mm_tokens", "**kwargs"]
    if shape == 3:
        return ["base_output", "self.mm_tokens", *rng.sample(_KEYWORDS, rng.randint(1, 3))]
    return ["base_output"]


def twin_call(
    rng: random.Random, *, receiver: str | None = None, name: str = SYNC, multiline: bool | None = None
) -> str:
    """`receiver.name(args)`, on one line or with the arguments on their own
    lines and a trailing comma (continuation lines indented by 4 spaces)."""
    if receiver is None:
        receiver = rng.choice(("self", "self", "self", "super()", "self.helper", "proc", "(self)"))
    callee = f"{receiver}.{name}" if receiver else name
    args = _arguments(rng)
    if multiline is None:
        multiline = rng.random() < 0.4
    if multiline:
        return f"{callee}(\n" + "".join(f"    {a},\n" for a in args) + ")"
    return f"{callee}({', '.join(args)})"


def _indent(block: str, prefix: str = "    ") -> str:
    return "".join(prefix + line if line.strip() else line for line in block.splitlines(keepends=True))


# --- contexts -------------------------------------------------------------------
# Each returns statements (4-space indentation, LF) for the body of an
# `async def process_mm_data_async(self, image_data, input_text, request_obj, *args, **kwargs)`.


def _async_contexts(rng: random.Random, call: Callable[..., str]) -> list[str]:
    c = call
    flat = lambda: c(multiline=False)  # noqa: E731  (contexts where a line break reads badly)
    return [
        f"mm_items, input_ids, _ = {c()}",
        f"mm_items, input_ids, _ = (\n    {_indent(c()).lstrip()}\n)",
        f"mm_items, input_ids, _ = \\\n    {flat()}",
        f"if request_obj is None:\n    return {c()}",
        f"return_value = await self.{ASYNC}(base_output, self.mm_tokens)",
        f"pending = self.{ASYNC}(base_output, self.mm_tokens)",
        f"first = {c()}[0]",
        f"items = {c()}.mm_items",
        f"again = {flat()}()",
        f"combined = combine({c()}, extra=1)",
        f"combined = combine(data={flat()})",
        f"combined = combine(*{flat()})",
        f"listed = [*{flat()}]",
        f"merged = {{**{flat()}}}",
        f'message = f"got {{{flat()}!r:>20}} items"',
        f"message = f'{{len({flat()})}} and {{input_text}}'",
        f"callback = lambda: {flat()}",
        f"callback = lambda value={flat()}: value",
        f"def helper():\n    return {c()}",
        f"def helper(value={flat()}):\n    return value",
        f"async def inner():\n    return {c()}",
        f"class Local:\n    value = {flat()}",
        f"class Local({flat()}):\n    pass",
        f"values = [{flat()} for _ in range(2)]",
        f"values = {{{flat()} for _ in range(2)}}",
        f"values = {{key: {flat()} for key in keys}}",
        f"values = [{flat()} async for _ in stream()]",
        f"values = [item for item in {flat()}]",
        f"total = sum({flat()} for _ in range(2))",
        f"values = list(item for item in {flat()})",
        f"@functools.wraps({flat()})\ndef wrapped():\n    pass",
        f"async with self._lock:\n    mm_items, input_ids, _ = {c()}",
        f"if image_data:\n    mm_items, input_ids, _ = {c()}\nelse:\n    mm_items, input_ids, _ = {c()}",
        f"try:\n    result = {c()}\nexcept ValueError:\n    result = {flat()}\nfinally:\n    pass",
        f"for frame in image_data:\n    result = {c()}",
        f"while image_data:\n    result = {flat()}\n    break",
        f"async for frame in stream():\n    result = {flat()}",
        f"match request_obj:\n    case None:\n        result = {flat()}\n    case _:\n        pass",
        f"result = {flat()} if image_data else None",
        f"result = -{flat()} + {flat()} ** 2",
        f"result = not {flat()}",
        f"if {flat()} is None:\n    pass",
        f"if (result := {flat()}) is not None:\n    pass",
        f"assert {flat()}, 'empty'",
        f"result: tuple = {c()}",
        f"total += {flat()}",
        f"result = {flat()}; other = 1",
        f"outer = self.{SYNC}(self.{SYNC}(base_output, self.mm_tokens), self.mm_tokens)",
        f"chained = self.{SYNC}(base_output)[0].{SYNC}(base_output)",
        f"with open({flat()}) as handle:\n    pass",
        f"results = await asyncio.gather(self.{ASYNC}(base_output, self.mm_tokens))",
        f"yield {flat()}",
        f"# {SYNC}(...) in a comment is prose, never a call\npass",
        f"note = '{SYNC}(base_output) inside a string'",
        f"return {c()}",
    ]


def _sync_contexts(rng: random.Random, call: Callable[..., str]) -> list[str]:
    """Statements for a plain `def` body: nothing here can await."""
    flat = lambda: call(multiline=False)  # noqa: E731
    return [
        f"return {call()}",
        f"values = [{flat()} for _ in range(2)]",
        f"mm_items, input_ids, _ = {call()}",
        f"callback = lambda: {flat()}",
    ]


def _body(rng: random.Random, contexts: list[str], count: int) -> str:
    chosen = [rng.choice(contexts) for _ in range(count)]
    if any("return " in s for s in chosen):  # `return value` in an async generator does not compile
        chosen = [s for s in chosen if not s.startswith("yield")] or ["pass"]
    # `return x` ends the body; `yield` makes an async generator: keep them last.
    chosen.sort(key=lambda s: s.startswith(("return", "yield")))
    return "\n".join(chosen) + "\n"


_PROSE = (
    f"Calls {SYNC} on the worker pool through {ASYNC}.",
    "Séparé: ünïcödé prose, 日本語, ✓ and 😀.",
    "A `# mmlint: ignore` comment is written after the call.",
    "see `# mmlint: ignore[MM001]` in the docs",
)


def template_module(rng: random.Random) -> str:
    """A processor module (LF, 4-space indentation, no comments yet)."""
    bare = rng.random() < 0.3
    parts = [
        f'"""Processor module. {rng.choice(_PROSE)}"""\n' if rng.random() < 0.6 else "",
        "import asyncio\nimport functools\n\nfrom .base_processor import BaseMultimodalProcessor\n",
    ]
    if bare:
        parts.append(f"from .combine import {SYNC}, {ASYNC}\n")
    receiver_pool = ["self", "self", "super()", "self.helper", "proc", "(self)"] + ([""] if bare else [])

    def call(**kwargs) -> str:
        kwargs.setdefault("receiver", rng.choice(receiver_pool))
        return twin_call(rng, **kwargs)

    if rng.random() < 0.3:
        parts.append(f"\nRESULT = {call(receiver='proc')}\n")
    parts.append(f"\n\nclass Processor{rng.randrange(100)}(BaseMultimodalProcessor):\n")
    parts.append(_indent(f'"""{rng.choice(_PROSE)}"""\n'))
    if rng.random() < 0.2:
        parts.append(_indent(f"cached = {call(receiver='proc', multiline=False)}\n"))
    if rng.random() < 0.3:
        parts.append(
            "\n"
            + _indent(
                f"def sync_path(self, base_output, **kwargs):\n{_indent(_body(rng, _sync_contexts(rng, call), 2))}"
            )
        )
    decorator = rng.choice(
        (
            "",
            "",
            "@functools.lru_cache\n",
            "@staticmethod_like\n",
            f"@register({call(multiline=False, receiver='proc')})\n",
        )
    )
    signature = "async def process_mm_data_async(self, image_data, input_text, request_obj, *args, **kwargs):\n"
    body = _body(rng, _async_contexts(rng, call), rng.randint(1, 6))
    parts.append("\n" + _indent(decorator + signature + _indent(body)))
    if rng.random() < 0.3:
        parts.append(
            "\n"
            + _indent(
                f"async def helper_async(self, base_output, **kwargs):\n{_indent(_body(rng, _async_contexts(rng, call), 2))}"
            )
        )
    if rng.random() < 0.2:
        parts.append(
            f"\n\nasync def module_level(proc, base_output, **kwargs):\n{_indent(_body(rng, _async_contexts(rng, lambda **k: twin_call(rng, receiver='proc', **k)), 2))}"
        )
    if rng.random() < 0.15:
        parts.append(
            f"\n\ndef sync_values(proc, base_output):\n    return [{twin_call(rng, receiver='proc', multiline=False)} for _ in range(2)]\n"
        )
    return "".join(parts)


# --- dressing: comments, suppressions, whitespace, line endings, encodings --------

_ODD = ("\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_COMMENTS = (
    "# plain",
    "# ünïcödé — ça va",
    "# 日本語のコメント 😀",
    f"# {SYNC} in prose",
    "# the `# mmlint: ignore` syntax, in prose",
    "#no space",
    "#",
    "#  trailing   ",
    "# mmlint: ignore[MM001] because prose follows",
)


def _comment(rng: random.Random, line_text: str) -> str:
    if SYNC in line_text and rng.random() < 0.3:
        directive = rng.choice(
            (
                "# mmlint: ignore[MM001]",
                "# mmlint: ignore",
                "# mmlint: ignore[MM001,MM002]",
                "# mmlint: ignore[MM001]  # kept on purpose",
            )
        )
        return directive
    if rng.random() < 0.08:
        return rng.choice(
            ("# mmlint: ignore[MM003]", "# mmlint: ignore[MM005]  # stale", "# x  # mmlint: ignore[MM004]")
        )
    text = rng.choice(_COMMENTS)
    if rng.random() < 0.2:
        odd = rng.choice(_ODD)
        cut = rng.randrange(len(text) + 1)
        text = text[:cut] + odd + text[cut:]
        if not text.startswith("#"):
            text = "#" + text
    return text


def add_comments(rng: random.Random, code: str, probability: float) -> str:
    """A comment at the end of lines (every logical and bracketed line the
    tokenizer ends with NEWLINE or NL and that has none yet), with `probability`."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return code
    commented = {t.start[0] for t in tokens if t.type == tokenize.COMMENT}
    ends = {
        t.start[0]: t.start[1]
        for t in tokens
        if t.type in (tokenize.NEWLINE, tokenize.NL) and t.start[0] not in commented and t.string
    }
    lines = code.splitlines(keepends=True)
    for number, column in ends.items():
        if number > len(lines) or rng.random() >= probability:
            continue
        line = lines[number - 1]
        gap = rng.choice(("  ", " ", "\t", "  \f"))
        lines[number - 1] = line[:column] + gap + _comment(rng, line) + line[column:]
    return "".join(lines)


def _reindent(rng: random.Random, code: str) -> str:
    """One indentation unit for the whole file (4 spaces, 2 spaces or a tab)."""
    unit = rng.choice(("    ", "    ", "  ", "\t"))
    if unit == "    ":
        return code
    out = []
    for line in code.splitlines(keepends=True):
        stripped = line.lstrip(" ")
        depth = (len(line) - len(stripped)) // 4
        out.append(unit * depth + " " * ((len(line) - len(stripped)) % 4) + stripped)
    return "".join(out)


def _form_feeds(rng: random.Random, code: str) -> str:
    lines = code.splitlines(keepends=True)
    for i in range(len(lines)):
        if rng.random() < 0.08:
            lines[i] = "\f" + lines[i]
    return "".join(lines)


def set_line_endings(rng: random.Random, code: str) -> str:
    kind = rng.choice(("\n", "\n", "\r\n", "\r", "mixed"))
    pieces = LINE_BREAK.split(code)
    if kind != "mixed":
        return kind.join(pieces)
    out = [pieces[0]]
    for piece in pieces[1:]:
        out.append(rng.choice(("\n", "\r\n", "\r")))
        out.append(piece)
    return "".join(out)


def encode(rng: random.Random, code: str) -> bytes:
    """UTF-8 (sometimes with a BOM or a cookie) or Latin-1 with its cookie."""
    kind = rng.choice(("utf-8", "utf-8", "bom", "cookie-utf8", "latin-1"))
    if kind == "latin-1":
        text = "# -*- coding: latin-1 -*-\n" + code
        return text.encode("latin-1", errors="replace")
    if kind == "cookie-utf8":
        code = "# coding: utf-8\n" + code
    data = code.encode("utf-8", errors="replace")
    return b"\xef\xbb\xbf" + data if kind == "bom" else data


def dress(rng: random.Random, code: str) -> bytes:
    code = add_comments(rng, code, rng.choice((0.0, 0.3, 1.0)))
    code = _reindent(rng, code)
    if rng.random() < 0.3:
        code = _form_feeds(rng, code)
    if rng.random() < 0.1:
        code = code.rstrip("\n")  # no newline at the end of the file
    data = encode(rng, code)
    text_has_cookie = data.startswith(b"# -*- coding: latin-1")
    decoded = data.decode("latin-1" if text_has_cookie else "utf-8-sig", errors="replace")
    ended = set_line_endings(rng, decoded)
    if text_has_cookie:
        return ended.encode("latin-1", errors="replace")
    prefix = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
    return prefix + ended.encode("utf-8", errors="replace")


def template_modules(seed: int, count: int, prefix: str) -> list[Module]:
    rng = random.Random(seed)
    return [Module(f"{prefix}_t{i:04d}.py", "template", dress(rng, template_module(rng))) for i in range(count)]


# --- hypothesmith ---------------------------------------------------------------


def hypothesmith_sources(seed: int, count: int) -> list[str]:
    """`count` modules from hypothesmith's grammar strategy, the same for the same seed."""
    import hypothesmith
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    found: list[str] = []
    attempt = 0
    while len(found) < count and attempt < 20:

        @hypothesis_seed(seed * 1000 + attempt)
        @settings(
            max_examples=count - len(found),
            database=None,
            phases=[Phase.generate],
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(hypothesmith.from_grammar(auto_target=False))
        def collect(source: str) -> None:
            found.append(source)

        collect()
        attempt += 1
    return found[:count]


def splice(rng: random.Random, generated: str) -> str:
    """Twin calls around a generated module: as the body of an `async def`
    (indented), or with a processor class after it."""
    if rng.random() < 0.5:
        lines = LINE_BREAK.split(generated)
        body = "".join("    " + line + "\n" for line in lines)
        first = f"    mm_items, input_ids, _ = {twin_call(rng, receiver='self')}\n"
        last = f"    return {twin_call(rng, receiver='self')}\n"
        return f"# {SYNC}\nasync def fuzz_body(self, base_output, **kwargs):\n{first}{body}    pass\n{last}"
    tail = template_module(rng)
    joined = generated if generated.endswith(("\n", "\r")) else generated + "\n"
    return joined + "\n" + tail


def hypothesmith_modules(seed: int, count: int, prefix: str) -> list[Module]:
    rng = random.Random(seed ^ 0x5EED)
    modules = []
    for i, generated in enumerate(hypothesmith_sources(seed, count)):
        code = splice(rng, generated)
        data = code.encode("utf-8", errors="replace")
        if rng.random() < 0.3:
            data = set_line_endings(rng, data.decode("utf-8")).encode("utf-8")
        if rng.random() < 0.1:
            data = b"\xef\xbb\xbf" + data
        modules.append(Module(f"{prefix}_h{i:04d}.py", "hypothesmith", data))
    return modules
