"""Byte-exactness of a fix, judged independently of mmlint's own verifier.

From the original bytes and the fixable MM001 sites that `check` reported, the
only allowed changes are: `await ` or `(await ` at a site's start, `_async`
after the twin's name, `)` at the site's end when a `(` was opened, and the
removal of a real suppression directive (or of some of its codes). Everything
else (encoding, BOM, line endings, comments, form feeds, tabs) must be the same
byte for byte.
"""

from __future__ import annotations

import bisect
import codecs
import itertools
import re
import tokenize
from dataclasses import dataclass

from fuzz_gen import LINE_BREAK, SYNC

_NAME = re.compile(rf"(?<!\w){SYNC}(?!\w)")
# A directive as the suppression grammar defines it: it starts the comment or
# follows blanks, and ends the comment or is followed by blanks and another `#`.
_DIRECTIVE = re.compile(r"#[ \t]*mmlint:[ \t]*ignore(?:\[([^\]\r\n]*)\])?")
_BLANKS = " \t\f\v"


@dataclass(frozen=True)
class Site:
    """A fixable MM001 diagnostic: 1-based lines, 1-based code-point columns, end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


def decode(data: bytes) -> tuple[str, str, bool]:
    """The text as Python reads it (newlines kept), its codec and whether it had a BOM."""
    # Python's lines: a cookie line may end with a lone CR (BytesIO.readline splits at LF only).
    lines = iter(data.splitlines(keepends=True))
    encoding, _ = tokenize.detect_encoding(lambda: next(lines, b""))
    bom = data.startswith(codecs.BOM_UTF8)
    body = data[len(codecs.BOM_UTF8) :] if bom else data
    codec = "utf-8" if encoding == "utf-8-sig" else encoding
    return body.decode(codec), codec, bom


def split_lines(text: str) -> list[tuple[str, str]]:
    """(content, line break) per line, with Python's line breaks only."""
    out, position = [], 0
    for match in LINE_BREAK.finditer(text):
        out.append((text[position : match.start()], match.group()))
        position = match.end()
    out.append((text[position:], ""))
    return out


def _line_starts(lines: list[tuple[str, str]]) -> list[int]:
    starts, offset = [], 0
    for content, ending in lines:
        starts.append(offset)
        offset += len(content) + len(ending)
    return starts


def _directive_variants(line: str) -> list[str]:
    """Every text the line may become when real directives in it are removed
    (with some or all blanks before them) or lose some of their codes."""
    options_per_directive = []
    for match in _DIRECTIVE.finditer(line):
        before = line[: match.start()]
        after = line[match.end() :]
        if before and before[-1] not in _BLANKS:
            continue  # prose: `# mmlint: ignore` in backticks, quotes or words
        # The directive's segment runs to the next `#` after blanks; a reason may
        # fill it after a blank (not one that looks like codes out of brackets).
        segment = re.search(r"[ \t\f]+(?=#)", after)
        tail = after[: segment.start()] if segment else after
        if tail.strip(_BLANKS) and (tail[0] not in _BLANKS or re.match(r"\[|[A-Z]+[0-9]+\b", tail.lstrip(_BLANKS))):
            continue
        end = match.end() + len(tail.rstrip(_BLANKS))
        after = line[end:]
        options = [(match.start(), match.end(), match.group())]
        blanks = len(before) - len(before.rstrip(_BLANKS))
        options += [(match.start() - k, end, "") for k in range(blanks + 1)]
        if after.strip(_BLANKS):  # a leading directive goes with the blanks after it: `# d  # why` -> `# why`
            trailing = len(after) - len(after.lstrip(" \t"))
            options.append((match.start(), end + trailing, ""))
        if match.group(1):
            codes = [c.strip() for c in match.group(1).split(",") if c.strip()]
            for size in range(1, len(codes)):
                for kept in itertools.combinations(codes, size):
                    options.append((match.start(1), match.end(1), ",".join(kept)))
        options_per_directive.append(options)
    variants = []
    for combination in itertools.islice(itertools.product(*options_per_directive), 2000):
        text, shift = line, 0
        for start, end, replacement in sorted(combination):
            text = text[: start + shift] + replacement + text[end + shift :]
            shift += len(replacement) - (end - start)
        variants.append(text)
    return variants


