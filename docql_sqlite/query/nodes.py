"""The DocQL syntax tree: frozen records, their JSON form, and canonical rendering.

This module owns the shape of a parsed query (what the parser builds and the compiler
reads) and `render`, which prints a tree back as canonical DocQL text that parses to an
equal tree. It knows nothing about which roots, functions or fields exist.

Every node has a keyword-only `offset` (0-based into the query text) so later stages
can point errors at it. Offsets and other source-position fields are declared with
`compare=False`: trees compare equal whatever their spacing, which is what the tests
and the render round trip need.
"""

from __future__ import annotations

from collections.abc import Iterator

from docql_sqlite.records import Record, field, fields

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

OPS = ("==", "!=", "contains", "=~", "startswith", "endswith", ">", ">=", "<", "<=", "exists")
LITERAL_KINDS = ("string", "number", "regex", "bool", "null")


# Nodes are records (docql_sqlite/records.py): frozen, slotted, compared over their
# non-position fields, without the import cost of @dataclass on a query's start-up path.
_field = field  # for Compare, whose `field` attribute hides the function


class Node(Record, frozen=True):
    """Base of all nodes. `offset`: where the node starts in the query (0-based)."""

    # Positions are keyword-only and not compared: two trees that differ only in where
    # they were written are equal. (Spelled out each time: mypy reads `field(...)` calls.)
    offset: int = field(default=0, compare=False, kw_only=True)

    def to_dict(self, *, positions: bool = False) -> dict[str, Any]:
        """A JSON-ready dict with a "node" key naming the class.

        Position fields (`offset`, `field_offset`, `op_offset`, `text`) are included only
        with `positions=True`; `Query.source` never is.
        """
        out: dict[str, Any] = {"node": type(self).__name__}
        for f in fields(self):
            if f.name == "source" or (not f.compare and not positions):
                continue
            out[f.name] = _plain(getattr(self, f.name), positions)
        return out


def _plain(value: Any, positions: bool) -> Any:
    if isinstance(value, Node):
        return value.to_dict(positions=positions)
    if isinstance(value, tuple):
        return [_plain(v, positions) for v in value]
    return value


# ---- values ---------------------------------------------------------------


class Regex(Node, frozen=True):
    """A regex literal. `pattern` as written between the slashes; `flags` ⊆ "ims", in that order."""

    pattern: str
    flags: str = ""


class Literal(Node, frozen=True):
    """A value or argument. `kind` is one of LITERAL_KINDS.

    value: str (string), int or float (number), Regex (regex), bool (bool), None (null).
    `text` is the source spelling (e.g. `1.10` for the number 1.1), for messages and
    for functions such as chapter() that may care how a number was written.
    """

    value: str | int | float | bool | None | Regex
    kind: str
    text: str = field(default="", compare=False, kw_only=True)


# ---- filter expressions ---------------------------------------------------


class Compare(Node, frozen=True):
    """`@.field op value`, or `@.field` alone (op "exists", value None).

    `op` is normalised: one of OPS. `offset` is the '@'; `field_offset` the field name;
    `op_offset` the operator (None for "exists").
    """

    field: str
    op: str
    value: Literal | None = None
    field_offset: int = _field(default=0, compare=False, kw_only=True)
    op_offset: int | None = _field(default=None, compare=False, kw_only=True)


class And(Node, frozen=True):
    """`a && b && ...` (two or more items, as written; parenthesised groups stay nested)."""

    items: tuple[Expr, ...]


class Or(Node, frozen=True):
    """`a || b || ...` (two or more items)."""

    items: tuple[Expr, ...]


class Not(Node, frozen=True):
    """`!item`. `offset` is the '!'."""

    item: Expr


Expr = Compare | And | Or | Not


# ---- steps ----------------------------------------------------------------


class Property(Node, frozen=True):
    """`.name`. `offset` is the name (not the dot), for "unknown root/field" errors."""

    name: str


