"""The Python SQL functions (docql_sqlite/sqlfunctions.py) and the table-valued docql().

They are conveniences for clients that host Python (apsw, Datasette, sqlite-utils); the
SQL that DocQL compiles to never calls them. Each is checked through SQL on a connection
from `docql_sqlite.store.sqlite.db.connect` / `Index`, the way users call them.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite import tvf
from docql_sqlite.errors import DocQLError, DocQLNameError, DocQLRegexError
from docql_sqlite.store.sqlite import db


@pytest.fixture()
def conn():
    connection = db.connect(":memory:")
    yield connection
    connection.close()


def one(conn, sql: str, params=()):  # noqa: ANN001, ANN201
    return conn.execute(sql, params).fetchone()[0]


# ---- docql_heading(title, kw): the spec's title tiers ----------------------------------------
@pytest.mark.parametrize(
    ("title", "kw", "score"),
    [
        ("Architecture", "architecture", 3),
        ("架构", "架构", 3),
        ("Straße", "STRASSE", 3),  # Unicode casefold: ß = ss
        ("Architecture Overview", "ARCH", 2),
        ("架构设计", "架构", 2),
        ("Storage Engine Design", "design", 1),
        ("系统架构概述", "架构", 1),
        ("Design", "Designs", 0),
        ("Café", "CAFÉ", 3),
        ("anything", "", 2),  # every title starts with the empty string
        (None, "x", 0),
        ("x", None, 0),
    ],
)
def test_docql_heading(conn, title, kw, score) -> None:
    assert one(conn, "SELECT docql_heading(?, ?)", (title, kw)) == score


def test_docql_heading_ranks_a_toc(corpus_db: Path) -> None:
    """The same tiers as $.content.heading(), computed in SQL over the toc view."""
    with docql_sqlite.open(corpus_db) as index:
        rows = index.conn.execute(
            "SELECT title, docql_heading(title, '架构') AS s FROM toc WHERE s > 0 ORDER BY s DESC, "
            "path, line"
        ).fetchall()
        assert rows == [("架构", 3), ("架构设计", 2), ("索引架构", 1), ("系统架构概述", 1)]
        via_docql = [(i["title"], i["score"]) for i in index.query('$.content.heading("架构")')]
        assert rows == via_docql


# ---- docql_chapter(number, id) ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("number", "chapter", "match"),
    [
        ("1.2", "1.2", 1),
        ("1.2", " 1.2 ", 1),
        ("1.2.1", "1.2", 0),
        ("1.10", "1.1", 0),
        ("2", 2, 1),
        (None, "1", 0),
        ("1", None, 0),
    ],
)
def test_docql_chapter(conn, number, chapter, match) -> None:
    assert one(conn, "SELECT docql_chapter(?, ?)", (number, chapter)) == match


# ---- docql_grep(text, pattern): occurrences ---------------------------------------------------
@pytest.mark.parametrize(
    ("text", "pattern", "count"),
    [
        ("WAL and wal and Wal", "wal", 3),
        ("CAFÉ, Café and café", "café", 3),
        ("STRASSE matches straße", "STRASSE", 2),  # ß casefolds to ss
        ("架构设计与系统架构", "架构", 2),
        ("架构", "架", 1),
        ("aaaa", "aa", 2),  # non-overlapping, like str.count
        ("Lexer LexerError lex", "/Lex[a-z]+/", 2),
        ("Lexer LexerError lex", "/lex[a-z]*/i", 3),
        ("line one\nline two", "/^line/m", 2),
        ("nothing", "", 0),
        (None, "x", 0),
        ("x", None, 0),
    ],
)
def test_docql_grep(conn, text, pattern, count) -> None:
    assert one(conn, "SELECT docql_grep(?, ?)", (text, pattern)) == count


def test_docql_grep_over_chunks_agrees_with_docql(corpus_db: Path) -> None:
    with docql_sqlite.open(corpus_db) as index:
        in_sql = index.conn.execute(
            "SELECT path, line FROM passages WHERE docql_grep(content, 'straße') > 0 ORDER BY "
            "path, chunk_index"
        ).fetchall()
        assert in_sql == [(i["path"], i["line"]) for i in index.query('$.content.grep("straße")')]


# ---- docql_rrf(rank[, k[, weight]])
# ---------------------------------------------------------------
def test_docql_rrf(conn) -> None:
    assert one(conn, "SELECT docql_rrf(1)") == pytest.approx(1 / 61)
    assert one(conn, "SELECT docql_rrf(3, 10)") == pytest.approx(1 / 13)
    assert one(conn, "SELECT docql_rrf(1, 10, 2.0)") == pytest.approx(2 / 11)
    assert one(conn, "SELECT docql_rrf(NULL)") == 0.0
    # A fused score: a document ranked 1st in one list and 3rd in another.
    assert one(conn, "SELECT docql_rrf(1) + docql_rrf(3)") == pytest.approx(1 / 61 + 1 / 63)


def test_docql_fold(conn) -> None:
    assert one(conn, "SELECT docql_fold('STRASSE Straße CAFÉ')") == "strasse strasse café"
    assert one(conn, "SELECT docql_fold(NULL)") is None


# ---- regexp / regexpi
# -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("sql", "value"),
    [
        ("SELECT 'Lexer' REGEXP 'Lex[a-z]+'", 1),
        ("SELECT 'lexer' REGEXP 'Lex'", 0),  # case-sensitive
        ("SELECT 'a Lexer b' REGEXP 'Lexer'", 1),  # search, not full match
        ("SELECT regexp('^Lex', 'a Lexer')", 0),  # regexp(pattern, text)
        ("SELECT regexpi('LEX', 'a lexer')", 1),
        (
            "SELECT regexpi('CAFÉ', 'café')",
            1,
        ),  # Unicode case in Python (ASCII-only in the sqlite3 shell)
        ("SELECT NULL REGEXP 'x'", None),
        ("SELECT regexpi(NULL, 'x')", None),
    ],
)
def test_regexp_and_regexpi(conn, sql, value) -> None:
    assert one(conn, sql) == value


def test_catastrophic_backtracking_is_stopped(conn) -> None:
    """(x+x+)+y against 5000 x's would run for ages; the guard raises a DocQLRegexError."""
    started = time.monotonic()
    with pytest.raises(DocQLRegexError) as info:
        one(conn, "SELECT ? REGEXP '(x+x+)+y'", ("x" * 5000,))
    assert (
        time.monotonic() - started < 10
    )  # the guard is 0.5 s per text; this bound only catches a hang
    assert "catastrophic backtracking" in info.value.message
    with pytest.raises(DocQLRegexError):
        one(conn, "SELECT regexpi('(X+X+)+Y', ?)", ("x" * 5000,))


