"""Frozen dataclasses to plain data (tuples and scalars, which JSON and
`marshal` both write) and back, driven by type hints.

For data read from somewhere that must not be able to run code or smuggle in
a value of the wrong type (the facts cache): decoding builds only the classes
of an explicit allow-list and checks every value against its field's hint, so
any input that does not fit raises one error, `CodecError`.

What it handles: frozen dataclasses (every field set by ``__init__``), tuples
(``tuple[X, ...]``, ``tuple[X, Y]``), frozensets, ``str``, ``int``, ``float``,
``bool``, ``None``, ``bytes`` (which JSON cannot hold), ``Literal`` strings (outside unions), unions (``X | Y``,
``Optional``) and ``Any``. The encoding is
compact and leans on the hints:

- a dataclass where the hint names exactly that class: a tuple of its field
  values in field order (its arity is checked);
- where the hint leaves the class open (a union, ``Any``): the same tuple with
  the class name first, ``("Seq", ...)``; tuples and frozensets in such a place
  are tagged ``"tuple"`` / ``"frozenset"`` the same way;
- ``X | None`` with one other member: ``None`` or that member's own form;
- scalars are themselves, tuples and frozensets plain tuples;
- the trailing fields that hold their defaults (None, a bool, an int, a str,
  an empty tuple or frozenset; never a float) are left out of a dataclass's
  tuple, which the decoder fills in again (most calls have every flag unset:
  the facts of sglang's whole package are 15 % smaller).

The decoder takes a list wherever it takes a tuple: the same data read back
from JSON. Tuples are what `marshal` reads fastest (the facts cache's
entries: twice as fast as lists, and faster than ``json.loads``).

Plans (one encoder and one decoder per hint) are built once per codec and
reused, so a warm cache read costs little more than reading the data.
"""

from __future__ import annotations

import contextlib
import dataclasses
import operator
import sys
import types
import typing
from collections.abc import Callable, Iterable, Iterator
from typing import Any

JsonData = Any  # None | bool | int | float | str | bytes | tuple[JsonData, ...] (or a list of them, through JSON)

_NONE = type(None)
_SCALARS = (str, int, float, bool, _NONE, bytes)  # bytes: for marshal, not JSON
_CONTAINER_TAGS = ("tuple", "frozenset")
_SEQUENCES = (tuple, list)  # what the decoder takes for a sequence: a list once through JSON
_NUMBERS = frozenset({int, float, bool})
# Distinct values of one shared class remembered at most (a long-lived
# process, the language server, decodes without end): then it starts afresh.
_SHARED_MAX = 1 << 16
_GENERATED_CODE = "<string>"  # the file name of the methods `dataclasses` writes (3.10 to 3.13)


class CodecError(ValueError):
    """The value or data does not fit the declared types, or names a class that
    is not allowed."""


def reachable_dataclasses(*roots: Any) -> frozenset[type]:
    """Every dataclass a value of these hints (classes, unions, generics) can hold,
    found by walking the classes' type hints. A field typed ``Any`` ends the walk:
    pass the classes it may hold as extra roots."""
    found: set[type] = set()
    pending = list(roots)
    while pending:
        hint = pending.pop()
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            if hint not in found:
                found.add(hint)
                pending.extend(_field_hints(hint).values())
        else:
            pending.extend(arg for arg in typing.get_args(hint) if arg is not Ellipsis)
    return frozenset(found)


