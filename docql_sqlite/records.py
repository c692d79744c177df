"""Records: classes that behave as `@dataclass(slots=True)` ones, without `dataclasses`.

`@dataclass` writes and compiles `__init__`, `__repr__`, `__eq__` (and more) for every
class at import, ~3.5M instructions each, and importing `dataclasses` imports `inspect`
(with ast, dis and tokenize, ~40M). For the 16 classes a structural `docql-sqlite query`
loads that was a third of its start-up (docs/benchmarks.md, issue 12). A record class
declares its fields as annotations, as a dataclass does; the methods below are written
once and read each class's field list:

    class Location(Record, frozen=True):
        path: str
        first: int | None = None
        lines: list[int] = field(default_factory=list)

        def __post_init__(self) -> None: ...   # called by __init__, as in a dataclass

What a record does: `__slots__` for its fields, `__init__` (positional or keyword
arguments, defaults, `default_factory`, keyword-only fields, `__post_init__`), `__repr__`,
`__eq__` over the compared fields (`field(compare=False)` leaves one out; `eq=False`:
identity), `__hash__` over them when frozen (unhashable when mutable, as a dataclass),
`frozen=True` (inherited by subclasses; assignment raises `AttributeError`; a
`__post_init__` sets fields with `object.__setattr__`, as in a frozen dataclass), pickling
and copying, `fields()` and `replace()`. Type checkers see a dataclass
(`typing.dataclass_transform`).
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar, dataclass_transform

    # For type checkers only: at run time a TypeVar with a bound named in a string builds
    # a ForwardRef, whose compile() cost 11M instructions (a twelfth of a query's start-up).
    R = TypeVar("R", bound="Record")
else:

    def dataclass_transform(**_: Any) -> Any:
        # At run time typing's only marks the class for introspection; this one spares
        # the import of typing (~15M instructions of a query's start-up).
        return lambda metaclass: metaclass


MISSING: Any = type("MISSING", (), {"__repr__": lambda self: "MISSING"})()


class Field:
    """A record field: its name, its default or default factory (`MISSING`: none), whether
    equality and hashing use it, and whether it is keyword-only."""

    __slots__ = ("name", "default", "default_factory", "compare", "kw_only")

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Any = MISSING,
        compare: bool = True,
        kw_only: bool = False,
    ) -> None:
        self.name = ""
        self.default, self.default_factory = default, default_factory
        self.compare, self.kw_only = compare, kw_only

    def __repr__(self) -> str:
        return f"Field({self.name!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | Any = MISSING,
    compare: bool = True,
    kw_only: bool = False,
) -> Any:
    """Declare a field with options (the `dataclasses.field` of records): a default or a
    default factory; `compare=False` leaves it out of equality and hashing (a source
    position, say); `kw_only=True` makes it keyword-only wherever it is declared."""
    return Field(default, default_factory, compare, kw_only)


def fields(record: Record | type[Record]) -> tuple[Field, ...]:
    """The fields of a record (class), in declaration order, base classes' first."""
    return record._fields


def replace(record: R, **changes: Any) -> R:
    """A new record with `changes` (`__post_init__` runs again, as `dataclasses.replace`)."""
    values = {f.name: getattr(record, f.name) for f in record._fields}
    values.update(changes)
    return type(record)(**values)


def _rebuild(cls: type[Record], values: tuple[Any, ...]) -> Record:
    """Unpickle: the fields set as they were, no `__init__` (as a dataclass unpickles)."""
    record = object.__new__(cls)
    for name, value in zip(cls._names, values):
        object.__setattr__(record, name, value)
    return record


def _frozen_setattr(self: Record, name: str, value: Any) -> None:
    raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")


def _frozen_delattr(self: Record, name: str) -> None:
    raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")


def _field_hash(self: Record) -> int:
    return hash(tuple(getattr(self, name) for name in self._compared))