def test_overlong_pattern_is_refused(conn) -> None:
    with pytest.raises(DocQLRegexError, match="regex too long"):
        one(conn, "SELECT 'a' REGEXP ?", ("a" * 1001,))


def test_catastrophic_regex_in_a_docql_query(tmp_index) -> None:
    """The same guard protects DocQL: the error reaches the caller as a DocQLError."""
    tmp_index.write("x.md", "# X\n\n" + "x" * 5000 + "\n")
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as index:
        with pytest.raises(DocQLRegexError):
            index.query("$.content.grep(/(x+x+)+y/)")
        with pytest.raises(DocQLError):
            index.query("$.content.chunks()[?(@.content =~ /(x+x+)+y/i)]")
        assert index.query("$.content.grep(/x{5000}/)")[0]["hit_line"] == 3


def test_case_sensitive_and_insensitive_uses_do_not_share_a_compiled_pattern(conn) -> None:
    """Regression: two caches' keys collided, so grep(/x/i) after a case-sensitive /x/
    reused the case-sensitive pattern."""
    assert one(conn, "SELECT 'ABC' REGEXP 'abc'") == 0
    assert one(conn, "SELECT regexpi('abc', 'ABC')") == 1
    assert one(conn, "SELECT 'ABC' REGEXP 'abc'") == 0


def test_the_compiled_pattern_cache_is_bounded(conn) -> None:
    """A long-running server sees a new pattern with every question: the cache keeps the
    most recently used ones and forgets the rest, and a forgotten one still matches."""
    from docql_sqlite import sqlfunctions

    size = sqlfunctions.GUARDED_CACHE_SIZE
    for n in range(size * 3):
        assert one(conn, f"SELECT 'id{n}x' REGEXP 'id{n}x'") == 1
    info = sqlfunctions._compiled.cache_info()
    assert info.currsize == info.maxsize == size
    hits = info.hits
    assert one(conn, "SELECT 'id%dx' REGEXP 'id%dx'" % (size * 3 - 1, size * 3 - 1)) == 1
    assert sqlfunctions._compiled.cache_info().hits == hits + 1  # the newest is kept
    misses = sqlfunctions._compiled.cache_info().misses
    assert one(conn, "SELECT 'id0x' REGEXP 'id0x'") == 1  # the oldest was forgotten
    assert sqlfunctions._compiled.cache_info().misses == misses + 1