class DataCodec:
    """``classes``: the dataclasses it may build. ``shared``: those of them
    whose values, read from equal data (tuples), are decoded once and then
    reused: immutable values that repeat (a callee, an IR sequence), so a
    decode builds fewer objects, skips the fields of what it has seen, and
    holds less memory. Equal data must mean equal values of the same types,
    so nothing a shared class holds, however deep, may be a float (-0.0 ==
    0.0) or a field that takes two kinds of number (1 == True)."""

    def __init__(self, classes: Iterable[type], shared: Iterable[type] = ()) -> None:
        self._classes: dict[str, type] = {}
        for cls in classes:
            if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
                raise CodecError(f"{cls!r} is not a dataclass")
            name = cls.__name__
            if name in _CONTAINER_TAGS or self._classes.get(name, cls) is not cls:
                raise CodecError(f"two allowed classes, or a class and a container, share the tag {name!r}")
            self._classes[name] = cls
        self._allowed = frozenset(self._classes.values())
        self._shared = frozenset(shared)
        if not self._shared <= self._allowed:
            raise CodecError("a shared class must be one of the allowed classes")
        for cls in self._shared:
            _check_shareable(cls)
        self._encoders: dict[Any, Callable[[Any], JsonData]] = {}
        self._decoders: dict[Any, Callable[[JsonData], Any]] = {}
        self._tagged_encoders: dict[type, Callable[[Any], JsonData]] = {}
        self._tagged_decoders: dict[type, Callable[[JsonData], Any]] = {}

    def encode(self, value: Any, hint: Any = Any) -> JsonData:
        try:
            return self._encoder(hint)(value)
        except RecursionError as error:
            raise CodecError("nested too deeply to encode") from error

    def decode(self, data: JsonData, hint: Any = Any) -> Any:
        try:
            return self._decoder(hint)(data)
        except CodecError:
            raise
        except (TypeError, ValueError, RecursionError) as error:  # a constructor refused, unhashable, too deep
            raise CodecError(f"cannot decode: {type(error).__name__}: {error}") from error

    # ------------------------------------------------------------ plans

    def _encoder(self, hint: Any) -> Callable[[Any], JsonData]:
        try:
            return self._encoders[hint]
        except KeyError:
            pass
        kind, args = _classify(hint, self._allowed)
        if kind == "any":
            encoder: Callable[[Any], JsonData] = self._encode_any
        elif kind == "scalar":
            encoder = _scalar_encoder(args)
        elif kind == "literal":
            encoder = _literal_codec(args)
        elif kind == "dataclass":
            encoder = self._dataclass_encoder(args)
        elif kind in ("tuple", "frozenset"):
            encoder = self._container_encoder(kind, args)
        else:  # union
            encoder = self._union_encoder(args)
        self._encoders[hint] = encoder
        return encoder

    def _decoder(self, hint: Any) -> Callable[[JsonData], Any]:
        try:
            return self._decoders[hint]
        except KeyError:
            pass
        kind, args = _classify(hint, self._allowed)
        if kind == "any":
            decoder: Callable[[JsonData], Any] = self._decode_any
        elif kind == "scalar":
            decoder = _scalar_decoder(args)
        elif kind == "literal":
            decoder = _literal_codec(args)
        elif kind == "dataclass":
            decoder = self._dataclass_decoder(args, tagged=False)
        elif kind in ("tuple", "frozenset"):
            decoder = self._container_decoder(kind, args, tagged=False)
        else:
            decoder = self._union_decoder(args)
        self._decoders[hint] = decoder
        return decoder

    # A dataclass's plan is registered before its fields' plans are built, so
    # recursive types (a node holding nodes) refer to it instead of looping.

    def _dataclass_encoder(self, cls: type, tagged: bool = False) -> Callable[[Any], JsonData]:
        # One function per class, its fields unrolled as the decoder's are
        # (a cold run stores every parsed file's facts): scalar fields are
        # checked in place, tuples of values looped over in place, the others
        # go through their encoders. Made of indices and our own names only.
        fields = _init_fields(cls)
        hints = _field_hints(cls)
        namespace: dict[str, Any] = {"cls": cls, "CodecError": CodecError, "wrong_field": _wrong_field}
        names = [f"v{index}" for index in range(len(fields))]
        lines = [
            "def encode(value):",
            "    if type(value) is not cls:",
            "        raise CodecError(f'expected {cls.__name__}, got {type(value).__name__}')",
        ]
        if len(fields) > 1:
            namespace["fields_of"] = operator.attrgetter(*(field.name for field in fields))
            lines.append(f"    {', '.join(names)}, = fields_of(value)")
        elif fields:
            namespace["fields_of"] = operator.attrgetter(fields[0].name)
            lines.append("    v0 = fields_of(value)")
        items = [repr(cls.__name__)] if tagged else []
        inner_hints: dict[int, Any] = {}
        for index, field in enumerate(fields):
            value, hint = names[index], hints[field.name]
            accepted = _scalar_types(hint)
            if accepted is not None:
                lines += _scalar_check(value, index, accepted, namespace)
                items.append(value)
                continue
            shape, inner = _inlined_shape(hint)
            if shape == "literal":
                namespace[f"values{index}"] = inner
                lines += [
                    f"    if type({value}) is not str or {value} not in values{index}:",
                    f"        raise CodecError(cls.__name__ + f': expected one of {{sorted(values{index})}}')",
                ]
                items.append(value)
            elif shape == "tuple":
                inner_hints[index] = inner
                lines += [
                    f"    if type({value}) is not tuple:",
                    "        raise CodecError(cls.__name__ + ': expected a tuple')",
                ]
                items.append(f"tuple([encoder{index}(item) for item in {value}])")
            elif shape == "optional":
                inner_hints[index] = inner
                items.append(f"None if {value} is None else encoder{index}({value})")
            else:
                inner_hints[index] = hint
                items.append(f"encoder{index}({value})")
        tail = _omissible_tail(fields, hints)
        if tail:
            # The fields from ``required`` on that hold their defaults, from the last back, are left out.
            namespace["TAIL"] = tail
            start = len(items) - len(tail)
            lines += [
                f"    out = ({', '.join(items)},)",
                f"    n = {len(items)}",
                f"    while n > {start} and out[n - 1] == TAIL[n - {start + 1}] and type(out[n - 1]) is type(TAIL[n - {start + 1}]):",
                "        n -= 1",
                f"    return out[:n] if n < {len(items)} else out",
            ]
        else:
            lines.append(f"    return ({', '.join(items)},)" if items else "    return ()")
        exec(compile("\n".join(lines), f"<encode {cls.__name__}>", "exec"), namespace)  # noqa: S102  # our own template
        encode: Callable[[Any], JsonData] = namespace["encode"]
        (self._tagged_encoders if tagged else self._encoders)[cls] = encode
        # Registered before its fields' encoders are built, as the decoder is.
        with self._forget_plans_on_error():
            for index, inner in inner_hints.items():
                namespace[f"encoder{index}"] = self._encoder(inner)
        return encode

    def _dataclass_decoder(self, cls: type, tagged: bool) -> Callable[[JsonData], Any]:
        # One function per class, its fields unrolled (a warm cache read builds
        # some 140,000 facts; a loop over the fields cost half of it): scalar
        # fields are checked in place, the others go through their decoders.
        # The source is made of indices and names of our own only, never of
        # the class's or the data's text.
        fields = _init_fields(cls)
        hints = _field_hints(cls)
        accepted_types = [_scalar_types(hints[field.name]) for field in fields]
        namespace: dict[str, Any] = {"cls": cls, "CodecError": CodecError, "wrong_field": _wrong_field, "SEQUENCES": _SEQUENCES}
        names = [f"v{index}" for index in range(len(fields))]
        arity = len(fields) + tagged
        unpacked = ", ".join((["_"] if tagged else []) + names)
        tail = _omissible_tail(fields, hints)
        if tail:  # the encoder leaves out trailing fields that hold their defaults
            namespace["TAIL"] = tail
            least = arity - len(tail)
            lines = [
                "def decode(data):",
                "    if type(data) not in SEQUENCES:",
                f"        raise CodecError(cls.__name__ + ': expected a tuple of {least} to {arity} values')",
                f"    if len(data) != {arity}:",
                f"        if not {least} <= len(data) < {arity}:",
                f"            raise CodecError(cls.__name__ + ': expected a tuple of {least} to {arity} values')",
                f"        data = (*data, *TAIL[len(data) - {least}:])",
            ]
        else:
            lines = [
                "def decode(data):",
                f"    if type(data) not in SEQUENCES or len(data) != {arity}:",
                f"        raise CodecError(cls.__name__ + ': expected a tuple of {arity} values')",
            ]
        if cls in self._shared:  # the data itself is the key: a hit decodes no field
            namespace["memo"] = {}
            namespace["SHARED_MAX"] = _SHARED_MAX
            lines[1:1] = [
                "    key = data if type(data) is tuple else None",  # a list (JSON's) is no key
                "    if key is not None:",
                "        made = memo.get(key)",
                "        if made is not None:",
                "            return made",
            ]
        if unpacked:
            lines.append(f"    {unpacked}, = data")
        arguments = []
        inner_hints: dict[int, Any] = {}  # index -> the hint of what decoder{index} decodes
        for index, accepted in enumerate(accepted_types):
            value = names[index]
            if accepted is None:
                hint = hints[fields[index].name]
                shape, inner = _inlined_shape(hint)
                inner_hints[index] = inner if shape else hint
                if shape == "literal":  # a call less per field: the check in place
                    namespace[f"values{index}"] = inner
                    lines += [
                        f"    if type({value}) is not str or {value} not in values{index}:",
                        f"        raise CodecError(cls.__name__ + f': expected one of {{sorted(values{index})}}')",
                    ]
                    arguments.append(value)
                    del inner_hints[index]
                elif shape == "tuple":  # the tuple's loop in place
                    lines += [
                        f"    if type({value}) not in SEQUENCES:",
                        "        raise CodecError(cls.__name__ + ': expected a sequence for a tuple')",
                        f"    {value} = tuple([decoder{index}(item) for item in {value}])",
                    ]
                    arguments.append(value)
                elif shape == "optional":
                    arguments.append(f"None if {value} is None else decoder{index}({value})")
                else:
                    arguments.append(f"decoder{index}({value})")
                continue
            lines += _scalar_check(value, index, accepted, namespace)
            arguments.append(value)
        lines += self._construction(cls, fields, hints, arguments, accepted_types, namespace)
        # Named by its class, so a profile tells the decoders apart.
        exec(compile("\n".join(lines), f"<decode {cls.__name__}>", "exec"), namespace)  # noqa: S102  # our own template
        decode: Callable[[JsonData], Any] = namespace["decode"]
        (self._tagged_decoders if tagged else self._decoders)[cls] = decode
        # Registered before its fields' decoders are built: a recursive type refers
        # to it; the names it calls are looked up when it runs, after they are bound.
        with self._forget_plans_on_error():
            for index, inner in inner_hints.items():
                namespace[f"decoder{index}"] = self._decoder(inner)
        return decode

    def _construction(
        self,
        cls: type,
        fields: tuple[dataclasses.Field[Any], ...],
        hints: dict[str, Any],
        arguments: list[str],
        accepted_types: list[frozenset[type] | None],
        namespace: dict[str, Any],
    ) -> list[str]:
        """The lines of a decoder that build the value from its checked field
        values (``arguments``: each field's expression, a name or a decoder call).

        A frozen dataclass's ``__init__`` sets each field through
        ``object.__setattr__``; with slots and nothing else in ``__init__``, the
        slots' own setters do the same at half the cost. A shared class (see
        DataCodec) is built once per distinct data and reused."""
        decoded = []
        for index, argument in enumerate(arguments):  # each field's value decoded once, into a name
            if argument != f"v{index}":
                decoded.append(f"    v{index} = {argument}")
                arguments[index] = f"v{index}"
        if fast_construction(cls):
            namespace["new"] = object.__new__
            build = ["    made = new(cls)"]
            for index, field in enumerate(fields):
                namespace[f"set{index}"] = vars(cls)[field.name].__set__
                build.append(f"    set{index}(made, {arguments[index]})")
        else:
            build = [f"    made = cls({', '.join(arguments)})"]
        if cls not in self._shared:
            return [*decoded, *build, "    return made"]
        return [
            *decoded,
            *build,
            "    if key is not None:",
            "        if len(memo) >= SHARED_MAX:",
            "            memo.clear()",
            "        memo[key] = made",
            "    return made",
        ]

    @contextlib.contextmanager
    def _forget_plans_on_error(self) -> Iterator[None]:
        """A plan that failed half-way may already be referenced by others built
        meanwhile: drop them all, so a later call fails again instead of
        using a plan with fields missing."""
        try:
            yield
        except BaseException:
            for plans in (self._encoders, self._decoders, self._tagged_encoders, self._tagged_decoders):
                plans.clear()
            raise

    def _container_encoder(self, kind: str, args: tuple[Any, ...], tagged: bool = False) -> Callable[[Any], JsonData]:
        container = tuple if kind == "tuple" else frozenset
        head = (kind,) if tagged else ()
        if kind == "tuple" and args and args[-1] is not Ellipsis:  # fixed arity: tuple[X, Y]
            item_encoders = [self._encoder(arg) for arg in args]

            def encode_fixed(value: Any) -> JsonData:
                if type(value) is not tuple or len(value) != len(item_encoders):
                    raise CodecError(f"expected a tuple of {len(item_encoders)}")
                return head + tuple([enc(item) for enc, item in zip(item_encoders, value)])

            return encode_fixed
        item_encoder = self._encoder(args[0] if args else Any)

        def encode(value: Any) -> JsonData:
            if type(value) is not container:
                raise CodecError(f"expected a {kind}, got {type(value).__name__}")
            return head + tuple([item_encoder(item) for item in value])

        return encode

    def _container_decoder(self, kind: str, args: tuple[Any, ...], tagged: bool) -> Callable[[JsonData], Any]:
        container = tuple if kind == "tuple" else frozenset
        if kind == "tuple" and args and args[-1] is not Ellipsis:
            item_decoders = [self._decoder(arg) for arg in args]
            arity = len(item_decoders) + tagged

            def decode_fixed(data: JsonData) -> Any:
                if type(data) not in _SEQUENCES or len(data) != arity:
                    raise CodecError(f"expected a tuple of {arity} values")
                return tuple([dec(item) for dec, item in zip(item_decoders, data[1:] if tagged else data)])

            return decode_fixed
        item_hint = args[0] if args else Any
        accepted = _scalar_types(item_hint)
        if accepted is not None:  # scalars: one check of all their types, no call per item

            def decode_scalars(data: JsonData) -> Any:
                if type(data) not in _SEQUENCES:
                    raise CodecError(f"expected a sequence for a {kind}")
                values = data[1:] if tagged else data
                if not accepted.issuperset(map(type, values)):
                    raise CodecError(f"a {kind} item of the wrong type")
                return container(values)

            return decode_scalars
        item_decoder = self._decoder(item_hint)

        def decode(data: JsonData) -> Any:
            if type(data) not in _SEQUENCES:
                raise CodecError(f"expected a sequence for a {kind}")
            return container([item_decoder(item) for item in (data[1:] if tagged else data)])

        return decode

    def _union_encoder(self, members: tuple[Any, ...]) -> Callable[[Any], JsonData]:
        others = [m for m in members if m is not _NONE]
        if len(others) == 1:  # X | None: null or X's own form
            inner = self._encoder(others[0])
            return lambda value: None if value is None else inner(value)
        by_type: dict[type, Callable[[Any], JsonData]] = {}
        for member in members:
            kind, args = _classify(member, self._allowed)
            if kind == "literal":
                raise CodecError(f"unsupported union: a Literal in {members}")
            if kind == "scalar":
                by_type[args] = _scalar_encoder(args)
            elif kind == "dataclass":
                by_type[args] = self._tagged_encoder(args)
            else:  # tuple / frozenset
                container = tuple if kind == "tuple" else frozenset
                if container in by_type:
                    raise CodecError(f"ambiguous union: two {kind} types in {members}")
                by_type[container] = self._container_encoder(kind, args, tagged=True)

        def encode(value: Any) -> JsonData:
            encoder = by_type.get(type(value))
            if encoder is None:
                raise CodecError(f"{type(value).__name__} is none of the union's types")
            return encoder(value)

        return encode

    def _union_decoder(self, members: tuple[Any, ...]) -> Callable[[JsonData], Any]:
        others = [m for m in members if m is not _NONE]
        if len(others) == 1:
            inner = self._decoder(others[0])
            return lambda data: None if data is None else inner(data)
        scalars = frozenset(m for m in members if m in _SCALARS)
        by_tag: dict[str, Callable[[JsonData], Any]] = {}
        for member in members:
            kind, args = _classify(member, self._allowed)
            if kind == "literal":
                raise CodecError(f"unsupported union: a Literal in {members}")
            if kind == "dataclass":
                by_tag[args.__name__] = self._tagged_decoder(args)
            elif kind in _CONTAINER_TAGS:
                if kind in by_tag:
                    raise CodecError(f"ambiguous union: two {kind} types in {members}")
                by_tag[kind] = self._container_decoder(kind, args, tagged=True)

        def decode(data: JsonData) -> Any:
            if type(data) in _SEQUENCES:
                decoder = by_tag.get(data[0]) if data and type(data[0]) is str else None
                if decoder is None:
                    raise CodecError(f"unknown or missing tag {data[0]!r}" if data else "an empty sequence has no tag")
                return decoder(data)
            if type(data) in scalars:
                return data
            raise CodecError(f"{type(data).__name__} is none of the union's types")

        return decode

    def _tagged_encoder(self, cls: type) -> Callable[[Any], JsonData]:
        encoder = self._tagged_encoders.get(cls)
        return encoder if encoder is not None else self._dataclass_encoder(cls, tagged=True)

    def _tagged_decoder(self, cls: type) -> Callable[[JsonData], Any]:
        decoder = self._tagged_decoders.get(cls)
        return decoder if decoder is not None else self._dataclass_decoder(cls, tagged=True)

    # ------------------------------------------------------------ Any: self-describing

    def _encode_any(self, value: Any) -> JsonData:
        kind = type(value)
        if kind in _SCALARS:
            return value
        if kind in self._allowed:
            return self._tagged_encoder(kind)(value)
        if kind is tuple or kind is frozenset:
            return (kind.__name__, *[self._encode_any(item) for item in value])
        raise CodecError(f"cannot encode a {kind.__name__}")

    def _decode_any(self, data: JsonData) -> Any:
        kind = type(data)
        if kind in _SCALARS:
            return data
        if kind not in _SEQUENCES or not data or type(data[0]) is not str:
            raise CodecError(f"cannot decode a {kind.__name__} here")
        tag = data[0]
        if tag in _CONTAINER_TAGS:
            items = [self._decode_any(item) for item in data[1:]]
            return tuple(items) if tag == "tuple" else frozenset(items)
        cls = self._classes.get(tag)
        if cls is None:
            raise CodecError(f"unknown class {tag!r}")
        return self._tagged_decoder(cls)(data)


