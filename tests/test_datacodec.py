"""The data codec: any tree of frozen dataclasses round-trips through JSON data,
and data that does not fit the type hints or names a class outside the
allow-list raises CodecError, never builds something else."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mmlint.core.datacodec import CodecError, DataCodec, reachable_dataclasses
from mmlint.facts import ir


@dataclass(frozen=True, slots=True)
class Leaf:
    index: int


@dataclass(frozen=True, slots=True)
class Label:
    text: str
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class Group:
    items: tuple["Tree", ...]
    names: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Pair:
    first: "Tree"
    second: Optional["Tree"]
    flag: bool
    coordinates: tuple[int, str]


Tree = Union[Leaf, Label, Group, Pair]


@dataclass(frozen=True, slots=True)
class Root:
    tree: Tree
    note: str | None
    extra: Any = None
    mixed: int | str | tuple[int, ...] = 0


@dataclass(frozen=True)
class Secret:
    payload: str


ALLOWED = reachable_dataclasses(Root)


def test_reachable_dataclasses_follow_unions_tuples_and_forward_references():
    assert ALLOWED == {Root, Leaf, Label, Group, Pair}


@dataclass(frozen=True, slots=True)
class Nested:
    """Names written as strings deep inside builtin generics: Python 3.10's
    get_type_hints leaves them strings, and the codec resolves them itself."""

    groups: frozenset[tuple["Leaf", ...]]
    either: tuple["Leaf | None", "tuple[Label, ...]"]


def test_names_inside_builtin_generics_resolve_on_every_python():
    value = Nested(frozenset({(Leaf(1), Leaf(2)), ()}), (None, (Label("x"),)))
    assert roundtrip(DataCodec({Nested, Leaf, Label}), value, Nested) == value
    # The IR of the facts is written this way: it must go through the codec's plans, too.
    body = ir.Seq((ir.Loop(ir.Branch((ir.AwaitPoint(0), ir.EMPTY)), ir.EMPTY, False), ir.Try(ir.Exit("return"), (), ir.EMPTY, ir.EMPTY)))
    assert roundtrip(DataCodec(reachable_dataclasses(ir.Node)), body, ir.Node) == body


def roundtrip(codec, value, hint=Root):
    data = json.loads(json.dumps(codec.encode(value, hint)))
    return codec.decode(data, hint)


SAMPLE = Root(
    tree=Group((Leaf(1), Pair(Label("a", 0.5), None, True, (3, "x")), Group((), frozenset({"p", "q"})))),
    note=None,
    extra=(Leaf(2), frozenset({1, 2}), ("nested", None, 1.5, False)),
    mixed=(1, 2),
)


def test_roundtrip_keeps_every_type():
    codec = DataCodec(ALLOWED)
    back = roundtrip(codec, SAMPLE)
    assert back == SAMPLE
    assert type(back.extra[1]) is frozenset and type(back.tree.items) is tuple and type(back.mixed) is tuple
    nested = codec.decode([["Leaf", 1], "n", ["frozenset", ["tuple"], ["frozenset"]], 0], Root)
    assert nested.extra == frozenset({(), frozenset()})


def test_encoding_is_positional_and_tags_only_where_the_hint_is_open():
    codec = DataCodec(ALLOWED)
    assert codec.encode(Root(Leaf(1), "n"), Root) == (("Leaf", 1), "n", None, 0)
    assert codec.encode(Pair(Leaf(1), Leaf(2), False, (1, "a")), Pair) == (("Leaf", 1), ("Leaf", 2), False, (1, "a"))


trees = st.deferred(
    lambda: st.one_of(
        st.builds(Leaf, st.integers()),
        st.builds(Label, st.text(), st.floats(allow_nan=False)),
        st.builds(Group, st.lists(trees, max_size=3).map(tuple), st.frozensets(st.text(max_size=3), max_size=3)),
        st.builds(Pair, trees, st.none() | trees, st.booleans(), st.tuples(st.integers(), st.text())),
    )
)


@given(trees, st.none() | st.text(), st.one_of(st.integers(), st.text(), st.lists(st.integers()).map(tuple)))
def test_any_tree_roundtrips(tree, note, mixed):
    value = Root(tree, note, extra=tree, mixed=mixed)
    assert roundtrip(DataCodec(ALLOWED), value) == value


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"tree": 1},
        [["Leaf", 1], "n", None],  # arity
        [["Leaf", 1], "n", None, 0, 0],
        [["Leaf", "1"], "n", None, 0],  # a str for an int
        [["Leaf", True], "n", None, 0],  # a bool is no int
        [["Leaf", 1.0], "n", None, 0],
        [["Label", 1], "n", None, 0],  # wrong field type after a valid tag
        [["Secret", "x"], "n", None, 0],  # a class outside the allow-list
        [["Nope", 1], "n", None, 0],
        [[], "n", None, 0],
        [[1, 1], "n", None, 0],
        [["Leaf", 1], 5, None, 0],
        [["Leaf", 1], "n", {"a": 1}, 0],  # no dicts anywhere
        [["Leaf", 1], "n", ["Secret", "x"], 0],  # Any still only builds allowed classes
        [["Leaf", 1], "n", ["tuple", {"a": 1}], 0],
        [["Leaf", 1], "n", None, 1.5],  # none of the union's types
        [["Leaf", 1], "n", None, ["frozenset", 1]],
        [["Group", [["Leaf", 1]], "abc"], "n", None, 0],  # a str is no frozenset
        [["Pair", ["Leaf", 1], None, False, [1]], "n", None, 0],  # fixed tuple arity
        [["Pair", ["Leaf", 1], None, False, [1, 2]], "n", None, 0],
        [["Group", [["Leaf", 1]], [["Leaf", 2]]], "n", None, 0],  # a str set holding a tagged value
    ],
)
def test_data_that_does_not_fit_raises_codec_error(data):
    with pytest.raises(CodecError):
        DataCodec(ALLOWED).decode(data, Root)


def test_values_that_do_not_fit_are_not_encoded():
    codec = DataCodec(ALLOWED)
    for value in (
        Root(Leaf("1"), None),  # type: ignore[arg-type]
        Root(Leaf(True), None),
        Root(Group([Leaf(1)]), None),  # a list is no tuple
        Root(Leaf(1), None, extra=Secret("x")),
        Root(Leaf(1), None, extra={"a": 1}),
        Root(Leaf(1), None, mixed=1.5),  # type: ignore[arg-type]
        Root(Secret("x"), None),  # type: ignore[arg-type]
    ):
        with pytest.raises(CodecError):
            codec.encode(value, Root)


def test_too_deep_data_is_a_codec_error():
    codec = DataCodec(ALLOWED)
    data: list = ["Leaf", 1]
    for _ in range(5000):
        data = ["Group", [data], []]
    with pytest.raises(CodecError):
        codec.decode([data, None, None, 0], Root)


@dataclass(frozen=True, slots=True)
class Kinded:
    kind: Literal["def", "async def"]
    chain: tuple[Literal["def", "async def"], ...] = ()


def test_a_literal_field_holds_only_its_values():
    codec = DataCodec({Kinded})
    value = Kinded("async def", ("def", "async def"))
    assert codec.encode(value, Kinded) == ("async def", ("def", "async def"))
    assert codec.decode(json.loads(json.dumps(codec.encode(value, Kinded))), Kinded) == value
    for data in (["lambda", []], ["def", ["class"]], [1, []]):
        with pytest.raises(CodecError):
            codec.decode(data, Kinded)
    with pytest.raises(CodecError):
        codec.encode(Kinded("class"), Kinded)  # type: ignore[arg-type]  # the value the checker would refuse


def test_unsupported_hints_and_ambiguous_unions_are_refused():
    @dataclass(frozen=True)
    class WithList:
        items: list[int]

    @dataclass(frozen=True)
    class Ambiguous:
        value: tuple[int, ...] | tuple[str, ...] | None | int

    @dataclass(frozen=True)
    class Computed:
        value: int
        derived: int = field(init=False, default=0)

    @dataclass(frozen=True)
    class NumberLiteral:
        value: Literal[1, 2]

    @dataclass(frozen=True)
    class LiteralInUnion:
        value: Literal["a"] | int

    cases = (
        (WithList, WithList([1])), (Ambiguous, Ambiguous(1)), (Computed, Computed(1)),
        (NumberLiteral, NumberLiteral(1)), (LiteralInUnion, LiteralInUnion(1)),
    )
    for cls, value in cases:
        codec = DataCodec({cls})
        with pytest.raises(CodecError):
            codec.encode(value, cls)
        with pytest.raises(CodecError):  # and the failed plan is not reused half-built
            codec.encode(value, cls)


def test_two_allowed_classes_may_not_share_a_tag():
    other_leaf = type("Leaf", (), {})
    other_leaf = dataclass(frozen=True)(other_leaf)
    with pytest.raises(CodecError):
        DataCodec({Leaf, other_leaf})


@dataclass(frozen=True, slots=True)
class Nothing:
    pass


@dataclass(frozen=True, slots=True)
class Holder:
    only: Nothing | Leaf
    maybe: Optional[Nothing]


def test_classes_of_no_field_and_of_one_roundtrip_tagged_and_not():
    codec = DataCodec(reachable_dataclasses(Holder))
    for value in (Holder(Nothing(), None), Holder(Leaf(3), Nothing())):
        data = codec.encode(value, Holder)
        assert codec.decode(json.loads(json.dumps(data)), Holder) == value
    assert codec.decode([], Nothing) == Nothing() and codec.decode([["Nothing"], []], Holder) == Holder(Nothing(), Nothing())
    for bad in ([["Nothing", 1], None], [["Leaf"], None], [["Leaf", 1, 2], None], [["Nothing"], [1]]):
        with pytest.raises(CodecError):
            codec.decode(bad, Holder)


def test_a_field_of_the_wrong_type_is_named_with_what_it_accepts():
    with pytest.raises(CodecError, match=r"Root: expected NoneType or str for field 2, got int"):
        DataCodec(ALLOWED).decode([["Leaf", 1], 5, None, 0], Root)


# -- building values: without __init__'s per-field setattr, and shared where asked ------------------


@dataclass(frozen=True, slots=True)
class Ref:
    kind: Literal["self", "name"]
    text: str


@dataclass(frozen=True, slots=True)
class Use:
    ref: Ref
    where: Optional[Leaf]
    refs: tuple[Ref, ...]


@dataclass(frozen=True, slots=True)
class Checked:
    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("negative")


@dataclass(frozen=True, slots=True)
class Numbers:
    either: int | float


@dataclass(frozen=True, slots=True)
class Loose:
    leaf: Leaf
    value: Any


def test_values_built_without_init_equal_those_built_with_it() -> None:
    codec = DataCodec(reachable_dataclasses(Use))
    value = Use(Ref("self", "run"), Leaf(3), (Ref("name", "f"), Ref("self", "g")))
    decoded = codec.decode(json.loads(json.dumps(codec.encode(value, Use))), Use)
    assert decoded == value and hash(decoded) == hash(value)
    with pytest.raises(AttributeError):  # still frozen
        decoded.ref = Ref("name", "x")  # type: ignore[misc]


def test_a_class_with_a_post_init_is_built_through_it() -> None:
    codec = DataCodec([Checked])
    assert codec.decode([4], Checked) == Checked(4)
    with pytest.raises(CodecError):
        codec.decode([-1], Checked)


def test_shared_classes_are_decoded_once_per_distinct_data() -> None:
    import marshal

    codec = DataCodec(reachable_dataclasses(Use), shared=(Ref, Use))
    value = Use(Ref("self", "run"), None, (Ref("self", "run"), Ref("name", "run")))
    data = codec.encode(value, Use)
    first = codec.decode(data, Use)
    again = codec.decode(marshal.loads(marshal.dumps(data)), Use)  # equal data, other objects
    assert first is again and first.ref is first.refs[0]  # one object for equal data, across decodes
    assert first.refs[1] is not first.ref and first.refs[1] == Ref("name", "run")
    through_json = codec.decode(json.loads(json.dumps(data)), Use)  # lists are no key: decoded afresh
    assert through_json == value and through_json is not first
    unshared = DataCodec(reachable_dataclasses(Use)).decode(data, Use)
    assert unshared == first and unshared.ref is not unshared.refs[0]


def test_a_shared_tree_is_decoded_once_per_distinct_subtree() -> None:
    codec = DataCodec(reachable_dataclasses(ir.Node), shared=reachable_dataclasses(ir.Node))
    arm = ir.Seq((ir.AwaitPoint(0), ir.Exit("return")))
    body = ir.Seq((ir.Branch((arm, ir.EMPTY)), ir.Loop(ir.Seq((ir.AwaitPoint(0), ir.Exit("return"))), ir.EMPTY, False)))
    decoded = codec.decode(codec.encode(body, ir.Node), ir.Node)
    assert decoded == body and decoded.items[0].arms[0] is decoded.items[1].body


def test_a_shared_class_still_checks_its_fields() -> None:
    codec = DataCodec(reachable_dataclasses(Use), shared=(Ref,))
    with pytest.raises(CodecError):
        codec.decode(["other", "run"], Ref)
    with pytest.raises(CodecError):
        codec.decode(["self", 3], Ref)


def test_only_classes_whose_equal_data_means_equal_values_can_be_shared() -> None:
    with pytest.raises(CodecError, match="cannot be shared: Numbers.either"):
        DataCodec([Numbers], shared=[Numbers])  # 1 == 1.0: they would mix
    with pytest.raises(CodecError, match="cannot be shared: Label.weight"):
        DataCodec(reachable_dataclasses(Root), shared=[Group])  # a float, two classes down: -0.0 == 0.0
    with pytest.raises(CodecError, match="cannot be shared: Loose.value"):
        DataCodec([Loose, Leaf], shared=[Loose])  # Any
    with pytest.raises(CodecError, match="allowed"):
        DataCodec([Leaf], shared=[Ref])
    DataCodec(reachable_dataclasses(Use), shared=[Use, Ref, Leaf])  # strings, a Literal, one int


def test_the_encoder_checks_what_it_unrolls() -> None:
    codec = DataCodec(reachable_dataclasses(Use))
    with pytest.raises(CodecError):
        codec.encode(Use(Ref("other", "x"), None, ()), Use)  # type: ignore[arg-type]
    with pytest.raises(CodecError):
        codec.encode(Use(Ref("self", "x"), None, [Ref("self", "y")]), Use)  # type: ignore[arg-type]  # a list, no tuple
    with pytest.raises(CodecError):
        codec.encode(Use(Ref("self", 1), None, ()), Use)  # type: ignore[arg-type]


def test_which_classes_are_built_without_init() -> None:
    from mmlint.core.datacodec import fast_construction
    from mmlint.facts.model import CallRef, FileFacts

    assert fast_construction(CallRef) and fast_construction(FileFacts) and fast_construction(Use)
    assert not fast_construction(Checked)  # its __post_init__ must run
    assert not fast_construction(Secret)  # no slots: its __init__ is all there is


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    leaf: Leaf | None = None
    count: int = 0
    scale: float = 0.0
    done: bool = False
    note: str | None = None
    parts: tuple[Leaf, ...] = ()
    tags: frozenset[str] = frozenset()


def test_trailing_fields_that_hold_their_defaults_are_left_out() -> None:
    codec = DataCodec(reachable_dataclasses(Call))
    assert codec.encode(Call("f"), Call) == ("f", None, 0, 0.0)  # a float is always written: -0.0 == 0.0
    assert codec.encode(Call("f", scale=-0.0), Call) == ("f", None, 0, -0.0)
    assert codec.encode(Call("f", done=True), Call) == ("f", None, 0, 0.0, True)
    assert codec.encode(Call("f", tags=frozenset({"a"})), Call) == ("f", None, 0, 0.0, False, None, (), ("a",))
    assert codec.encode(Call("f"), Any) == ("Call", "f", None, 0, 0.0)
    for value in (Call("f"), Call("f", scale=-0.0), Call("f", Leaf(1), 2, 1.5, True, "n", (Leaf(3),), frozenset({"t"}))):
        for hint in (Call, Any):
            back = roundtrip(codec, value, hint)
            assert back == value and type(back.parts) is tuple and type(back.tags) is frozenset
    assert str(codec.decode(["f", None, 0, -0.0], Call).scale) == "-0.0"


def test_the_encoding_is_tuples_that_marshal_writes_and_lists_decode_alike() -> None:
    """The facts cache writes the encoding with marshal (tuples read back
    fastest); the same data through JSON comes back as lists."""
    import marshal

    codec = DataCodec(reachable_dataclasses(Call))
    value = Call("f", Leaf(1), 2, 1.5, True, "n", (Leaf(3), Leaf(4)), frozenset({"t"}))
    for hint in (Call, Any):
        data = codec.encode(value, hint)
        assert type(data) is tuple and all(type(item) is not list for item in data)
        assert codec.decode(marshal.loads(marshal.dumps(data)), hint) == value
        assert codec.decode(json.loads(json.dumps(data)), hint) == value


def test_a_list_with_the_defaults_written_out_decodes_the_same() -> None:
    codec = DataCodec(reachable_dataclasses(Call))
    assert codec.decode(["f", None, 0, 0.0, False, None, [], []], Call) == Call("f")
    assert codec.decode(["Call", "f", None, 0, 0.0, False], Any) == Call("f")


@pytest.mark.parametrize(
    "data",
    [
        ["f", None, 0],  # the float is never left out
        ["f", None, 0, 0.0, False, None, [], [], None],  # too long
        ["f", None, 0, 0.0, 0],  # an int for a bool
        ["f", None, 0, 0.0, False, 1],
        ["f", None, 0, 0.0, False, None, "ab"],
        "f",
    ],
)
def test_a_shortened_list_is_still_checked(data) -> None:
    with pytest.raises(CodecError):
        DataCodec(reachable_dataclasses(Call)).decode(data, Call)