# ---- docql(query[, glob]) table-valued function --------------------------------------------------
@pytest.fixture(scope="module")
def index(corpus_db: Path):
    with docql_sqlite.open(corpus_db) as idx:
        tvf.register(idx.store, lambda: idx)
        yield idx


def test_docql_table_function(index) -> None:
    rows = index.conn.execute(
        "SELECT type, path, line, title FROM docql('$.toc[?(@.level==1)]') WHERE path GLOB "
        "'datasets/zh/*'"
    ).fetchall()
    assert rows == [
        ("heading", "datasets/zh/architecture.md", 1, "架构"),
        ("heading", "datasets/zh/config.md", 7, "配置"),
        ("heading", "datasets/zh/install.md", 1, "安装"),
        ("heading", "datasets/zh/install.md", 57, "快速开始"),
        ("heading", "datasets/zh/overview.md", 13, "系统架构概述"),
        ("heading", "datasets/zh/常见问题.md", 10, "常见问题"),
    ]


def test_docql_table_function_columns_and_item(index) -> None:
    cursor = index.conn.execute("SELECT * FROM docql('$.content.chapter(\"#http\")')")
    names = [d[0] for d in cursor.getdescription()]
    assert names == tvf.COLUMNS
    (row,) = cursor.fetchall()
    assert row[:7] == (
        "section",
        "datasets/en/handbook/05-api-reference.md",
        98,
        157,
        "HTTP API",
        "datasets/en/handbook/05-api-reference.md:98-157",
        None,
    )
    assert (
        index.conn.execute("SELECT json_extract(?, '$.anchor')", (row[7],)).fetchone()[0] == "http"
    )


def test_docql_table_function_glob_argument_and_aggregates(index) -> None:
    assert (
        index.conn.execute("SELECT count(*) FROM docql('$.files', 'datasets/zh/*')").fetchone()[0]
        == 5
    )
    rows = index.conn.execute(
        "SELECT d.path, count(*) FROM docql('$.content.grep(\"关键词\")', 'datasets/zh/*') d GROUP "
        "BY d.path ORDER BY 1"
    ).fetchall()
    assert rows == [
        ("datasets/zh/architecture.md", 2),
        ("datasets/zh/config.md", 2),
        ("datasets/zh/install.md", 2),
        ("datasets/zh/overview.md", 2),
        ("datasets/zh/常见问题.md", 1),
    ]


def test_docql_table_function_projection_and_titles(index) -> None:
    assert [
        r[0]
        for r in index.conn.execute(
            "SELECT item FROM docql('$.toc.title[0:2]', 'datasets/zh/install.md')"
        )
    ] == ['"安装"', '"系统要求"']
    # title falls back to name (entities, symbols) and section (chunks)
    assert index.conn.execute(
        "SELECT title FROM docql('$.code.class(\"DocQLLexer\")')"
    ).fetchall() == [("DocQLLexer",)]
    assert index.conn.execute(
        "SELECT title FROM docql('$.content.grep(\"quarantines\")')"
    ).fetchall() == [("Checksums and Recovery",)]


def test_docql_table_function_query_as_a_where_clause(index) -> None:
    assert index.conn.execute("SELECT title FROM docql WHERE query = '$.toc[0]'").fetchall() == [
        ("Sample corpora",)
    ]


def test_docql_table_function_errors_are_docql_errors(index) -> None:
    with pytest.raises(DocQLNameError, match="did you mean 'toc'"):
        index.conn.execute("SELECT * FROM docql('$.tco')").fetchall()


def test_docql_table_function_joins_with_tables(index) -> None:
    """Join DocQL results with the plain tables: headings of documents over 4,000 bytes."""
    rows = index.conn.execute(
        "SELECT d.name, q.title FROM docql('$.toc[?(@.level==1)]', 'datasets/zh/*') q "
        "JOIN documents d ON d.path = q.path WHERE d.size > 4000 ORDER BY d.name"
    ).fetchall()
    assert rows == [("architecture.md", "架构"), ("overview.md", "系统架构概述")]


