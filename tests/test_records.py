"""`docql_sqlite.records` behaves as `@dataclass(slots=True)` does, the oracle being the
same class written as a real dataclass: construction (positional, keyword, defaults,
factories, `__post_init__`), errors, repr, equality and hashing, frozenness, `fields` and
`replace`, pickling and copying."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest

from docql_sqlite import records
from docql_sqlite.options import IngestOptions, QueryOptions, SearchOptions


class Point(records.Record, frozen=True):
    x: int
    y: int = 0
    tags: list[str] = records.field(default_factory=list)

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", int(self.x))


@dataclasses.dataclass(frozen=True, slots=True)
class PointDC:
    x: int
    y: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", int(self.x))


class Box(records.Record):
    width: int
    label: str = "box"


@dataclasses.dataclass(slots=True)
class BoxDC:
    width: int
    label: str = "box"


class Handle(records.Record, frozen=True, eq=False):
    name: str


CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((1,), {}),
    ((1, 2), {}),
    (("3",), {"y": 4}),
    ((), {"x": 5, "tags": ["a"]}),
    ((1, 2, ["b"]), {}),
]


def hashed(obj: Any) -> Any:
    try:
        return hash(obj)
    except TypeError as exc:
        return str(exc)


def as_fields(obj: Any) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in obj.__slots__}


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_a_record_is_built_as_the_dataclass_is(args: tuple[Any, ...], kwargs: dict) -> None:
    mine, theirs = Point(*args, **kwargs), PointDC(*args, **kwargs)
    assert as_fields(mine) == dataclasses.asdict(theirs)
    assert repr(mine).replace("Point(", "") == repr(theirs).replace("PointDC(", "")
    assert hashed(mine) == hashed(theirs)  # a list field: unhashable for both
    assert hashed(Point(1, 2, ())) == hashed(PointDC(1, 2, ()))  # type: ignore[arg-type]
    assert mine == Point(*args, **kwargs) and mine != Point(99)
    assert mine.__eq__(theirs) is NotImplemented  # another class: not equal, as a dataclass


@pytest.mark.parametrize(
    ("args", "kwargs"), [((), {}), ((1, 2, [], 4), {}), ((1,), {"z": 1}), ((1,), {"x": 2})]
)
def test_wrong_arguments_are_type_errors_as_for_the_dataclass(
    args: tuple[Any, ...], kwargs: dict
) -> None:
    with pytest.raises(TypeError):
        PointDC(*args, **kwargs)
    with pytest.raises(TypeError):
        Point(*args, **kwargs)


def test_default_factories_give_each_record_its_own_value() -> None:
    a, b = Point(1), Point(2)
    a.tags.append("x")
    assert b.tags == [] and a.tags == ["x"]


def test_frozen_records_refuse_assignment_and_mutable_ones_take_it() -> None:
    point = Point(1)
    with pytest.raises(AttributeError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.y  # type: ignore[misc]
    with pytest.raises(AttributeError):
        point.other = 1  # type: ignore[attr-defined]
    box = Box(3)
    box.width = 4
    assert box.width == 4 and as_fields(box) == dataclasses.asdict(BoxDC(4))
    with pytest.raises(TypeError):
        hash(box)  # eq without frozen: unhashable, as a dataclass
    with pytest.raises(TypeError):
        hash(BoxDC(4))


def test_eq_false_keeps_identity() -> None:
    a, b = Handle("h"), Handle("h")
    assert a != b and a == a and hash(a) != hash(b)


def test_fields_and_replace() -> None:
    assert [f.name for f in records.fields(Point)] == [f.name for f in dataclasses.fields(PointDC)]
    point = Point(1, 2, ["t"])
    moved = records.replace(point, x="7")
    assert moved == Point(7, 2, ["t"]) and point == Point(1, 2, ["t"])  # __post_init__ ran
    assert dataclasses.replace(PointDC(1, 2, ["t"]), x="7") == PointDC(7, 2, ["t"])


@pytest.mark.parametrize(
    "obj",
    [
        Point(1, 2, ["a"]),
        Box(3, "lid"),
        QueryOptions(paths=("*.md",), limit=3),
        SearchOptions(mode="bm25", weights={"bm25": 2}),
        IngestOptions(include=("*.md",), workers=1),
    ],
    ids=lambda o: type(o).__name__,
)
def test_pickle_and_copy_round_trip(obj: Any) -> None:
    for clone in (pickle.loads(pickle.dumps(obj)), copy.copy(obj), copy.deepcopy(obj)):
        assert type(clone) is type(obj)
        assert as_fields(clone) == as_fields(obj)


def test_options_still_check_themselves() -> None:
    from docql_sqlite.errors import OptionError
    from docql_sqlite.options import with_overrides

    with pytest.raises(OptionError):
        QueryOptions(limit=-1)
    assert with_overrides(None, QueryOptions, {"limit": 2}).limit == 2
    with pytest.raises(OptionError, match="unknown option nope"):
        with_overrides(None, QueryOptions, {"nope": 1})


# -- keyword-only and uncompared fields, inherited frozenness (what query/nodes.py uses) --
class Spot(records.Record, frozen=True):
    at: int = records.field(default=0, compare=False, kw_only=True)


class Word(Spot, frozen=True):
    text: str
    spelling: str = records.field(default="", compare=False, kw_only=True)


@dataclasses.dataclass(frozen=True, slots=True)
class SpotDC:
    at: int = dataclasses.field(default=0, compare=False, kw_only=True)


@dataclasses.dataclass(frozen=True, slots=True)
class WordDC(SpotDC):
    text: str
    spelling: str = dataclasses.field(default="", compare=False, kw_only=True)


WORD_CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    (("a",), {}),
    (("a",), {"at": 3}),
    ((), {"text": "b", "spelling": "B", "at": 1}),
]


@pytest.mark.parametrize(("args", "kwargs"), WORD_CALLS)
def test_keyword_only_and_uncompared_fields_as_a_dataclass(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    record, oracle = Word(*args, **kwargs), WordDC(*args, **kwargs)
    assert [f.name for f in records.fields(record)] == [f.name for f in dataclasses.fields(oracle)]
    assert {f.name: getattr(record, f.name) for f in records.fields(record)} == (
        dataclasses.asdict(oracle)
    )
    assert Word.__match_args__ == WordDC.__match_args__ == ("text",)
    moved = Word(*args, **{**kwargs, "at": 99, "spelling": "other"})
    assert (moved == record, hash(moved) == hash(record)) == (True, True)
    assert WordDC(*args, **{**kwargs, "at": 99, "spelling": "other"}) == oracle
    assert Word("z") != record


@pytest.mark.parametrize(("args", "kwargs"), [(("a", 1), {}), ((), {}), (("a",), {"nope": 1})])
def test_keyword_only_errors_as_a_dataclass(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        WordDC(*args, **kwargs)
    with pytest.raises(TypeError):
        Word(*args, **kwargs)


def test_a_subclass_of_a_frozen_record_is_frozen() -> None:
    word = Word("a")
    with pytest.raises(AttributeError, match="frozen"):
        word.text = "b"  # type: ignore[misc]
    assert hash(word) == hash(Word("a", at=5))
