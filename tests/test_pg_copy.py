"""`docql-sqlite copy` between a SQLite file and a real PostgreSQL 16 + pgvector (pgserver).

Oracles: the per-table checksums of the source equal the destination's; a file copied
to PostgreSQL and back answers DocQL queries and searches exactly as the original (so
the rebuilt FTS5 rows and vectors are right); PostgreSQL's tsvector rows match the same
chunks as FTS5 MATCH for words, accented words, CJK phrases and code identifiers.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import apsw
import pytest
from conftest import CLI, REPO
from docql_fixtures import Case, FixtureFile, all_cases, database_for
from pg_server import fresh_database, start_server

import docql_sqlite
from docql_sqlite import DatabaseError, DocQLError, UsageError
from docql_sqlite.errors import QueryTimeout
from docql_sqlite.fts_tokens import tokens
from docql_sqlite.text import fts_text

psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the 'postgres' extra")
from docql_sqlite.store.postgres.copy import table_checksums  # noqa: E402

QUERIES = (
    "$.toc[?(@.level <= 2)]",
    '$.content.grep("index")',
    '$.content.search("configuration")',
    "$.files[*]",
    "$.code.functions[*]",
    "$.entities[*]",
    "$.content.codeblock[*]",
    "$.content.table[*]",
    "$.frontmatter[*]",
    # read from the trigram tables (external content: their rows are rebuilt, not copied)
    '$.content.heading("install")',
    '$.code.symbols[?(@.name~="index")]',
    '$.entities[?(@.name~="index")]',
)


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    yield from start_server()


@pytest.fixture(scope="module")
def corpus_pg(pg_server: Any, corpus_db: Path) -> str:
    """The datasets/ index copied into a fresh PostgreSQL database (read-only for tests)."""
    url = fresh_database(pg_server)
    docql_sqlite.copy(str(corpus_db), url)
    return url


def test_copy_to_postgres_keeps_every_table(corpus_db: Path, corpus_pg: str) -> None:
    source, dest = table_checksums(str(corpus_db)), table_checksums(corpus_pg)
    assert source == dest
    assert source["chunks"][0] > 100 and source["documents"][0] > 10
    assert dest["chunks_fts"][0] == dest["chunks"][0]  # one tsvector row per chunk


def test_round_trip_answers_like_the_original(
    corpus_db: Path, corpus_pg: str, tmp_path: Path
) -> None:
    back = tmp_path / "back.db"
    report = docql_sqlite.copy(corpus_pg, str(back))
    assert all(t["ok"] for t in report["tables"])
    assert table_checksums(str(back)) == table_checksums(str(corpus_db))
    original, copied = docql_sqlite.open(corpus_db), docql_sqlite.open(back)
    for query in QUERIES:
        assert list(copied.query(query)) == list(original.query(query)), query
    for words in ("index configuration", "架构", "search"):
        assert copied.search(words, mode="bm25") == original.search(words, mode="bm25")
    # smart search's entities list reads the entity-name trigrams (schema 16)
    for words in ("IndexWriter", "compaction", "倒排索引"):
        assert copied.search(words) == original.search(words)


def _fts5_ids(db: Path, match: str) -> set[int]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return {
            r[0]
            for r in conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (match,))
        }
    finally:
        conn.close()


def _pg_ids(url: str, tsquery: str) -> set[int]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT rowid FROM chunks_fts WHERE tsv @@ %s::tsquery", (tsquery,)
        ).fetchall()
    return {r[0] for r in rows}


def _phrase(words: str) -> tuple[str, str]:
    """The same phrase for FTS5 MATCH and for a tsquery, from the same tokens."""
    toks = tokens(fts_text(words))
    return '"' + " ".join(toks) + '"', " <-> ".join("'" + t + "'" for t in toks)


@pytest.mark.parametrize(
    "words",
    ["index", "Configuration", "架构", "数据库", "データ", "café", "def", "json_path", "v2"],
)
def test_tsvector_matches_the_same_chunks_as_fts5(
    corpus_db: Path, corpus_pg: str, words: str
) -> None:
    match, tsquery = _phrase(words)
    expected = _fts5_ids(corpus_db, match)
    assert _pg_ids(corpus_pg, tsquery) == expected


def test_tsvector_oracle_finds_something(corpus_db: Path) -> None:
    # The parametrized comparison above means little if every term matches nothing.
    assert _fts5_ids(corpus_db, _phrase("index")[0])
    assert _fts5_ids(corpus_db, _phrase("架构")[0])


def test_vectors_travel_exactly(pg_server: Any, tmp_index: Any, tmp_path: Path) -> None:
    tmp_index.write("a.md", "# Alpha\n\nThe quick brown fox.\n\n## Beta\n\n数据库 架构 notes.\n")
    tmp_index.write("b.md", "# Gamma\n\nLazy dogs sleep all day long.\n")
    docql_sqlite.index(tmp_index.db, ["docs"])
    docql_sqlite.embed(tmp_index.db, "hash:64")
    url = fresh_database(pg_server)
    report = docql_sqlite.copy(str(tmp_index.db), url)
    assert report["dimensions"] == 64
    assert table_checksums(url) == table_checksums(str(tmp_index.db))
    with psycopg.connect(url) as conn:
        dims = conn.execute("SELECT vector_dims(embedding) FROM chunks_vec LIMIT 1").fetchone()
        assert dims == (64,)
    back = tmp_path / "back.db"
    docql_sqlite.copy(url, str(back))
    original, copied = docql_sqlite.open(tmp_index.db), docql_sqlite.open(back)
    assert copied.has_vectors
    for mode in ("vector", "hybrid"):
        assert copied.search("fox", mode=mode) == original.search("fox", mode=mode)


def test_copy_refuses_a_database_that_holds_an_index(corpus_db: Path, corpus_pg: str) -> None:
    before = table_checksums(corpus_pg)
    with pytest.raises(UsageError, match="already holds an index"):
        docql_sqlite.copy(str(corpus_db), corpus_pg)
    assert table_checksums(corpus_pg) == before


def test_readme_commands_create_the_database(pg_server: Any, corpus_db: Path) -> None:
    """README's "Scale out": `copy docs.db URL`, then `query URL '$.toc'` — with a database
    that does not exist yet, which copy creates (as it creates a missing file); `index`
    into a missing database creates it too. A reader never creates one."""
    url = pg_server.get_uri("docql_readme_copy")
    copied = subprocess.run(
        [str(CLI), "copy", str(corpus_db), url], capture_output=True, text=True, cwd=REPO
    )
    assert copied.returncode == 0, copied.stderr
    queried = subprocess.run(
        [str(CLI), "query", url, "$.toc"], capture_output=True, text=True, cwd=REPO
    )
    assert queried.returncode == 0, queried.stderr
    on_file = subprocess.run(
        [str(CLI), "query", str(corpus_db), "$.toc"], capture_output=True, text=True, cwd=REPO
    )
    assert json.loads(queried.stdout) == json.loads(on_file.stdout) != []
    indexed = pg_server.get_uri("docql_readme_index")
    report = docql_sqlite.index(indexed, [str(REPO / "datasets" / "zh")], workers=1)
    assert report.added and not report.failed
    with pytest.raises(DatabaseError, match="does not exist"):
        docql_sqlite.open(pg_server.get_uri("docql_never_created"))


def test_copy_refuses_an_existing_index_file(corpus_pg: str, corpus_db: Path) -> None:
    before = corpus_db.stat().st_size
    with pytest.raises(UsageError, match="already holds an index"):
        docql_sqlite.copy(corpus_pg, str(corpus_db))
    assert corpus_db.stat().st_size == before


def test_copy_needs_one_postgres_side(corpus_db: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="between engines"):
        docql_sqlite.copy(str(corpus_db), str(tmp_path / "x.db"))
    assert not (tmp_path / "x.db").exists()


def test_unreachable_server_is_one_clear_error(corpus_db: Path) -> None:
    with pytest.raises(DatabaseError, match="cannot connect") as info:
        docql_sqlite.copy(str(corpus_db), "postgresql://nobody@127.0.0.1:1/none")
    assert "\n" not in str(info.value)


def test_empty_database_is_not_an_index(pg_server: Any, tmp_path: Path) -> None:
    url = fresh_database(pg_server)
    with pytest.raises(DatabaseError, match="holds no docql-sqlite index"):
        docql_sqlite.copy(url, str(tmp_path / "x.db"))
    assert not (tmp_path / "x.db").exists()


def test_cli_copy_both_ways(pg_server: Any, corpus_db: Path, tmp_path: Path) -> None:
    url = fresh_database(pg_server)
    out = subprocess.run(
        [str(CLI), "copy", str(corpus_db), url, "--table"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr
    assert "every table verified" in out.stdout and "chunks " in out.stdout
    again = subprocess.run(
        [str(CLI), "copy", str(corpus_db), url], capture_output=True, text=True, cwd=REPO
    )
    assert again.returncode == 2
    assert again.stderr.startswith("error: ") and again.stderr.count("\n") == 1
    back = tmp_path / "back.db"
    out = subprocess.run(
        [str(CLI), "copy", url, str(back)], capture_output=True, text=True, cwd=REPO
    )
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)  # piped: JSON, one row per table
    assert {r["table"] for r in rows} >= {"documents", "chunks"} and all(r["ok"] for r in rows)
    assert table_checksums(str(back)) == table_checksums(str(corpus_db))


# -- DocQL on PostgreSQL: every fixture case, the same items as on the file ---------------
# The datasets/ cases run on `corpus_pg`; an inline fixture file's index is built as the
# conformance suite builds it and copied into a database of its own. Error cases must
# raise the same error (message and caret lines).
ALL_CASES = all_cases()
PG_CASES = [(fx, case) for fx, case in ALL_CASES if case.error is None]
SCORE_ULP = 1e-12  # BM25 summed in another order (PostgreSQL SQL vs FTS5's C): last digits


def test_postgres_runs_every_fixture_case() -> None:
    assert len(PG_CASES) >= 300
    assert {fx.corpus for fx, _ in PG_CASES} == {"datasets", "inline"}
    searches = [case for fx, case in PG_CASES if ".search(" in case.query]
    assert len(searches) >= 15 and any(case.paths for case in searches)


def _same_items(got: list[Any], expected: list[Any]) -> bool:
    """Equal items of the same types (3 is not 3.0: the JSON output would differ); a
    float may differ from the file's in its last digits (relative SCORE_ULP): search()'s
    BM25 is FTS5's formula, summed by PostgreSQL in another order."""

    def same(a: Any, b: Any) -> bool:
        if isinstance(a, float) and isinstance(b, float):
            return a == pytest.approx(b, rel=SCORE_ULP, abs=SCORE_ULP)
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        return type(a) is type(b) and bool(a == b)

    return same(got, expected)


