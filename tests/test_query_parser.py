"""Parser tests: table-driven from tests/fixtures/parse_*.txt, plus property tests.

Fixture format (all three files): blocks separated by blank lines; lines starting with
'#' are comments. A block's first line is the query — verbatim, or a JSON string when
it starts with '"' (for empty, multi-line or space-padded queries). The rest:

- parse_valid.txt:    `=> (s-expression of the tree)`, see `sexp` below
- parse_identity.txt: `=> canonical text` (render of the parsed tree)
- parse_errors.txt:   the exact `str(error)`: message line, query line, caret line
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from docql_sqlite.errors import DocQLError, DocQLRegexError, DocQLSyntaxError, DocQLTypeError
from docql_sqlite.query import (
    And,
    Call,
    Compare,
    Filter,
    Literal,
    Not,
    Or,
    Position,
    Property,
    Query,
    Regex,
    Slice,
    Wildcard,
    parse,
    render,
    tokenize,
    walk,
)

FIXTURES = Path(__file__).parent / "fixtures"


def load_blocks(name: str) -> list[tuple[str, list[str]]]:
    """(query, remaining lines) for each block of a fixture file."""
    blocks: list[tuple[str, list[str]]] = []
    for chunk in (FIXTURES / name).read_text(encoding="utf-8").split("\n\n"):
        lines = [ln for ln in chunk.split("\n") if ln and not ln.startswith("#")]
        if not lines:
            continue
        first = lines[0]
        query = json.loads(first) if first.startswith('"') else first
        blocks.append((query, lines[1:]))
    return blocks


def arrow(lines: list[str]) -> str:
    assert len(lines) == 1 and lines[0].startswith("=> "), lines
    return lines[0][3:]


def sexp(d: dict[str, Any]) -> str:
    """A compact, unambiguous rendering of a `to_dict()` tree for fixtures.

    Strings are JSON-quoted, numbers bare (a float keeps its '.'), regexes /p/f.
    """
    kind = d["node"]
    if kind == "Query":
        return "(query" + "".join(" " + sexp(s) for s in d["steps"]) + ")"
    if kind == "Property":
        return f"(prop {d['name']})"
    if kind == "Call":
        return f"(call {d['name']}" + "".join(" " + sexp(a) for a in d["args"]) + ")"
    if kind == "Wildcard":
        return "(*)"
    if kind == "Position":
        return f"(index {d['value']})"
    if kind == "Slice":
        bound = lambda v: "_" if v is None else str(v)  # noqa: E731
        return f"(slice {bound(d['start'])} {bound(d['stop'])})"
    if kind == "Filter":
        return f"(filter {sexp(d['expr'])})"
    if kind == "Compare":
        value = "" if d["value"] is None else " " + sexp(d["value"])
        return f"(cmp {d['field']} {d['op']}{value})"
    if kind in ("And", "Or"):
        return f"({kind.lower()}" + "".join(" " + sexp(i) for i in d["items"]) + ")"
    if kind == "Not":
        return f"(not {sexp(d['item'])})"
    if kind == "Regex":
        return f"/{d['pattern']}/{d['flags']}"
    assert kind == "Literal", d
    value = d["value"]
    if d["kind"] == "string":
        return json.dumps(value, ensure_ascii=False)
    if d["kind"] == "regex":
        return sexp(value)
    if d["kind"] == "null":
        return "null"
    if d["kind"] == "bool":
        return "true" if value else "false"
    return repr(value)


VALID = load_blocks("parse_valid.txt")
IDENTITY = load_blocks("parse_identity.txt")
ERRORS = load_blocks("parse_errors.txt")


# ---- table-driven ----------------------------------------------------------


@pytest.mark.parametrize("query,lines", VALID, ids=[q for q, _ in VALID])
def test_valid_query_tree(query: str, lines: list[str]) -> None:
    tree = parse(query)
    data = tree.to_dict()
    json.dumps(data)  # JSON-serialisable
    assert sexp(data) == arrow(lines)
    # Every valid query also round-trips through its canonical rendering.
    assert parse(render(tree)) == tree


@pytest.mark.parametrize("query,lines", IDENTITY, ids=[q for q, _ in IDENTITY])
def test_canonical_rendering(query: str, lines: list[str]) -> None:
    canonical = arrow(lines)
    tree = parse(query)
    assert render(tree) == canonical
    assert parse(canonical) == tree
    assert render(parse(canonical)) == canonical  # stable


@pytest.mark.parametrize("query,lines", ERRORS, ids=[q for q, _ in ERRORS])
def test_error_message(query: str, lines: list[str]) -> None:
    with pytest.raises(DocQLError) as info:
        parse(query)
    assert str(info.value) == "\n".join(lines)


@pytest.mark.parametrize("query,offset", [("", 0), ("   ", 3), ("\n\t", 2)])
def test_empty_query(query: str, offset: int) -> None:
    # Kept out of the fixture file: its caret lines would be whitespace-only.
    with pytest.raises(DocQLSyntaxError) as info:
        parse(query)
    assert info.value.message == "empty query; a DocQL query starts with '$'"
    assert info.value.offset == offset


def test_fixtures_cover_enough() -> None:
    assert len(VALID) >= 100 and len(IDENTITY) >= 20 and len(ERRORS) >= 40


# ---- the JSON form and node details ----------------------------------------


def test_to_dict_shape() -> None:
    tree = parse("$.toc[?(@.title =~ /MCP/i)][0]")
    assert tree.to_dict() == {
        "node": "Query",
        "steps": [
            {"node": "Property", "name": "toc"},
            {
                "node": "Filter",
                "expr": {
                    "node": "Compare",
                    "field": "title",
                    "op": "=~",
                    "value": {
                        "node": "Literal",
                        "value": {"node": "Regex", "pattern": "MCP", "flags": "i"},
                        "kind": "regex",
                    },
                },
            },
            {"node": "Position", "value": 0},
        ],
    }


def test_to_dict_with_positions() -> None:
    data = parse("$.toc[?(@.level >= 2)]").to_dict(positions=True)
    assert data["offset"] == 0 and "source" not in data
    assert data["steps"][0] == {"node": "Property", "offset": 2, "name": "toc"}
    cmp = data["steps"][1]["expr"]
    assert (cmp["offset"], cmp["field_offset"], cmp["op_offset"]) == (8, 10, 16)
    assert cmp["value"] == {
        "node": "Literal",
        "offset": 19,
        "value": 2,
        "kind": "number",
        "text": "2",
    }


def test_offsets_point_at_names_and_values() -> None:
    query = '$.content.heding("架构")[?(@.titel == 1.10)]'
    tree = parse(query)
    assert tree.source == query
    call = tree.steps[1]
    assert isinstance(call, Call) and query[call.offset :].startswith("heding(")
    assert query[call.args[0].offset :].startswith('"架构"')
    cmp = tree.steps[2].expr  # type: ignore[union-attr]
    assert isinstance(cmp, Compare)
    assert query[cmp.offset :].startswith("@.titel")
    assert query[cmp.field_offset :].startswith("titel")
    assert query[cmp.op_offset :].startswith("==")  # type: ignore[index]
    assert cmp.value is not None and cmp.value.text == "1.10" and cmp.value.value == 1.1


def test_equality_ignores_positions() -> None:
    assert parse("$.toc[?(@.level==1)]") == parse("$ .toc [?  @.level = 1 ]")
    assert Query((Property("toc"), Filter(Compare("level", "==", Literal(1, "number"))))) == parse(
        "$.toc[?(@.level==1)]"
    )
    assert Literal(1, "number") != Literal("1", "string")
    assert Literal(True, "bool") != Literal(1, "number")


def test_nodes_are_frozen_slotted_and_hashable() -> None:
    tree = parse("$.toc[?(@.a && !@.b)][1:2]")
    for node in walk(tree):
        assert not hasattr(node, "__dict__")
        hash(node)
    with pytest.raises(AttributeError):
        tree.steps = ()  # type: ignore[misc]
    assert [type(n).__name__ for n in walk(tree)] == [
        "Query",
        "Property",
        "Filter",
        "And",
        "Compare",
        "Not",
        "Compare",
        "Slice",
    ]


def test_render_without_parser() -> None:
    tree = Query(
        (
            Property("content"),
            Call("grep", (Literal(Regex("a/b", "i"), "regex"), Literal(2.5e-7, "number"))),
            Wildcard(),
            Position(-1),
            Slice(None, 3),
            Filter(
                Or(
                    (
                        And((Compare("a", "exists"), Compare("b", "!=", Literal(None, "null")))),
                        Not(Compare("c", "exists")),
                    )
                )
            ),
        )
    )
    assert (
        render(tree)
        == "$.content.grep(/a/b/i, 0.00000025)[*][-1][:3][?(@.a && @.b != null || !@.c)]"
    )


# ---- properties ------------------------------------------------------------

VALID_QUERIES = [q for q, _ in VALID] + [q for q, _ in IDENTITY]
DOCQL_CHARS = "$.[]()?@*:,!&|=~<>\"'/\\ -_0123456789abcdeilmnstuwxyz架构\n\t"


def assert_parses_or_docql_error(text: str) -> None:
    try:
        tree = parse(text)
    except DocQLError as exc:
        assert isinstance(exc, (DocQLSyntaxError, DocQLTypeError, DocQLRegexError)), exc
        assert exc.offset is not None and 0 <= exc.offset <= len(text)
        assert exc.line is not None and exc.column is not None
        str(exc)  # the caret renders
        json.dumps(exc.to_dict())
    else:
        assert isinstance(tree, Query)
        json.dumps(tree.to_dict(positions=True))
        for node in walk(tree):
            assert 0 <= node.offset <= len(text)
        # Whatever parses renders canonically and parses back to the same tree.
        canonical = render(tree)
        assert parse(canonical) == tree
        assert render(parse(canonical)) == canonical


def assert_tokenizes_or_docql_error(text: str) -> None:
    try:
        tokens = tokenize(text)
    except DocQLError as exc:
        assert isinstance(exc, DocQLSyntaxError)
        assert exc.offset is not None and 0 <= exc.offset <= len(text)
    else:
        assert tokens[-1].type.name == "EOF"


PROPERTY_SETTINGS = settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(st.one_of(st.text(), st.text(alphabet=DOCQL_CHARS).map(lambda s: "$" + s)))
def test_arbitrary_text_parses_or_raises_docql_error(text: str) -> None:
    assert_tokenizes_or_docql_error(text)
    assert_parses_or_docql_error(text)


@st.composite
def mutated_queries(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(VALID_QUERIES))
    for _ in range(draw(st.integers(1, 3))):
        pos = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        char = draw(st.one_of(st.sampled_from(DOCQL_CHARS), st.characters()))
        if kind == "insert":
            text = text[:pos] + char + text[pos:]
        elif kind == "delete":
            text = text[:pos] + text[pos + 1 :]
        else:
            text = text[:pos] + char + text[pos + 1 :]
    return text


@PROPERTY_SETTINGS
@given(mutated_queries())
def test_mutated_queries_parse_or_raise_docql_error(text: str) -> None:
    assert_tokenizes_or_docql_error(text)
    assert_parses_or_docql_error(text)


# Random trees: render them, parse the text, get the same tree back.
NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True)
REGEX_PIECES = ["a", "b+", "[/]", r"\/", r"\d", "(x|y)", "^", "$", ".*", "[^]a]", "c{2}", "架"]
LITERALS = st.one_of(
    st.text().map(lambda s: Literal(s, "string")),
    st.integers(-(10**20), 10**20).map(lambda n: Literal(n, "number")),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: Literal(f, "number")),
    st.booleans().map(lambda b: Literal(b, "bool")),
    st.just(Literal(None, "null")),
)
REGEXES = st.builds(
    lambda pieces, flags: Literal(
        Regex("".join(pieces), "".join(f for f in "ims" if f in flags)), "regex"
    ),
    st.lists(st.sampled_from(REGEX_PIECES), max_size=4),
    st.sets(st.sampled_from("ims")),
)
COMPARES = st.one_of(
    st.builds(lambda n: Compare(n, "exists"), NAMES),
    st.builds(
        Compare,
        NAMES,
        st.sampled_from(["==", "!=", "contains", "startswith", "endswith", ">", ">=", "<", "<="]),
        LITERALS,
    ),
    st.builds(lambda n, v: Compare(n, "=~", v), NAMES, REGEXES),
)
EXPRS = st.recursive(
    COMPARES,
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: And(tuple(xs))),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: Or(tuple(xs))),
        inner.map(Not),
    ),
    max_leaves=8,
)
ARGS = st.one_of(
    st.text().map(lambda s: Literal(s, "string")),
    st.integers(-1000, 1000).map(lambda n: Literal(n, "number")),
    REGEXES,
)
OPTIONAL_INTS = st.one_of(st.none(), st.integers(-50, 50))
STEPS = st.one_of(
    st.builds(Property, NAMES),
    st.builds(lambda n, a: Call(n, tuple(a)), NAMES, st.lists(ARGS, max_size=3)),
    st.just(Wildcard()),
    st.builds(Position, st.integers(-(10**12), 10**12)),
    st.builds(Slice, OPTIONAL_INTS, OPTIONAL_INTS),
    st.builds(Filter, EXPRS),
)


@PROPERTY_SETTINGS
@given(st.lists(STEPS, max_size=5).map(lambda s: Query(tuple(s))))
def test_render_then_parse_is_identity(tree: Query) -> None:
    assume(all(len(render(n)) < 10_000 for n in walk(tree)))
    assert parse(render(tree)) == tree


def test_long_user_text_is_clipped_in_messages() -> None:
    with pytest.raises(DocQLRegexError) as info:
        parse("$.t[?(@.a =~ /" + "(" * 5000 + "/)]")
    assert info.value.message.startswith("invalid regex /((((") and len(info.value.message) < 200
    with pytest.raises(DocQLSyntaxError) as info:
        parse('$.toc "' + "x" * 500 + '"')
    assert info.value.message == "unexpected '\"" + "x" * 36 + "...' after end of query"


def test_a_lone_surrogate_written_as_itself_is_the_same_error_as_its_escape() -> None:
    """Hypothesis found `'\ud800it'` (the character itself, which a Python string can
    hold) parsed while its canonical form `'\\ud800it'` raised: both raise now."""
    for text in ("$.toc[?(@.title=='\ud800it')]", "$.toc[?(@.title=='\\ud800it')]"):
        with pytest.raises(DocQLSyntaxError, match="lone surrogate"):
            parse(text)