def _check_shareable(cls: type) -> None:
    """Raises CodecError unless equal data of ``cls`` always decodes to equal
    values of the same types (see DataCodec): no float and no field that
    takes two kinds of number, in ``cls`` or any class it holds."""
    for held in reachable_dataclasses(cls):
        for name, hint in _field_hints(held).items():
            leaves = _scalar_leaves(hint)
            if Any in leaves or float in leaves or len(leaves & _NUMBERS) > 1:
                raise CodecError(f"{cls.__qualname__} cannot be shared: {held.__qualname__}.{name} "
                                 "may hold a float, two kinds of number or anything")


def _scalar_leaves(hint: Any) -> set[Any]:
    """The scalar types (and Any) a value of ``hint`` may hold outside the dataclasses in it."""
    if hint is Any or hint in _SCALARS:
        return {hint}
    if hint is None:
        return {_NONE}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return set()
    if typing.get_origin(hint) is typing.Literal:
        return {str}
    if hint in (tuple, frozenset):
        return {Any}
    return set().union(*(_scalar_leaves(arg) for arg in typing.get_args(hint) if arg is not Ellipsis))


def _classify(hint: Any, allowed: frozenset[type]) -> tuple[str, Any]:
    """("any", None) | ("scalar", type) | ("literal", values) | ("dataclass", cls) | ("tuple" / "frozenset", args) |
    ("union", members)."""
    if hint is Any:
        return "any", None
    if hint is None or hint is _NONE:
        return "scalar", _NONE
    if hint in _SCALARS:
        return "scalar", hint
    if typing.get_origin(hint) is typing.Literal:
        values = typing.get_args(hint)
        if not all(type(value) is str for value in values):
            raise CodecError(f"unsupported type hint {hint!r} (a Literal of strings only)")
        return "literal", frozenset(values)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if hint not in allowed:
            raise CodecError(f"class {hint.__qualname__} is not allowed")
        return "dataclass", hint
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is tuple or origin is tuple:
        return "tuple", args if args else (Any, Ellipsis)
    if hint is frozenset or origin is frozenset:
        return "frozenset", args if args else (Any,)
    if origin is typing.Union or origin is types.UnionType:
        return ("any", None) if Any in args else ("union", args)
    if origin is typing.Annotated:
        return _classify(args[0], allowed)
    raise CodecError(f"unsupported type hint {hint!r}")