@pytest.fixture(scope="module")
def both_engines(
    pg_server: Any, corpus_db: Path, corpus_pg: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[FixtureFile], tuple[Any, Any]]]:
    """A function: fixture file → (its index's `Index`, an `Index` over the URL of a
    PostgreSQL copy of that index)."""
    opened: dict[Path, tuple[Any, Any]] = {}

    def get(fx: FixtureFile) -> tuple[Any, Any]:
        path = database_for(fx, corpus_db, tmp_path_factory)
        if path not in opened:
            url = corpus_pg if fx.corpus == "datasets" else fresh_database(pg_server)
            if url != corpus_pg:
                docql_sqlite.copy(str(path), url)
            opened[path] = (docql_sqlite.open(path), docql_sqlite.open(url))
        return opened[path]

    yield get
    for index, conn in opened.values():
        conn.close()
        index.close()


@pytest.mark.parametrize(("fx", "case"), PG_CASES, ids=[c.id for _, c in PG_CASES])
def test_docql_fixture_on_postgres(
    fx: FixtureFile, case: Case, both_engines: Callable[[FixtureFile], tuple[Any, Any]]
) -> None:
    index, conn = both_engines(fx)
    expected = list(index.query(case.query, path=list(case.paths), limit=case.limit))
    got = list(conn.query(case.query, paths=tuple(case.paths), limit=case.limit))
    assert _same_items(got, expected), (got, expected)
    assert [case.project(item) for item in got] == case.expected  # and both are right


