"""How large the input of a call whose cost grows with it can be, read with
the standard library's ``ast``: the one reading of these shapes. The light
tier's walk (mmlint.facts.light) judges each call of its sync defs here, and
hands the collector of the async defs (mmlint.facts.collect) the judgement of
each call of an async def by its span.

A known call whose cost grows with its input (a digest, base64, a tokenizer:
mmlint.core.knowledge's ``sized_by_input`` sets) is light when its input is
small. Two readings say so:

- ``has_bounded_input``: every positional argument is of a size the source
  fixes: a literal, a constant, a slice with constant bounds
  (CallFact.bounded_input);
- ``InputBounds.reason``: every positional argument is built only from
  literals and values that are short whatever the request is, and why
  (CallFact.input_bound):

  - a name or attribute that is short by its meaning (``SHORT_NAMES``,
    ``SHORT_SUFFIXES``: identifiers, names, file paths, host names, an
    array's shape and dtype);
  - a value of a fixed size whatever its input: ``len(x)`` (a number),
    ``h.hexdigest()`` / ``h.digest()`` (another digest);
  - a value tested to be an http(s) URL in the same def: inside
    ``if x.startswith(("http://", "https://")):`` (one operand of an ``and``
    is enough; ``x.lower().startswith(...)`` too), or after
    ``if not x.startswith(...): return`` (or ``raise``, ``continue``,
    ``break``), or ``assert x.startswith(...)``, with no assignment to ``x``
    in between;
  - a value tested, the same ways, to be at most ``N`` long: inside
    ``if len(x) <= N:``, after ``if len(x) > N: raise`` (or
    ``not 1 <= len(x) <= N``), ``N`` an int literal of at most 65536
    (``_SHORT_BOUND``);
  - the value of a call of a validator of the module (``LengthValidators``):
    a function that raises unless its first argument passes such a test,
    then returns it (``validate_salt(salt)``);
  - a local name every assignment of which, in the def's own body, is such a
    value, and no other binding (not a parameter, a loop target, an
    augmented assignment...); one holding a list, set or dict display only
    when nothing in the def can grow it (``_never_grown``: no item
    assignment, ``append`` / ``update``, alias, closure, or call of another
    function given it);
  - a tuple, list, set or dict display of such keys and values (no ``*`` /
    ``**`` spread: a request's mapping is of any size), an f-string, a
    ``+`` or ``%`` of such values, ``a or b`` of two, a ``str(...)`` /
    ``repr`` / ``tuple`` / ``list`` / ``sorted`` of one, its ``json.dumps``
    / ``pickle.dumps`` (any ``dumps``: its keywords only format it),
    ``.encode()`` / ``.decode()`` / ``.lower()`` / ``.format(...)`` /
    ``.join([...])`` of them, a conditional expression of two.

Anything else is of unknown size: the call stays as costly as its set says.
Only the sized calls are judged, by their last name (``SIZED_NAMES``); the
short names, lengths and digests, the URL and length tests and the validators
only for the sets whose cost is their input's
size alone (``light_when_short``: digests, base64, compression,
``LIGHT_WHEN_SHORT_NAMES``). A tokenizer's call has a fixed cost of its own
and is made per token, in loops over the output: a short input is no
evidence of a light def there, only one the source fixes (an f-string of
literals and constants, a local assigned only such) is.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from typing import Final

from mmlint.core.knowledge import LIGHT_BY_EVIDENCE, LIGHT_WHEN_SHORT, SIZED_BY_INPUT
from mmlint.facts.once_ast import dotted_name
from mmlint.facts.shape_words import is_bounded_slice, is_constant_name

# Values short by their meaning, whatever the request: what each holds, and
# why it stays small.
# - identifiers (``id``, ``rid``, ``uid``, ``uuid``, ``*_id``): a request,
#   session or trace id, a UUID or a counter, tens of bytes (``*_ids``, a
#   list of token ids, is not one);
# - names (``name``, ``*_name``): a model, file, tool or user name, what a
#   person types or a configuration holds;
# - file paths (``path``, ``filename``, ``*_path``, ``*_filename``): at most
#   PATH_MAX (4096 bytes on Linux); the file's contents are another value;
# - host names (``host``, ``hostname``): at most 253 characters (RFC 1035);
# - tokens (``token``, ``*_token``: an access or refresh token, a session
#   token, one vocabulary token) and API keys (``api_key``, ``*_api_key``):
#   tens to a few thousand bytes, what an HTTP header carries (``*_tokens``,
#   a list of token ids, is not one);
# - an array's shape and dtype (``shape``, ``dtype``, ``*_shape``,
#   ``*_dtype``): a few integers, one per dimension, and a type's name (the
#   array's contents are another value).
# Not short by their name alone: ``url`` / ``uri`` (a ``data:`` URL carries a
# whole base64 image or audio clip, as OpenAI-style ``image_url`` fields
# do: short only when tested to be http(s)); ``key`` (a cache key is often
# the request's options serialised to be hashed); ``text``, ``prompt``,
# ``data``, ``body``, ``content``, ``image``, ``payload``.
_IDENTIFIER, _NAME, _PATH, _HOST = "an identifier", "a name", "a file path", "a host name"
_TOKEN, _API_KEY = "a token", "an API key"
_SHAPE, _DTYPE = "an array's shape", "an array's dtype"
SHORT_NAMES: Final = {
    "id": _IDENTIFIER,
    "rid": _IDENTIFIER,
    "uid": _IDENTIFIER,
    "uuid": _IDENTIFIER,
    "name": _NAME,
    "path": _PATH,
    "filename": _PATH,
    "host": _HOST,
    "hostname": _HOST,
    "token": _TOKEN,
    "api_key": _API_KEY,
    "shape": _SHAPE,
    "dtype": _DTYPE,
}
SHORT_SUFFIXES: Final = {
    "_id": _IDENTIFIER,
    "_name": _NAME,
    "_path": _PATH,
    "_filename": _PATH,
    "_token": _TOKEN,
    "_api_key": _API_KEY,
    "_shape": _SHAPE,
    "_dtype": _DTYPE,
}

# The last names of the calls whose cost grows with their input (a typed
# receiver called itself, ``__call__``, has no name of its own to go by),
# and of those whose cost is only their input's size (mmlint.core.knowledge's
# ``light_when_short`` sets: digests, base64, compression): ``sha256`` of
# ``hashlib.sha256``.
SIZED_NAMES: Final = frozenset(pattern.rsplit("::", 1)[-1].rsplit(".", 1)[-1] for pattern in SIZED_BY_INPUT) - {
    "__call__"
}
LIGHT_WHEN_SHORT_NAMES: Final = frozenset(pattern.rsplit(".", 1)[-1] for pattern in LIGHT_WHEN_SHORT)
# The last names of the calls light only by evidence (mmlint.core.knowledge's
# ``light_by_evidence`` sets: ``sqlite3`` statements, an upload's read):
# judged by cost_evidence alone, never by their arguments' size.
EVIDENCE_NAMES: Final = frozenset(pattern.rsplit(".", 1)[-1] for pattern in LIGHT_BY_EVIDENCE) - SIZED_NAMES

# A keyed read: `SELECT <columns> FROM <table> WHERE <col> = <value> [AND ...]
# [LIMIT 1]`, the columns with no call in them (no aggregate, no subquery), one
# table (no join), equalities only (no range, no LIKE, no OR), no ORDER BY or
# GROUP BY. Fetched by `fetchone()`, it reads the row its key names: an index
# look-up where the key is the table's (a store's primary key); on a column
# with no index SQLite scans the table, which the text does not show.
_KEYED_READ: Final = re.compile(
    r"\s*SELECT\s+(?P<columns>[^();]+?)\s+FROM\s+[\w\".]+(?:\s+(?:AS\s+)?\w+)?"
    r"\s+WHERE\s+(?P<where>.+?)(?:\s+LIMIT\s+1)?\s*;?\s*",
    re.IGNORECASE | re.DOTALL,
)
_AND: Final = re.compile(r"\s+AND\s+", re.IGNORECASE)
_EQUALITY: Final = re.compile(r"[\w\".]+\s*=\s*(?:\?\d*|[:@$]\w+|'[^']*'|-?\d+)")
_SQL_KEYWORDS: Final = frozenset({"distinct", "join", "where", "group", "order", "limit", "union", "select"})
# `PRAGMA name = value`: a connection's setting, no query (not `PRAGMA
# integrity_check` or `wal_checkpoint(...)`, which read or write the file).
_PRAGMA_SETTING: Final = re.compile(r"\s*PRAGMA\s+[\w.]+\s*=\s*[\w'\"-]+\s*;?\s*", re.IGNORECASE)

# Methods whose value is about as long as their receiver and arguments.
_KEEPING_METHODS: Final = frozenset(
    {
        "encode",
        "decode",
        "lower",
        "upper",
        "casefold",
        "strip",
        "lstrip",
        "rstrip",
        "removeprefix",
        "removesuffix",
        "format",
    }
)
# An http(s) URL: its length is bounded by what servers and clients accept
# (a few kilobytes), and it is no ``data:`` URL.
_URL_PREFIXES: Final = ("http://", "https://")
_NESTED: Final = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_EXITS: Final = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_DEPTH: Final = 6  # how far a local's value is followed through other locals, a caller's display into displays

Position = tuple[int, int]  # (line, column) as ast gives them: where a node starts


def has_bounded_input(call: ast.Call) -> bool:
    """Every positional argument (there is one) is a literal, a constant or a
    constant-bounded slice."""
    if any(keyword.arg is None for keyword in call.keywords):
        return False  # `**kw`: libcst counts it among the positional arguments
    return bool(call.args) and all(not isinstance(arg, ast.Starred) and _is_bounded_value(arg) for arg in call.args)


def short_meaning(text: str) -> str:
    """What a name or attribute chain (``request.rid``) is when its last name
    says it is short ("an identifier", "a name", ...), else ""."""
    last = text.rsplit(".", 1)[-1].lstrip("_")
    if last in SHORT_NAMES:
        return SHORT_NAMES[last]
    return next((kind for suffix, kind in SHORT_SUFFIXES.items() if last.endswith(suffix)), "")


# What each last name seen among the arguments of calls means (short_meaning
# of a bare name, "" when nothing): the same few hundred names recur in every
# file, and arguments_by_name asks of every call of a def.
_NAME_MEANINGS: dict[str, str] = {}


def _name_meaning(last: str) -> str:
    meaning = _NAME_MEANINGS.get(last)
    if meaning is None:
        meaning = _NAME_MEANINGS[last] = short_meaning(last)
    return meaning


def arguments_by_name(call: ast.Call, parameters: frozenset[str]) -> tuple[str, bool]:
    """How a call's positional arguments (no keyword, no ``*``) are short,
    read from their names and shapes alone (``_named_shape``), through
    ``.encode()`` / ``.lower()``...:

    - (why, False): each is short by its name's meaning (``refresh_token``,
      ``request.rid``), a literal, a length, a digest, or a display of such
      values: "`refresh_token` is a token, short by its meaning";
    - ("", True): each is short so or one of ``parameters`` (the def's, never
      assigned in its body), one at least: as short as the caller's own
      arguments (CallRef.by_arguments);
    - ("", False): any other call.

    Only a call of a def whose digest is as short as its arguments
    (mmlint.analysis.weight's argument_chains) is ever judged by these; they
    are read of every call, so the reading is names, shapes and set look-ups
    only (no test, local or validator is read, as InputBounds does)."""
    if not call.args or call.keywords:
        return "", False
    why, forwarded = "", False
    for arg in call.args:
        found = _named_shape(arg, parameters, 0)
        if found is None:
            return "", False
        why, forwarded = why or found[0], forwarded or found[1]
    if forwarded:
        return "", True
    return why or "its arguments are built from literals", False


def _named_shape(node: ast.expr, parameters: frozenset[str], depth: int) -> tuple[str, bool] | None:
    """(why, forwarded) of one argument read by arguments_by_name, None when
    of unknown size: a name or attribute short by its meaning (why), one of
    ``parameters`` (forwarded), a literal or a constant ("", False), a value
    of a fixed size (``len(x)``, ``h.hexdigest()``), or a tuple, list or dict
    display, ``str`` / ``repr`` / ``tuple`` / ``json.dumps``... of such values."""
    node = _kept_value(node)
    if isinstance(node, ast.Name):
        last = node.id
    elif isinstance(node, ast.Attribute):
        last = node.attr
    else:
        last = ""
    if last:
        meaning = _name_meaning(last)
        if meaning:
            return f"`{dotted_name(node) or last}` is {meaning}, short by its meaning", False
        if last in parameters and isinstance(node, ast.Name):
            return "", True
        return ("", False) if last.lstrip("_").isupper() and _is_bounded_value(node) else None  # `LABEL`
    if depth >= _DEPTH:
        return None
    if isinstance(node, ast.Call):
        fixed = _fixed_size_value(node)
        if fixed:
            return fixed, False
        inner = _size_kept_argument(node)
        return _named_shape(inner, parameters, depth + 1) if inner is not None else None
    if isinstance(node, (ast.Tuple, ast.List, ast.Dict)):
        parts = _display_parts(node)
        if parts is None:
            return None
        why, forwarded = "", False
        for part in parts:
            found = _named_shape(part, parameters, depth + 1)
            if found is None:
                return None
            why, forwarded = why or found[0], forwarded or found[1]
        return why, forwarded
    return ("", False) if _is_bounded_value(node) else None


# Calls whose value is about as long as their one argument: ``str(x)``,
# ``repr(x)``, ``tuple(x)``, ``sorted(x)``; ``json.dumps(x, sort_keys=True)``,
# ``pickle.dumps(x)`` (any ``dumps``: keywords only format it).
_KEEPING_BUILTINS: Final = frozenset({"str", "repr", "tuple", "list", "sorted", "set", "frozenset"})
# What a hash object returns: of the digest's fixed size, whatever it hashed.
_DIGEST_METHODS: Final = frozenset({"digest", "hexdigest"})


def _size_kept_argument(call: ast.Call) -> ast.expr | None:
    """``x`` of ``str(x)`` / ``tuple(x)`` / ``json.dumps(x, ...)``: a value
    about as long as ``x``; None for any other call."""
    if len(call.args) != 1 or isinstance(call.args[0], ast.Starred):
        return None
    func = call.func
    if isinstance(func, ast.Name) and func.id in _KEEPING_BUILTINS and not call.keywords:
        return call.args[0]
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if last == "dumps" and all(keyword.arg is not None for keyword in call.keywords):
        return call.args[0]
    return None


def _fixed_size_value(call: ast.Call) -> str:
    """Why a call's value is of a fixed size whatever its input: ``len(x)``
    (a number), ``h.hexdigest()`` / ``h.digest()`` (a digest); "" otherwise."""
    func = call.func
    if call.keywords:
        return ""
    if isinstance(func, ast.Name) and func.id == "len" and len(call.args) == 1:
        return f"`len({dotted_name(call.args[0]) or '...'})` is a number"
    if isinstance(func, ast.Attribute) and func.attr in _DIGEST_METHODS and not call.args:
        return f"`{dotted_name(func.value) or '...'}.{func.attr}()` is a digest, of a fixed size"
    return ""


def _display_parts(node: ast.Tuple | ast.List | ast.Set | ast.Dict) -> list[ast.expr] | None:
    """The keys and values of a display, None when it spreads another
    (``*xs``, ``**kw``: of any size)."""
    if isinstance(node, ast.Dict):
        keys = [key for key in node.keys if key is not None]
        return [*keys, *node.values] if len(keys) == len(node.keys) else None
    if any(isinstance(element, ast.Starred) for element in node.elts):
        return None
    return list(node.elts)


def _kept_value(node: ast.expr) -> ast.expr:
    """``x`` of ``x.encode("utf-8")``, ``x.strip().lower()``: a value about as long as ``x``."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _KEEPING_METHODS
        and not node.keywords
        and all(isinstance(inner, ast.Constant) for inner in node.args)
    ):
        node = node.func.value
    return node