@dataclass_transform(field_specifiers=(field,))
class _RecordType(type):
    """Reads each record class's fields from its annotations and gives the class
    `__slots__` for them (a metaclass: slots must exist when the class is made)."""

    # What every record class has (set in its namespace below), for type checkers.
    _fields: tuple[Field, ...]
    _frozen: bool

    def __new__(
        mcs,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        frozen: bool = False,
        eq: bool = True,
    ) -> _RecordType:
        # Every table goes into the namespace before the class is made (setting attributes
        # on a made class costs more), and each is one pass over the fields: a structural
        # query's start-up makes ~30 record classes (docs/benchmarks.md, issue 21).
        inherited: tuple[Field, ...] | None = None
        for base in bases:
            if isinstance(base, _RecordType):
                if inherited is None:
                    inherited = base._fields
                frozen = frozen or base._frozen
        declared = []
        for field_name, annotation in namespace.get("__annotations__", {}).items():
            if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                continue
            # The default moves into the Field: a slot cannot have a class attribute.
            value = namespace.pop(field_name, MISSING)
            spec = value if isinstance(value, Field) else Field(value)
            spec.name = field_name
            declared.append(spec)
        every = (*inherited, *declared) if inherited else tuple(declared)
        names = tuple([f.name for f in every])
        # __init__'s order: the positional fields, then the keyword-only ones (as the
        # parameters of a dataclass's __init__); n positional arguments fill the first n.
        init_order = tuple([f for f in every if not f.kw_only])
        positional = tuple([f.name for f in init_order])
        if len(init_order) < len(every):
            init_order += tuple([f for f in every if f.kw_only])
        compared = tuple([f.name for f in every if f.compare])
        namespace["__slots__"] = tuple([f.name for f in declared])
        namespace["_fields"] = every
        namespace["_names"] = names
        namespace["_compared"] = names if compared == names else compared
        namespace["_positional"] = namespace["__match_args__"] = positional
        namespace["_init_order"] = init_order
        # A record class inherits frozenness, as a dataclass must (a mutable subclass of a
        # frozen one is an error there).
        namespace["_frozen"] = frozen
        if bases:  # not Record itself
            if frozen:
                namespace.setdefault("__setattr__", _frozen_setattr)
                namespace.setdefault("__delattr__", _frozen_delattr)
            if not eq:
                namespace["__eq__"] = object.__eq__
                namespace["__hash__"] = object.__hash__
            elif "__hash__" not in namespace:
                namespace["__hash__"] = _field_hash if frozen else None
        return super().__new__(mcs, name, bases, namespace)


class Record(metaclass=_RecordType):
    """Base of all records (see the module docstring)."""

    _fields: ClassVar[tuple[Field, ...]] = ()
    _names: ClassVar[tuple[str, ...]] = ()
    _compared: ClassVar[tuple[str, ...]] = ()
    _positional: ClassVar[tuple[str, ...]] = ()
    _init_order: ClassVar[tuple[Field, ...]] = ()
    _frozen: ClassVar[bool] = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = self._positional
        if len(args) > len(names):
            raise TypeError(
                f"{type(self).__name__}() takes {len(names)} positional arguments, got {len(args)}"
            )
        setter = object.__setattr__
        for name, value in zip(names, args):
            setter(self, name, value)
        for spec in self._init_order[len(args) :]:
            if spec.name in kwargs:
                value = kwargs.pop(spec.name)
            elif spec.default is not MISSING:
                value = spec.default
            elif spec.default_factory is not MISSING:
                value = spec.default_factory()
            else:
                raise TypeError(f"{type(self).__name__}() missing argument {spec.name!r}")
            setter(self, spec.name, value)
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}() got an unexpected argument {next(iter(kwargs))!r}"
            )
        post_init = getattr(self, "__post_init__", None)
        if post_init is not None:
            post_init()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._names)
        return f"{type(self).__name__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        names = self._compared
        return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), tuple(getattr(self, n) for n in self._names)))