ERROR_CASES = [(fx, case) for fx, case in ALL_CASES if case.error is not None]


def test_docql_error_cases_on_postgres(
    both_engines: Callable[[FixtureFile], tuple[Any, Any]],
) -> None:
    """Every error case of the fixture suite is the same error on PostgreSQL (compiled
    with the search builder, as `Index` over a URL compiles)."""
    assert len(ERROR_CASES) >= 50
    for fx, case in ERROR_CASES:
        _, conn = both_engines(fx)
        with pytest.raises(DocQLError) as info:
            conn.query(case.query, paths=tuple(case.paths), limit=case.limit)
        assert str(info.value) == case.error, case.id


def test_postgres_inline_sql_gives_the_rows_of_the_bound_sql(
    both_engines: Callable[[FixtureFile], tuple[Any, Any]],
) -> None:
    """`Compiled.inline_sql()` in the PostgreSQL dialect (values written in as literals, as
    `query --sql --inline` prints them) runs on PostgreSQL as the bound statement does."""
    checked = 0
    for fx, case in PG_CASES:
        _, conn = both_engines(fx)
        compiled = conn.compile(case.query, paths=tuple(case.paths), limit=case.limit)
        inlined = compiled.inline_sql()
        assert "%(p" not in inlined
        bound = list(conn.execute(compiled, timeout=None))
        with conn.conn.cursor() as cursor:
            cursor.execute(inlined.encode())  # no parameters: sent as it is
            names = [d.name for d in cursor.description or ()]
            rows = [dict(zip(names, row)) for row in cursor.fetchall()]
        conn.conn.rollback()
        assert rows == bound, case.id
        checked += bool(compiled.params)
    assert checked > 200  # most cases bind values