def _omissible_tail(fields: tuple[dataclasses.Field[Any], ...], hints: dict[str, Any]) -> tuple[JsonData, ...]:
    """The encoded defaults of the trailing fields whose default is encoded as itself (None, a bool, an
    int, a str) or as an empty tuple (an empty tuple or frozenset), which the
    encoder leaves out while they hold it. A float is never left out: -0.0
    equals 0.0."""
    tail: list[JsonData] = []
    for field in reversed(fields):
        default, hint = field.default, hints[field.name]
        if default is dataclasses.MISSING:
            break
        accepted = _scalar_types(hint)
        if accepted is not None and type(default) in accepted and type(default) in (_NONE, bool, int, str):
            tail.append(default)
        elif default is None and _inlined_shape(hint)[0] == "optional":
            tail.append(None)
        elif default in ((), frozenset()) and type(default) in (tuple, frozenset) and _classify_container(hint) == type(default):
            tail.append(())
        else:
            break
    tail.reverse()
    return tuple(tail)


def _classify_container(hint: Any) -> type | None:
    """tuple or frozenset for a homogeneous ``tuple[X, ...]`` / ``frozenset[X]`` hint (encoded as a plain tuple), else None."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return tuple
    if origin is frozenset and len(args) == 1:
        return frozenset
    return None


def _scalar_check(value: str, index: int, accepted: frozenset[type], namespace: dict[str, Any]) -> list[str]:
    """The lines of a generated coder that check field ``index`` (held in
    ``value``) is of exactly one of the ``accepted`` types."""
    namespace[f"accepted{index}"] = accepted
    if len(accepted) == 1:
        namespace[f"type{index}"] = next(iter(accepted))
        test = f"type({value}) is not type{index}"
    else:
        test = f"type({value}) not in accepted{index}"
    return [f"    if {test}:", f"        wrong_field(cls, {index}, accepted{index}, {value})"]


def _inlined_shape(hint: Any) -> tuple[str, Any]:
    """How a dataclass decoder handles a field of ``hint`` in place:
    ("literal", its values) for a ``Literal`` of strings, ("tuple", item hint) for ``tuple[X, ...]`` of a non-scalar X, ("optional",
    X) for ``X | None`` of a non-scalar X, ("", None) otherwise (its own decoder)."""
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin is typing.Literal and all(type(value) is str for value in args):
        return "literal", frozenset(args)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis and _scalar_types(args[0]) is None:
        return "tuple", args[0]
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and _NONE in args and Any not in args:
        other = args[0] if args[1] is _NONE else args[1]
        if _scalar_types(other) is None:
            return "optional", other
    return "", None


def _scalar_types(hint: Any) -> frozenset[type] | None:
    """The exact types a scalar hint (``int``, ``str | None``) accepts; None for any other hint."""
    if hint is None or hint is _NONE:
        return frozenset({_NONE})
    if hint in _SCALARS:
        return frozenset({hint})
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        members = typing.get_args(hint)
        if all(member in _SCALARS for member in members):
            return frozenset(members)
    return None


def _wrong_field(cls: type, index: int, accepted: frozenset[type], value: Any) -> None:
    raise CodecError(f"{cls.__name__}: expected {' or '.join(sorted(t.__name__ for t in accepted))} "
                     f"for field {index + 1}, got {type(value).__name__}")
def _literal_codec(values: frozenset[str]) -> Callable[[Any], Any]:
    """Encodes and decodes a ``Literal`` of strings: the string itself, one of ``values``."""

    def code(value: Any) -> Any:
        if type(value) is not str or value not in values:
            raise CodecError(f"expected one of {sorted(values)}, got {value!r}")
        return value

    return code


def _scalar_encoder(kind: type) -> Callable[[Any], JsonData]:
    def encode(value: Any) -> JsonData:
        if type(value) is not kind:  # exact: a bool is no int, a str subclass would come back a str
            raise CodecError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    return encode


def _scalar_decoder(kind: type) -> Callable[[JsonData], Any]:
    def decode(data: JsonData) -> Any:
        if type(data) is not kind:
            raise CodecError(f"expected {kind.__name__}, got {type(data).__name__}")
        return data

    return decode


def fast_construction(cls: type) -> bool:
    """Whether a value of ``cls`` may be built by ``object.__new__`` and its
    slots' setters instead of ``__init__``: a frozen dataclass with slots,
    whose ``__init__`` is the one ``dataclasses`` wrote (no ``__post_init__``,
    no field with a factory, which its ``__init__`` would run)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in vars(cls) or hasattr(cls, "__post_init__"):
        return False
    init = vars(cls).get("__init__")
    if getattr(getattr(init, "__code__", None), "co_filename", None) != _GENERATED_CODE:  # an __init__ of its own
        return False
    fields = dataclasses.fields(cls)
    return all(
        isinstance(vars(cls).get(field.name), types.MemberDescriptorType)
        and field.default_factory is dataclasses.MISSING
        for field in fields
    ) and len(fields) == len(vars(cls)["__slots__"])