def url_tested(test: ast.expr) -> str | None:
    """``x`` of ``x.startswith(("http://", "https://"))`` (each prefix an
    http(s) one; ``x.lower()`` / ``x.strip()`` before it too), as dotted text."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "startswith"):
        return None
    if len(test.args) != 1 or test.keywords:
        return None
    prefix = test.args[0]
    prefixes = prefix.elts if isinstance(prefix, ast.Tuple) else [prefix]
    if not prefixes or not all(
        isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value.lower().startswith(_URL_PREFIXES)
        for item in prefixes
    ):
        return None
    receiver = test.func.value
    while (
        isinstance(receiver, ast.Call)
        and isinstance(receiver.func, ast.Attribute)
        and receiver.func.attr in ("lower", "casefold", "strip", "lstrip", "rstrip")
        and not receiver.args
        and not receiver.keywords
    ):
        receiver = receiver.func.value
    return dotted_name(receiver)


def cost_evidence(calls: Iterable[ast.Call], commits_after: Position | None) -> dict[int, str]:
    """Why each of a def's calls of a ``light_by_evidence`` set costs little,
    by ``id`` of the call (its CallFact / CallRef's ``bounded_input``):

    - ``<conn>.execute(<keyed read>, ...).fetchone()``: both calls, the
      statement a literal keyed ``SELECT`` (``_KEYED_READ``);
    - ``<conn>.execute("PRAGMA name = value")``: a setting;
    - ``<conn>.commit()`` after ``commits_after`` (the first ``yield`` of a
      ``@contextmanager``): it commits its with-body's statements, whose own
      calls carry their cost (a write's ``execute``);
    - ``<file>.read(N)``: ``N`` an int literal of at most 65536 or
      ``len(CONSTANT)``, a header of a size the source fixes;
    - ``<path>.write_text(T)`` / ``write_bytes(T)``: ``T`` a text the source
      fixes (``_fixed_text``: a literal, a constant, ``json.dumps`` of a
      literal dict or list of those), a start script or a marker.

    Any other call of those names has no evidence, its arguments literal or
    not."""
    found: dict[int, str] = {}
    for call in calls:
        func = call.func
        if not isinstance(func, ast.Attribute):
            continue
        if func.attr == "fetchone" and not call.args and not call.keywords:
            inner = func.value
            if isinstance(inner, ast.Call) and _is_execute(inner) and _keyed_read(_statement(inner)):
                found[id(call)] = found[id(inner)] = "a keyed `SELECT` whose one row `fetchone()` reads"
        elif func.attr == "execute" and _PRAGMA_SETTING.fullmatch(_statement(call)):
            found.setdefault(id(call), "a `PRAGMA` setting")
        elif (
            func.attr == "commit"
            and not call.args
            and not call.keywords
            and commits_after is not None
            and (call.lineno, call.col_offset) > commits_after
        ):
            found[id(call)] = "commits a context manager's with-body, whose statements carry the cost"
        elif func.attr == "read" and len(call.args) == 1 and not call.keywords and _fixed_size(call.args[0]):
            found[id(call)] = "reads a size the source fixes"
        elif func.attr in _WRITES and _one_argument(call) and _fixed_text(call.args[0]):
            found[id(call)] = "writes a text the source fixes"
    return found


_WRITES: Final = frozenset({"write_text", "write_bytes"})


def _one_argument(call: ast.Call) -> bool:
    """One positional argument, and no ``**kw`` (``encoding=`` is fine)."""
    return len(call.args) == 1 and not isinstance(call.args[0], ast.Starred) and all(k.arg for k in call.keywords)


def _fixed_text(node: ast.expr) -> bool:
    """A text the source fixes: a literal or a constant (_is_bounded_value),
    or ``json.dumps`` of one or of a dict or list display of them (no
    ``**`` / ``*`` spread: its keys and values are all in the source)."""
    if _is_bounded_value(node):
        return True
    if not (isinstance(node, ast.Call) and dotted_name(node.func) == "json.dumps" and _one_argument(node)):
        return False
    shown = node.args[0]
    if isinstance(shown, ast.Dict):
        return all(key is not None and _is_bounded_value(key) for key in shown.keys) and all(
            _is_bounded_value(value) for value in shown.values
        )
    return _is_bounded_value(shown)


def _fixed_size(node: ast.expr) -> bool:
    """An int literal of at most _SHORT_BOUND, or ``len`` of a literal or a constant."""
    if _constant_int(node):
        return True
    measured = _len_argument(node)
    return measured is not None and _is_bounded_value(measured)


def _is_execute(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == "execute" and bool(call.args)


def _statement(call: ast.Call) -> str:
    """The literal SQL text of an ``execute`` call ("" when not a literal)."""
    first = call.args[0] if call.args else None
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""


def _keyed_read(sql: str) -> bool:
    match = _KEYED_READ.fullmatch(sql)
    if match is None:
        return False
    words = {word.lower() for word in re.findall(r"\w+", match.group("columns"))}
    if words & _SQL_KEYWORDS:
        return False
    return all(_EQUALITY.fullmatch(term.strip()) for term in _AND.split(match.group("where")))


class InputBounds:
    """The judgements of one def's calls (its own body): built once per def,
    its guards and locals read only when a sized call asks."""

    def __init__(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef, validators: LengthValidators | None = None
    ) -> None:
        self.function = function
        self.validators = validators
        self._regions: list[tuple[str, str, Position, Position]] | None = None
        self._locals: dict[str, list[ast.expr]] | None = None
        # By local name (and whether a subscript reaches a display it holds):
        # whether some statement may grow the list, set or dict it holds.
        self._grown: dict[tuple[str, bool], bool] | None = None
        self._visiting: set[str] = set()
        self._by_meaning = False  # the call judged is a light_when_short one: short names and URL tests count
        self._parameters: frozenset[str] = frozenset()  # parameters taken as short (by_arguments)

    def reason(self, call: ast.Call) -> str:
        """Why every positional argument of ``call`` is short ("`first_frame`
        is tested to be an http(s) URL"), when the call is a sized one
        (SIZED_NAMES) and they are; "" otherwise (unknown: unbounded)."""
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name not in SIZED_NAMES or not call.args or any(keyword.arg is None for keyword in call.keywords):
            return ""
        self._by_meaning = name in LIGHT_WHEN_SHORT_NAMES
        reasons = []
        for arg in call.args:
            found = None if isinstance(arg, ast.Starred) else self._judge(arg, 0)
            if found is None:
                return ""
            reasons.append(found)
        return next((reason for reason in reasons if reason), "its input is built from literals")

    def by_arguments(self, call: ast.Call, parameters: frozenset[str]) -> bool:
        """Whether a light_when_short call whose input is of unknown size here
        has an input built only from ``parameters`` (the def's, never
        assigned in its body: what its callers pass) and values short by
        evidence: as short as the arguments each caller passes
        (CallRef.by_arguments). Asked only of such calls, a few per package."""
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name not in LIGHT_WHEN_SHORT_NAMES or not parameters:
            return False
        self._parameters = parameters
        try:
            return bool(self.reason(call))
        finally:
            self._parameters = frozenset()

    def _judge(self, node: ast.expr, depth: int) -> str | None:
        """None: of unknown size; "": fixed by the source; else why it is short."""
        if _is_bounded_value(node):
            return ""
        if isinstance(node, ast.JoinedStr):
            return self._all(
                [part for value in node.values if isinstance(value, ast.FormattedValue) for part in _formatted(value)],
                depth,
            )
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            return self._all([node.left, node.right], depth)
        if isinstance(node, ast.IfExp):
            return self._all([node.body, node.orelse], depth)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
            parts = _display_parts(node)
            return self._all(parts, depth) if parts is not None else None
        if isinstance(node, ast.BoolOp):
            return self._all(node.values, depth)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        text = dotted_name(node)
        if text is None:
            return None
        meaning = short_meaning(text) if self._by_meaning else ""
        if meaning:
            return f"`{text}` is {meaning}, short by its meaning"
        if isinstance(node, ast.Name) and node.id in self._parameters:
            return f"`{text}` is its callers' argument"
        tested = self._tested_at(text, (node.lineno, node.col_offset)) if self._by_meaning else ""
        if tested:
            return f"`{text}` is tested to be {tested}"
        if isinstance(node, ast.Name) and depth < _DEPTH:
            return self._local(node.id, depth)
        return None

    def _all(self, nodes: list[ast.expr], depth: int) -> str | None:
        reasons = []
        for node in nodes:
            found = None if isinstance(node, ast.Starred) else self._judge(node, depth)
            if found is None:
                return None
            reasons.append(found)
        return next((reason for reason in reasons if reason), "")

    def _call(self, node: ast.Call, depth: int) -> str | None:
        if any(keyword.arg is None for keyword in node.keywords):
            return None
        keywords = [keyword.value for keyword in node.keywords]
        func = node.func
        if isinstance(func, ast.Name) and func.id == "str" and not node.args and not keywords:
            return ""
        kept = _size_kept_argument(node)
        if kept is not None:
            return self._judge(kept, depth)
        fixed = _fixed_size_value(node) if self._by_meaning else ""
        if fixed:
            return fixed
        if isinstance(func, ast.Name) and self._by_meaning and self.validators is not None and node.args:
            checked = self.validators.bound(func.id)
            if checked and func.id not in {arg.arg for arg in _parameters(self.function.args)}:
                return f"`{func.id}(...)` returns its argument only when it is {checked}"
        if not isinstance(func, ast.Attribute):
            return None
        if func.attr in _KEEPING_METHODS:
            return self._all([func.value, *node.args, *keywords], depth)
        if (
            func.attr == "join"
            and len(node.args) == 1
            and not keywords
            and isinstance(node.args[0], (ast.List, ast.Tuple))
        ):
            return self._all([func.value, node.args[0]], depth)
        return None

    def _local(self, name: str, depth: int) -> str | None:
        """A local name every binding of which is an assignment of a short value."""
        values = self._local_values().get(name)
        if not values or name in self._visiting:
            return None
        held = [_mutable_displays(value) for value in values]
        if any(mutable for mutable, _ in held) and not self._never_grown(name, any(nested for _, nested in held)):
            return None
        self._visiting.add(name)
        try:
            found = self._all(values, depth + 1)
        finally:
            self._visiting.discard(name)
        if found is None:
            return None
        return found or f"`{name}` is built from literals"

    def _never_grown(self, name: str, nested: bool) -> bool:
        """No statement of the def can grow the list, set or dict a local
        holds: each reading of ``name`` is a subscript's (unless ``nested``,
        a display held in the local's: ``key[0].append``), a read-only
        method's (``.get``, ``.items``...), an argument of a call that does
        not change it (``json.dumps``, ``len``, a digest...), a comparison, a
        replacement field or a ``return``; no nested def or lambda names it
        (``payload[k] = v``, ``payload.update(...)``, an alias, a call of
        another function may each grow it)."""
        if self._grown is None:
            self._grown = {}
        if (name, nested) not in self._grown:
            self._grown[name, nested] = any(_grows(parent, name, nested) for parent in _own_nodes(self.function.body))
        return not self._grown[name, nested]

    def _local_values(self) -> dict[str, list[ast.expr]]:
        """The values assigned to each local name of the def's own body that
        is bound by plain assignments only (a parameter, a loop or `with`
        target, an augmented assignment, `global`... makes it unknown)."""
        if self._locals is None:
            values: dict[str, list[ast.expr]] = {}
            plain: set[int] = set()
            other: set[str] = {arg.arg for arg in _parameters(self.function.args)}
            for node in _own_nodes(self.function.body):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            values.setdefault(target.id, []).append(node.value)
                            plain.add(id(target))
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                    values.setdefault(node.target.id, []).append(node.value)
                    plain.add(id(node.target))
                elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in plain:
                    other.add(node.id)
                elif isinstance(node, (ast.Global, ast.Nonlocal)):
                    other.update(node.names)
                elif isinstance(node, (ast.Import, ast.ImportFrom)):
                    other.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ExceptHandler) and node.name:
                    other.add(node.name)
                elif isinstance(node, _NESTED) and not isinstance(node, ast.Lambda):
                    other.add(node.name)
            self._locals = {name: found for name, found in values.items() if name not in other}
        return self._locals

    def _tested_at(self, text: str, at: Position) -> str:
        """What ``text`` is tested to be where ``at`` is ("an http(s) URL"), or ""."""
        return next(
            (why for tested, why, start, end in self._tested_regions() if tested == text and start <= at < end), ""
        )

    def _tested_regions(self) -> list[tuple[str, str, Position, Position]]:
        """(the value tested, what it is tested to be, where the statements it is so in start and end)."""
        if self._regions is None:
            self._regions = []
            for block in _blocks(self.function.body):
                for index, statement in enumerate(block):
                    self._regions.extend(_regions_of(statement, block[index + 1 :]))
        return self._regions


_URL = "an http(s) URL"


def _held(test: ast.expr) -> tuple[str, str] | None:
    """(``x``, what it is) where ``test`` holding makes ``x`` short: an http(s)
    URL test, or ``len(x) <= N`` (``<``, ``N >= len(x)``, ``1 <= len(x) <= N``)."""
    text = url_tested(test)
    if text is not None:
        return text, _URL
    bounded = length_bounded(test)
    return (bounded[0], f"at most {bounded[1]} long") if bounded is not None else None


def _failed(test: ast.expr) -> tuple[str, str] | None:
    """(``x``, what it is) where ``test`` failing makes ``x`` short: ``not`` of
    a _held test, or ``len(x) > N`` (``>=``, ``N < len(x)``)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _held(test.operand)
    exceeded = length_exceeded(test)
    return (exceeded[0], f"at most {exceeded[1]} long") if exceeded is not None else None


def length_bounded(test: ast.expr) -> tuple[str, str] | None:
    """(``x``, ``N`` as written) of ``len(x) <= N`` / ``len(x) < N`` /
    ``N >= len(x)`` / ``N > len(x)`` / ``A <= len(x) <= N``, ``N`` an int
    literal of at most _SHORT_BOUND; None for any other test."""
    if not isinstance(test, ast.Compare):
        return None
    operands = [test.left, *test.comparators]
    for index, op in enumerate(test.ops):
        left, right = operands[index], operands[index + 1]
        if isinstance(op, (ast.Lt, ast.LtE)) and _constant_int(right) and (measured := _measured(left)):
            return measured, ast.unparse(right)
        if isinstance(op, (ast.Gt, ast.GtE)) and _constant_int(left) and (measured := _measured(right)):
            return measured, ast.unparse(left)
    return None


def length_exceeded(test: ast.expr) -> tuple[str, str] | None:
    """(``x``, ``N``) of ``len(x) > N`` / ``len(x) >= N`` / ``N < len(x)`` / ``N <= len(x)``."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(op, (ast.Gt, ast.GtE)) and _constant_int(right) and (measured := _measured(left)):
        return measured, ast.unparse(right)
    if isinstance(op, (ast.Lt, ast.LtE)) and _constant_int(left) and (measured := _measured(right)):
        return measured, ast.unparse(left)
    return None


def _measured(node: ast.expr) -> str | None:
    """``x`` of ``len(x)``, as dotted text."""
    measured = _len_argument(node)
    return dotted_name(measured) if measured is not None else None


def _len_argument(node: ast.expr) -> ast.expr | None:
    """``x`` of ``len(x)``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
        and not node.keywords
    ):
        return node.args[0]
    return None


# The largest length bound taken as short: 64 KiB digest or encode in tens
# of microseconds. A bound named by a constant is not read (its value may be
# any size).
_SHORT_BOUND: Final = 65536


def _constant_int(node: ast.expr) -> bool:
    """An int literal no larger than _SHORT_BOUND."""
    return isinstance(node, ast.Constant) and type(node.value) is int and 0 <= node.value <= _SHORT_BOUND


class LengthValidators:
    """A module's functions that return their first argument only when its
    length is bounded: ``if ... or len(value) > N: raise`` (or
    ``not 1 <= len(value) <= N``), a statement of the body, before every
    ``return value``; every other return ``None`` or a constant; ``value``
    never assigned. A value such a function returns is at most ``N`` long,
    whatever its argument. Read only when a sized call's input is a call of
    one of these names (``bound``)."""

    def __init__(self, functions: dict[str, ast.FunctionDef]) -> None:
        self.functions = functions
        self._bounds: dict[str, str] = {}

    def bound(self, name: str) -> str:
        """What the function checks its argument is ("at most 256 long", "an
        http(s) URL"), or "" when ``name`` is no such function."""
        if name not in self._bounds:
            function = self.functions.get(name)
            self._bounds[name] = _validated_bound(function) if function is not None else ""
        return self._bounds[name]


def _validated_bound(function: ast.FunctionDef) -> str:
    positional = [*function.args.posonlyargs, *function.args.args]
    if not positional:
        return ""
    value = positional[0].arg
    checked: tuple[Position, str] | None = None
    for statement in function.body:
        if (
            checked is None
            and isinstance(statement, ast.If)
            and statement.body
            and isinstance(statement.body[-1], ast.Raise)
        ):
            failed = next(
                (
                    found
                    for part in _conjuncts(statement.test, ast.Or)
                    if (found := _failed(part)) and found[0] == value
                ),
                None,
            )
            if failed is not None:
                checked = ((statement.end_lineno or statement.lineno, statement.end_col_offset or 0), failed[1])
    if checked is None:
        return ""
    for node in _own_nodes(function.body):
        if isinstance(node, ast.Name) and node.id == value and not isinstance(node.ctx, ast.Load):
            return ""
        if isinstance(node, (ast.Global, ast.Nonlocal)) and value in node.names:
            return ""
        if isinstance(node, ast.Return) and node.value is not None and not isinstance(node.value, ast.Constant):
            if not (isinstance(node.value, ast.Name) and node.value.id == value):
                return ""
            if (node.lineno, node.col_offset) < checked[0]:
                return ""
    return checked[1]


def _regions_of(statement: ast.stmt, rest: list[ast.stmt]) -> Iterator[tuple[str, str, Position, Position]]:
    if isinstance(statement, ast.If):
        for tested in _conjuncts(statement.test, ast.And):
            held = _held(tested)
            if held is not None:
                yield from _unassigned(*held, statement.body)
        if statement.body and isinstance(statement.body[-1], _EXITS):
            for negated in _conjuncts(statement.test, ast.Or):
                failed = _failed(negated)
                if failed is not None:
                    yield from _unassigned(*failed, rest)
    elif isinstance(statement, ast.Assert):
        for tested in _conjuncts(statement.test, ast.And):
            held = _held(tested)
            if held is not None:
                yield from _unassigned(*held, rest)


def _unassigned(text: str, why: str, statements: list[ast.stmt]) -> Iterator[tuple[str, str, Position, Position]]:
    """The region these statements span, unless one of them assigns ``text``."""
    if not statements:
        return
    for node in _own_nodes(statements):
        if (
            isinstance(node, (ast.Name, ast.Attribute))
            and not isinstance(node.ctx, ast.Load)
            and dotted_name(node) == text
        ):
            return
        if isinstance(node, (ast.Global, ast.Nonlocal)) and text.split(".", 1)[0] in node.names:
            return
    first, last = statements[0], statements[-1]
    yield text, why, (first.lineno, first.col_offset), (last.end_lineno or last.lineno, last.end_col_offset or 0)


def _conjuncts(test: ast.expr, op: type[ast.boolop]) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, op):
        return [part for value in test.values for part in _conjuncts(value, op)]
    return [test]


def _blocks(body: list[ast.stmt]) -> Iterator[list[ast.stmt]]:
    """Every statement list of the def's own body (not into nested defs or classes)."""
    stack = [body]
    while stack:
        block = stack.pop()
        yield block
        for statement in block:
            if isinstance(statement, _NESTED):
                continue
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(statement, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    stack.append(inner)
            for handler in getattr(statement, "handlers", ()):
                stack.append(handler.body)
            for case in getattr(statement, "cases", ()):
                stack.append(case.body)


def _own_nodes(statements: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of these statements, not into nested defs, lambdas or classes
    (their names are bound here, their bodies are not)."""
    stack: list[ast.AST] = list(reversed(statements))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _NESTED):
            stack.extend(ast.iter_child_nodes(node))


def _mutable_displays(value: ast.expr) -> tuple[bool, bool]:
    """(whether a value is or holds a list, set or dict, which may grow after
    the assignment: ``append``, ``payload[k] = v``; whether one is held
    inside another display, which a subscript reaches: ``key[0].append``),
    read through displays and conditional values, not into calls
    (``json.dumps({...})`` is a text), but ``list(...)`` / ``sorted(...)`` /
    ``set(...)`` / ``dict(...)`` make one."""
    mutable = nested = False
    stack: list[tuple[ast.expr, bool]] = [(value, False)]
    while stack:
        node, inside = stack.pop()
        if isinstance(node, ast.IfExp):
            stack += [(node.body, inside), (node.orelse, inside)]
        elif isinstance(node, ast.BoolOp):
            stack += [(part, inside) for part in node.values]
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            if not isinstance(node, ast.Tuple):
                mutable, nested = True, nested or inside
            parts = [*node.keys, *node.values] if isinstance(node, ast.Dict) else node.elts
            stack += [(part, True) for part in parts if part is not None]
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp)) or (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _MUTABLE_BUILTINS
        ):
            mutable, nested = True, nested or inside
    return mutable, nested


_MUTABLE_BUILTINS: Final = frozenset({"list", "set", "sorted", "dict"})
# Methods that read a list, set or dict and return a new value: never grow it.
_READING_METHODS: Final = frozenset({"get", "keys", "values", "items", "copy", "count", "index"})
# Calls that read their arguments and never change them.
_READING_CALLS: Final = frozenset(
    {"len", "str", "repr", "tuple", "list", "sorted", "set", "frozenset", "isinstance", "dumps"}
    | LIGHT_WHEN_SHORT_NAMES
)


def _grows(parent: ast.AST, name: str, nested: bool) -> bool:
    """Whether ``parent`` may grow the local ``name`` through one of its
    direct children: any reading of it but those _never_grown allows; any
    mention in a nested def, lambda or class."""
    if isinstance(parent, _NESTED):
        return any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(parent))
    for child in ast.iter_child_nodes(parent):
        if not (isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, ast.Load)):
            continue
        if isinstance(parent, ast.Subscript):
            reads = parent.value is not child or (isinstance(parent.ctx, ast.Load) and not nested)
        elif isinstance(parent, ast.Attribute):
            reads = parent.attr in _READING_METHODS
        elif isinstance(parent, ast.Call):
            func = parent.func
            last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            reads = func is not child and last in _READING_CALLS
        elif isinstance(parent, ast.keyword):
            reads = False  # an argument of a call whose name this node does not show
        else:
            reads = isinstance(parent, (ast.Compare, ast.FormattedValue, ast.Return))
        if not reads:
            return True
    return False


def _parameters(args: ast.arguments) -> list[ast.arg]:
    found = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return found + [arg for arg in (args.vararg, args.kwarg) if arg is not None]


def _formatted(value: ast.FormattedValue) -> list[ast.expr]:
    """The expressions of a replacement field, its format spec's included (``{x:>{width}}``)."""
    parts: list[ast.expr] = [value.value]
    if isinstance(value.format_spec, ast.JoinedStr):
        parts += [
            part
            for inner in value.format_spec.values
            if isinstance(inner, ast.FormattedValue)
            for part in _formatted(inner)
        ]
    return parts


def _is_bounded_value(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) in (str, bytes, int, float, complex)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(not isinstance(element, ast.Starred) and _is_bounded_value(element) for element in node.elts)
    text = dotted_name(node)
    if text is not None:
        return is_constant_name(text)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        part = node.slice
        return part.step is None and is_bounded_slice(part.lower, part.upper, _is_constant_number, _is_negative)
    return False


def _is_constant_number(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _is_constant_number(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        return _is_constant_number(node.left) and _is_constant_number(node.right)
    text = dotted_name(node)
    return text is not None and is_constant_name(text)


def _is_negative(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.USub)
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and _is_negative(node.left)


__all__ = [
    "EVIDENCE_NAMES",
    "LIGHT_WHEN_SHORT_NAMES",
    "SHORT_NAMES",
    "SHORT_SUFFIXES",
    "SIZED_NAMES",
    "InputBounds",
    "arguments_by_name",
    "LengthValidators",
    "has_bounded_input",
    "short_meaning",
    "cost_evidence",
    "url_tested",
]