@pytest.mark.parametrize(
    "query", ["$.toc[*]", '$.content.grep("index")', '$.content.heading("api")', "$.files[*]"]
)
def test_postgres_limit_and_offset_are_those_of_index_query(
    query: str, both_engines: Callable[[FixtureFile], tuple[Any, Any]]
) -> None:
    index, conn = both_engines(PG_CASES[0][0])
    for limit, offset in [(3, 0), (3, 2), (None, 5), (1, 10_000)]:
        want = list(index.query(query, limit=limit, offset=offset))
        assert list(conn.query(query, limit=limit, offset=offset)) == want
    assert len(conn.query(query, limit=3, offset=2)) == 3


def test_postgres_query_keeps_its_time_limit(corpus_pg: str) -> None:
    """A statement past its limit is a QueryTimeout (here it waits on a lock another session
    holds), and the connection answers the next query."""
    conn = docql_sqlite.open(corpus_pg)
    with psycopg.connect(corpus_pg) as locker:
        locker.execute("LOCK TABLE chunks IN ACCESS EXCLUSIVE MODE")
        started = time.monotonic()
        with pytest.raises(QueryTimeout, match=r"over 0.3 s"):
            conn.query('$.content.grep("index")', timeout=0.3)
        assert time.monotonic() - started < 5
        locker.rollback()
    assert conn.query('$.content.grep("index")', timeout=5)
    assert conn.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    conn.close()


def test_the_sqlite_path_never_imports_psycopg(corpus_db: Path) -> None:
    script = (
        "import sys, docql_sqlite, docql_sqlite.cli\n"
        f"idx = docql_sqlite.open({str(corpus_db)!r})\n"
        "assert idx.query('$.toc[0]') and idx.search('index', mode='bm25')\n"
        "assert 'psycopg' not in sys.modules, 'psycopg imported'\n"
    )
    out = subprocess.run(
        [str(REPO / ".venv" / "bin" / "python"), "-c", script], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr


def test_copy_back_keeps_staged_references_of_live_documents_only(
    pg_server: Any, corpus_db: Path, tmp_path: Path
) -> None:
    """PostgreSQL's `refs_staged` has no foreign key (a writer never waits on the rows a
    resolution pass takes), so it may hold the staged references of a document deleted
    since; a copy to a SQLite file, whose foreign key refuses them, leaves those out."""
    url = fresh_database(pg_server)
    docql_sqlite.copy(str(corpus_db), url)
    with psycopg.connect(url, autocommit=True) as conn:
        live = conn.execute("SELECT min(id) FROM documents").fetchone()[0]
        gone = conn.execute("SELECT max(id) + 1000 FROM documents").fetchone()[0]
        conn.execute(
            "INSERT INTO refs_staged(doc_id, refs) VALUES (%s, %s), (%s, %s)",
            (live, '[["f",0,null,1,null,1]]', gone, '[["g",0,null,1,null,1]]'),
        )
    back = tmp_path / "back.db"
    docql_sqlite.copy(url, str(back))
    conn = apsw.Connection(str(back), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        staged = conn.execute("SELECT doc_id, refs FROM refs_staged").fetchall()
    finally:
        conn.close()
    assert staged == [(live, '[["f",0,null,1,null,1]]')]
