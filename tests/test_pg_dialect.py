"""The PostgreSQL dialect means what the SQLite spelling means, on a real PostgreSQL 16.

Oracles: Python's `regex` module (what SQLite runs) for the regex translation; the SQLite
engine (proven against brute-force scans in test_docql_oracle.py) for grep, title matching
and front-matter filters, over the same index copied into PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import regex
from docql_fixtures import FixtureFile, build_inline_corpus
from pg_server import fresh_database, start_server
from test_docql_oracle import FIXED_KEYWORDS, REGEXES, TITLE_KEYWORDS

import docql_sqlite
from docql_sqlite.dialect.are import python_regex_to_are
from docql_sqlite.errors import DocQLRegexError

psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the 'postgres' extra")


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    yield from start_server()


@pytest.fixture(scope="module")
def server_conn(pg_server: Any) -> Iterator[Any]:
    with psycopg.connect(fresh_database(pg_server), autocommit=True) as conn:
        yield conn


# -- regexes: Python's meaning, spelled as a PostgreSQL ARE -----------------------------------
TEXTS = [
    "",
    "abc",
    "ABC def",
    "line one\nline two\n",
    "tail\n",
    "tail",
    "a{b",
    "a.b (c) [d] {e} ^f$ g|h \\ i*+?",
    "foo_bar foo-bar foobar",
    "DEC-0054 and dec-0054.",
    "x\ny",
    "aaa",
    "abab",
    "2026-12-01 v1.2.3",
    "café CAFÉ straße",
    "架构 数据库",
    "tab\there",
    "/v1/index/{name}",
]
PATTERNS = [
    ("abc", ""),
    ("abc", "i"),
    ("a.c", ""),
    ("e.l", ""),  # '.' does not cross a newline...
    ("e.l", "s"),  # ...unless s
    ("one.line", "s"),
    ("^line", ""),
    ("^line", "m"),
    ("two$", ""),
    ("one$", ""),
    ("one$", "m"),
    ("tail$", ""),  # Python's $ also matches before a final newline
    (r"tail\Z", ""),
    (r"\Aline", ""),
    (r"\bbar\b", ""),
    (r"\Bbar", ""),
    (r"\d{4}-\d{2}-\d{2}", ""),
    (r"v\d+\.\d+\.\d+", ""),
    (r"\w+_\w+", ""),
    (r"\s\(c\)\s", ""),
    (r"\S+\*", ""),
    (r"[\]\[]", ""),
    (r"[\\]", ""),
    ("[-.]", ""),
    ("[^a-z ]", ""),
    ("[^a]", ""),
    ("x[^a]y", ""),  # a negated class matches the newline in Python
    (r"\{e\}", ""),
    ("a{", ""),  # a brace that is not a repeat is a literal in Python
    (r"\^f\$", ""),
    (r"g\|h", ""),
    ("(ab)+", ""),
    ("(?:ab){2}", ""),
    (r"(a)\1\1", ""),
    (r"(?P<x>ab)(?P=x)", ""),
    ("a{2,}", ""),
    ("a{1,2}?b", ""),
    ("a*?c", ""),
    ("foo(?=bar)", ""),
    ("foo(?!bar)", ""),
    ("(?<=foo)bar", ""),
    ("(?<!-)bar", ""),
    ("(?i)dec-0054", ""),
    ("dec|abc", ""),
    ("DEC-00[0-9][0-9]", "i"),
    (r"/v1/", ""),
    ("caf[eé]", "i"),
    ("架.", ""),
    ("数据库$", ""),
    ("^$", ""),
    ("(a|)b", ""),
]


@pytest.mark.parametrize(("pattern", "flags"), PATTERNS)
def test_regex_means_on_postgres_what_it_means_in_python(
    server_conn: Any, pattern: str, flags: str
) -> None:
    compiled = _python(pattern, flags)
    are = python_regex_to_are(pattern, flags)
    op = "~*" if "i" in flags else "~"
    got = [server_conn.execute(f"SELECT %s {op} %s", (t, are)).fetchone()[0] for t in TEXTS]
    want = [compiled.search(t) is not None for t in TEXTS]
    assert got == want, (pattern, are)


def _python(pattern: str, flags: str) -> Any:
    bits = regex.V0
    for flag in flags:
        bits |= {"i": regex.IGNORECASE, "m": regex.MULTILINE, "s": regex.DOTALL}[flag]
    return regex.compile(pattern, bits)


def test_the_regex_texts_tell_the_patterns_apart() -> None:
    # Each pattern matches some texts and misses others, or comparing it proves little; two
    # match nothing on purpose (their `m`/`s` twins above do match).
    uniform = [
        (pattern, flags)
        for pattern, flags in PATTERNS
        if len({_python(pattern, flags).search(t) is not None for t in TEXTS}) == 1
    ]
    assert uniform == [("e.l", ""), ("one$", "")]


@pytest.mark.parametrize(
    "pattern",
    ["a*+b", "(?>ab)", "(a)?(?(1)b|c)", "(?i:a)b", "a{300}", r"[^\W]"],
)
def test_a_regex_postgres_cannot_run_is_one_clear_error(pattern: str) -> None:
    with pytest.raises(DocQLRegexError, match="cannot run on PostgreSQL") as info:
        python_regex_to_are(pattern)
    assert "\n" not in str(info.value)


# -- grep, titles and regex grep over datasets/: the same rows as SQLite ------------------------
@pytest.fixture(scope="module")
def datasets_engines(pg_server: Any, corpus_db: Path) -> Iterator[tuple[Any, Any]]:
    url = fresh_database(pg_server)
    docql_sqlite.copy(str(corpus_db), url)
    index, conn = docql_sqlite.open(corpus_db), docql_sqlite.open(url)
    yield index, conn
    conn.close()
    index.close()


def _same_on_both(engines: tuple[Any, Any], query: str, paths: tuple[str, ...] = ()) -> list:
    index, conn = engines
    want = list(index.query(query, path=list(paths)))
    got = list(conn.query(query, path=list(paths)))
    # As JSON too: the same values of the same types (a score 3 is not 3.0).
    assert got == want and json.dumps(got) == json.dumps(want), query
    return want


def test_grep_and_contains_keywords_on_postgres(datasets_engines: tuple[Any, Any]) -> None:
    found = 0
    for kw in FIXED_KEYWORDS:
        text = json.dumps(kw, ensure_ascii=False)
        found += bool(_same_on_both(datasets_engines, f"$.content.grep({text})"))
        _same_on_both(datasets_engines, f"$.content.chunks()[?(@.content ~= {text})]")
    assert found > len(FIXED_KEYWORDS) // 2


def test_title_operators_on_postgres(datasets_engines: tuple[Any, Any]) -> None:
    # Each operator must find titles for some keyword: equal empty answers prove nothing.
    found: dict[str, int] = {}
    for kw in TITLE_KEYWORDS:
        text = json.dumps(kw, ensure_ascii=False)
        for op in ("~=", "startsWith", "endsWith", "==", "heading", "h2"):
            query = (
                f"$.content.{op}({text})"
                if op in ("heading", "h2")
                else f"$.toc[?(@.title {op} {text})]"
            )
            found[op] = found.get(op, 0) + bool(_same_on_both(datasets_engines, query))
    assert [op for op, n in found.items() if n == 0] == [], found


@pytest.mark.parametrize(("pattern", "flags"), REGEXES)
def test_regex_grep_on_postgres(
    datasets_engines: tuple[Any, Any], pattern: str, flags: str
) -> None:
    assert _same_on_both(datasets_engines, f"$.content.grep(/{pattern}/{flags})")
    _same_on_both(datasets_engines, f"$.toc[?(@.title =~ /{pattern}/{flags})]")


# -- front matter: every JSON type against every operator ---------------------------------------
VALUES = {
    "int": "3",
    "int_text": '"3"',
    "real": "3.5",
    "real_whole": "3.0",
    "zero": "0",
    "true": "true",
    "false": "false",
    "null": "null",
    "empty": '""',
    "word": "Été",
    "list": '[api, "B", 3, true]',
    "list_empty": "[]",
    "object": "{k: v}",
    "object_empty": "{}",
    "brackets": '"[]"',
}
FILTERS = [
    "@.v",
    "!@.v",
    '@.v == "3"',
    "@.v == 3",
    "@.v != 3",
    "@.v == 3.5",
    "@.v > 2",
    "@.v <= 0",
    "@.v == true",
    "@.v == false",
    "@.v == null",
    "@.v != null",
    '@.v == "Été"',
    '@.v == "1"',
    '@.v contains "api"',
    '@.v contains "b"',
    '@.v contains "3"',
    '@.v ~= "Ét"',
    '@.v ~= "3"',
    '@.v startsWith "É"',
    '@.v endsWith "5"',
    "@.v =~ /^3/",
    "@.v =~ /^été$/i",  # Unicode case folding in a regex
    "@.v =~ /^[a-z]+$/i",
]


@pytest.fixture(scope="module")
def frontmatter_engines(
    pg_server: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Any, Any]]:
    fx = FixtureFile("frontmatter-types", corpus="inline")
    for name, value in VALUES.items():
        fx.documents[f"docs/{name}.md"] = f'---\nv: {value}\nname: "{name}"\n---\n# {name}\n'
    fx.documents["docs/none.md"] = "# no front matter\n"
    database = build_inline_corpus(fx, tmp_path_factory.mktemp("frontmatter_types"))
    url = fresh_database(pg_server)
    docql_sqlite.copy(str(database), url)
    index, conn = docql_sqlite.open(database), docql_sqlite.open(url)
    yield index, conn
    conn.close()
    index.close()


@pytest.mark.parametrize("condition", FILTERS)
def test_frontmatter_filter_on_postgres(
    frontmatter_engines: tuple[Any, Any], condition: str
) -> None:
    names = _same_on_both(frontmatter_engines, f"$.frontmatter[?({condition})].name")
    # Only this filter keeps no document (test_frontmatter_filters_select_different_documents).
    assert bool(names) == (condition != "@.v =~ /^[a-z]+$/i"), condition


def test_frontmatter_filters_select_different_documents(
    frontmatter_engines: tuple[Any, Any],
) -> None:
    # Each filter keeps some documents and drops others (one keeps none: `=~ /^[a-z]+$/i`
    # meets no ASCII word), or comparing the engines on it proves little.
    index, _ = frontmatter_engines
    sizes = {c: len(index.query(f"$.frontmatter[?({c})].name")) for c in FILTERS}
    assert [c for c, n in sizes.items() if not 0 < n < len(VALUES)] == ["@.v =~ /^[a-z]+$/i"]


def test_frontmatter_projection_on_postgres(frontmatter_engines: tuple[Any, Any]) -> None:
    values = _same_on_both(frontmatter_engines, "$.frontmatter.v")
    assert len(values) == len(VALUES)  # one per document with front matter
    _same_on_both(frontmatter_engines, "$.frontmatter[*]")