def byte_problems(original: bytes, fixed: bytes, sites: list[Site]) -> list[str]:
    """What in ``fixed`` is not explained by rewriting ``sites`` of ``original``
    and removing unused suppressions; [] when the fix is byte-exact."""
    if original == fixed and not sites:
        return []
    try:
        old_text, old_codec, old_bom = decode(original)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return [] if original == fixed else ["a file that does not decode was changed"]
    try:
        new_text, new_codec, new_bom = decode(fixed)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        return [f"the fixed file does not decode: {error}"]
    problems = []
    if (old_codec, old_bom) != (new_codec, new_bom):
        problems.append(f"encoding changed: {old_codec} bom={old_bom} -> {new_codec} bom={new_bom}")
    old_lines, new_lines = split_lines(old_text), split_lines(new_text)
    if len(old_lines) != len(new_lines):
        return problems + [f"line count changed: {len(old_lines)} -> {len(new_lines)}"]
    starts = _line_starts(old_lines)

    def locate(offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(starts, offset) - 1
        return line, offset - starts[line]

    # Insertions per line: (column, order, kind, site index). At one column, a
    # closing `)` comes before the `_async`, and outer sites open before inner ones.
    inserts: dict[int, list[tuple[int, int, str, int]]] = {}
    by_start: dict[tuple[int, int], list[int]] = {}
    for index, site in enumerate(sites):
        by_start.setdefault((site.line, site.column), []).append(index)
    names = [m.end() for m in _NAME.finditer(old_text)]
    for (line, column), indices in by_start.items():
        if line > len(old_lines):
            problems.append(f"site {line}:{column} is outside the file")
            continue
        start = starts[line - 1] + column - 1
        # Sites sharing a start are receivers of one another: the shortest is innermost,
        # and its twin name comes first.
        ordered = sorted(indices, key=lambda i: (sites[i].end_line, sites[i].end_column))
        following = [end for end in names if end > start]
        for rank, index in enumerate(ordered):
            site = sites[index]
            if rank >= len(following):
                problems.append(f"site {line}:{column}: no twin name after its start")
                continue
            name_line, name_column = locate(following[rank])
            end_line, end_column = site.end_line - 1, site.end_column - 1
            inserts.setdefault(line - 1, []).append((column - 1, 2 + (len(ordered) - rank), "await", index))
            inserts.setdefault(name_line, []).append((name_column, 1, "_async", index))
            inserts.setdefault(end_line, []).append((end_column, 0, ")", index))
    parenthesised: dict[int, bool] = {}
    for number, ((old, old_end), (new, new_end)) in enumerate(zip(old_lines, new_lines)):
        if old_end != new_end:
            problems.append(f"line {number + 1}: line break {old_end!r} became {new_end!r}")
        expected, cursor = [], 0
        for column, _, kind, index in sorted(inserts.get(number, [])):
            expected.append(old[cursor:column])
            cursor = column
            so_far = len("".join(expected))
            if kind == "await":
                if new.startswith("(await ", so_far):
                    parenthesised[index] = True
                    expected.append("(await ")
                elif new.startswith("await ", so_far):
                    parenthesised[index] = False
                    expected.append("await ")
                else:
                    problems.append(
                        f"line {number + 1}:{column + 1}: fixable site not rewritten (no `await` at its start)"
                    )
                    parenthesised[index] = False
            elif kind == "_async":
                expected.append("_async")
            elif parenthesised.get(index):
                expected.append(")")
        expected.append(old[cursor:])
        text = "".join(expected)
        if text != new and new not in _directive_variants(text):
            problems.append(
                f"line {number + 1} differs outside the edit spans:\n  expected {text!r}\n  got      {new!r}"
            )
    return problems