def _init_fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    fields = dataclasses.fields(cls)
    if any(not field.init for field in fields):
        raise CodecError(f"{cls.__qualname__} has a field not set by __init__")
    return fields


def _field_hints(cls: type) -> dict[str, Any]:
    try:
        hints = typing.get_type_hints(cls)
        namespace = vars(sys.modules[cls.__module__])
        return {name: _resolve_strings(hint, namespace) for name, hint in hints.items()}
    except Exception as error:  # an annotation naming something that does not exist
        raise CodecError(f"cannot resolve the type hints of {cls.__qualname__}: {error}") from error


def _resolve_strings(hint: Any, namespace: dict[str, Any]) -> Any:
    """``hint`` with every name still written as a string evaluated: Python
    3.10's get_type_hints leaves those inside a builtin generic as they are
    (``tuple["Node", ...]`` keeps ``"Node"``), later versions evaluate them.
    Only builtin generics and unions are entered: a string in ``Literal`` or
    ``Annotated`` is a value, not a name."""
    if isinstance(hint, str):
        # As get_type_hints does: the text is an annotation of an allowed class, never data.
        return _resolve_strings(eval(hint, namespace), namespace)  # noqa: S307
    origin = typing.get_origin(hint)
    generic = isinstance(hint, types.GenericAlias)
    if not generic and origin is not typing.Union and origin is not types.UnionType:
        return hint
    args = typing.get_args(hint)
    resolved = tuple(arg if arg is Ellipsis else _resolve_strings(arg, namespace) for arg in args)
    if resolved == args:
        return hint
    return types.GenericAlias(origin, resolved) if generic else typing.Union[resolved]