class Call(Node, frozen=True):
    """`.name(args)`. `offset` is the name. Args are string, number or regex literals."""

    name: str
    args: tuple[Literal, ...] = ()


class Wildcard(Node, frozen=True):
    """`[*]`. `offset` is the '['."""


class Position(Node, frozen=True):
    """`[n]`, n may be negative. `offset` is the '['."""

    value: int


class Slice(Node, frozen=True):
    """`[start:stop]`, Python-style; either bound may be None. `offset` is the '['."""

    start: int | None = None
    stop: int | None = None


class Filter(Node, frozen=True):
    """`[?(expr)]` or `[?expr]`. `offset` is the '['."""

    expr: Expr


Step = Property | Call | Wildcard | Position | Slice | Filter


class Query(Node, frozen=True):
    """`$` followed by steps. `source` is the query text, for error carets."""

    steps: tuple[Step, ...] = ()
    source: str = field(default="", compare=False, kw_only=True)


def walk(node: Node) -> Iterator[Node]:
    """`node` and every node below it, pre-order."""
    yield node
    for f in fields(node):
        value = getattr(node, f.name)
        children = value if isinstance(value, tuple) else (value,)
        for child in children:
            if isinstance(child, Node):
                yield from walk(child)


# ---- canonical text -------------------------------------------------------

_OP_TEXT = {"contains": "~=", "startswith": "startsWith", "endswith": "endsWith"}
_STRING_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t"}


def render(node: Node) -> str:
    """Canonical DocQL text for `node`; `parse(render(q)) == q` for any parsed query `q`.

    Canonical form: no spaces inside steps, filters as `[?(...)]`, one space around
    operators, `&&` and `||`, operators `==` `~=` `startsWith` `endsWith`, strings in
    double quotes, parentheses only where the tree needs them.
    """
    match node:
        case Query(steps=steps):
            return "$" + "".join(render(s) for s in steps)
        case Property(name=name):
            return "." + name
        case Call(name=name, args=args):
            return f".{name}({', '.join(render(a) for a in args)})"
        case Wildcard():
            return "[*]"
        case Position(value=value):
            return f"[{value}]"
        case Slice(start=start, stop=stop):
            return f"[{'' if start is None else start}:{'' if stop is None else stop}]"
        case Filter(expr=expr):
            return f"[?({render(expr)})]"
        case Compare(field=name, op="exists"):
            return "@." + name
        case Compare(field=name, op=op, value=value):
            return f"@.{name} {_OP_TEXT.get(op, op)} {render(value) if value else 'null'}"
        case And(items=items):
            return " && ".join(_group(i, (And, Or)) for i in items)
        case Or(items=items):
            # And binds tighter than Or, so only a nested Or needs parentheses.
            return " || ".join(_group(i, (Or,)) for i in items)
        case Not(item=item):
            return "!" + _group(item, (And, Or))
        case Literal(value=value, kind=kind):
            return _render_literal(value, kind)
        case Regex(pattern=pattern, flags=flags):
            return f"/{pattern}/{flags}"
    raise TypeError(f"not a DocQL node: {node!r}")


def _group(node: Node, needs_parens: tuple[type, ...]) -> str:
    text = render(node)
    return f"({text})" if isinstance(node, needs_parens) else text


def _render_literal(value: Any, kind: str) -> str:
    if kind == "string":
        return _render_string(value)
    if kind == "regex":
        return render(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        # The grammar has no exponents: print the shortest round-tripping digits in
        # plain positional form, and keep a '.' so the value stays a float.
        from decimal import Decimal  # rendering only: not a cost of every parse

        digits = format(Decimal(repr(value)), "f")
        return digits if "." in digits else digits + ".0"
    return str(value)


def _render_string(value: str) -> str:
    out = ['"']
    for ch in value:
        if ch in _STRING_ESCAPES:
            out.append(_STRING_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            if code > 0xFFFF:  # \uXXXX holds 16 bits: write a surrogate pair
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
    out.append('"')
    return "".join(out)