# ---- the regex pre-filter of the compiler (query/filters.required_literals) ---------------------
@pytest.mark.parametrize(
    ("pattern", "ignore_case", "literal"),
    [
        (r"fn\s+main", False, "main"),  # a repeat ends a run
        ("abc?d", False, None),  # c is optional: runs "ab" and "d" are too short
        ("MCP|TLS", True, None),  # alternation: nothing is mandatory
        (r"\bDEC-00[0-9][0-9]\b", False, "DEC-00"),
        ("dec-0054", True, "dec-0054"),
        ("(?i)STRASSE", False, "TRA"),  # inline (?i): s has a non-ASCII case partner (ſ)
        ("Lexikon", True, "Lex"),  # i and k end runs: "Lex", then "o", "n"
        ("kiss", True, None),
        ("caf[eé]", True, "caf"),
        (r"a\.b\.c", False, "a.b.c"),
    ],
)
def test_required_literal(pattern, ignore_case, literal) -> None:
    """The longest run (the first of the longest), when it has MIN_LITERAL characters:
    what the LIKE pre-filter needs at least to be made."""
    from docql_sqlite.query.filters import MIN_LITERAL, required_literals

    longest = max(required_literals(pattern, ignore_case), key=len, default="")
    assert (longest if len(longest) >= MIN_LITERAL else None) == literal


@pytest.mark.parametrize(
    ("pattern", "ignore_case", "runs"),
    [
        (r"EADDR\w+USE", False, ["EADDR", "USE"]),
        ("abc?d", False, ["ab", "d"]),
        ("MCP|TLS", True, []),
        ("(?i)STRASSE", False, ["TRA", "E"]),  # s and S end runs under (?i)
        ("Lexikon", True, ["Lex", "on"]),
        (r"a(?=b)bc\bd", False, ["a", "bc", "d"]),  # a lookaround or \b ends a run
        (r"x(y|z)w", False, ["x", "w"]),
        (r"\[\*\]\?", False, ["[*]?"]),
    ],
)
def test_required_literals(pattern, ignore_case, runs) -> None:
    from docql_sqlite.query.filters import required_literals

    assert required_literals(pattern, ignore_case) == runs


def test_the_regex_prefilter_never_drops_a_match() -> None:
    """Every text a regex matches passes its pre-filter (the runs in order: GLOB in exact
    case, LIKE under `i`), on texts made to trip it: the runs out of order, in another case,
    GLOB's and LIKE's own special characters, Unicode case partners; and the pre-filter
    drops some texts (a filter that keeps everything would pass the first check)."""
    import random
    import re

    import apsw

    from docql_sqlite.dialect import SQLITE
    from docql_sqlite.dialect.base import python_regex
    from docql_sqlite.query.filters import regex_condition
    from docql_sqlite.sqlparams import Params

    patterns = [
        (r"EADDR\w+USE", ""),
        (r"EADDR\w+USE", "i"),
        (r"a\*b.\?c\[d", ""),
        (r"100%\s+_x_", ""),
        (r"(?i)kelvin\d", ""),
        (r"Abc(?=D)Dx\b", ""),
        (r"[a-z]+_id\s*=\s*\\n", ""),
    ]
    pieces = [
        "EADDR",
        "eaddr",
        "USE",
        "use",
        "a*b",
        "x?c",
        "[d",
        "100%",
        "_x_",
        "\u212aelvin",
        "kelvin",
        "KELVIN",
        "7",
        "AbcDx",
        "abcdx",
        " ",
        "\n",
        "user_id",
        "=",
        "\\n",
        "Q",
    ]
    rng = random.Random(5)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 7))) for _ in range(4000)]
    conn = apsw.Connection(":memory:")
    conn.execute("CREATE TABLE t(content TEXT)")
    conn.executemany("INSERT INTO t VALUES (?)", [(t,) for t in texts])
    for pattern, flags in patterns:
        params = Params(SQLITE)
        condition = regex_condition("content", pattern, flags, params)
        prefilter = condition.split(" AND ", 1)[0].lstrip("(")
        assert "LIKE" in prefilter or "GLOB" in prefilter, condition
        kept = {
            t for (t,) in conn.execute(f"SELECT content FROM t WHERE {prefilter}", params.values)
        }
        regex = re.compile(python_regex(pattern, flags), re.IGNORECASE if "i" in flags else 0)
        matched = {t for t in texts if regex.search(t)}
        assert matched <= kept, (pattern, flags, sorted(matched - kept)[:3])
        assert len(kept) < len(set(texts)), (pattern, flags)


def test_required_literal_is_sound_with_unicode_case_partners(tmp_index) -> None:
    """/k/i matches the Kelvin sign, /s/i the long s, /i/i the dotted capital İ: the LIKE
    pre-filter must not drop those texts."""
    tmp_index.write("odd.md", "# Odd\n\nThe \u212aelvin unit, a \u017fign, a d\u0130ff.\n")
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as index:
        for pattern in ["/kelvin unit/i", "/a sign/i", "/a diff/i", "/KELVIN/i"]:
            assert [i["hit_line"] for i in index.query(f"$.content.grep({pattern})")] == [3], (
                pattern
            )
