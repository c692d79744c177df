"""`Index` and the CLI over a postgresql:// URL, and indexing into PostgreSQL from many
writers at once, against a real PostgreSQL 16 + pgvector (pgserver).

Oracles: the file index of the same files. A PostgreSQL index (copied from the file, or
written by concurrent writers) answers every reading method and DocQL query as the file
does, and holds the same rows (tests/pg_rows.py: every stored row, ids aside); vectors
written into pgvector are the same float32 values as sqlite-vec's.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, REPO
from pg_rows import content, postgres_runner, sqlite_runner
from pg_server import fresh_database, start_server

import docql_sqlite
from docql_sqlite import DocQLError, LocationError

psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the 'postgres' extra")

QUERIES = (
    "$.toc",
    "$.toc[?(@.level <= 2)]",
    "$.files",
    '$.files[?(@.extension == "md")]',
    "$.entities",
    "$.content.codeblock[*]",
    "$.content.table[*]",
    "$.structure",
)
# Locations in every form `get` reads (datasets/ paths, as the corpus index stores them).
LOCATIONS = (
    "datasets/en/handbook/03-architecture.md",
    "datasets/en/handbook/03-architecture.md:12",
    "datasets/en/handbook/03-architecture.md:5-9",
    "datasets/en/handbook/03-architecture.md:5:3",
    "03-architecture.md",
    "datasets/zh/常见问题.md:1-4",
)
# Engine-specific status fields (the database's name and size).
ENGINE_STATUS = ("database", "size_bytes")


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    yield from start_server()


@pytest.fixture(scope="module")
def corpus_pg(pg_server: Any, corpus_db: Path) -> str:
    url = fresh_database(pg_server)
    docql_sqlite.copy(str(corpus_db), url)
    return url


@pytest.fixture(scope="module")
def both(corpus_db: Path, corpus_pg: str) -> Iterator[tuple[Any, Any]]:
    file_index, pg_index = docql_sqlite.open(corpus_db), docql_sqlite.open(corpus_pg)
    yield file_index, pg_index
    pg_index.close()
    file_index.close()


def _cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, cwd=cwd, timeout=300)


# -- 1. the front door over a URL -------------------------------------------------------
@pytest.mark.parametrize("query", QUERIES)
def test_query_over_a_url_gives_the_file_rows(both: tuple[Any, Any], query: str) -> None:
    file_index, pg_index = both
    expected = list(file_index.query(query))
    assert expected, query  # an empty answer would prove nothing
    assert list(pg_index.query(query)) == expected
    assert list(pg_index.query(query, limit=3, offset=1)) == expected[1:4]


def test_compile_over_a_url_is_postgresql(both: tuple[Any, Any]) -> None:
    file_index, pg_index = both
    compiled = pg_index.compile('$.files[?(@.path ~= "zh/")]')
    assert "%(p0)s" in compiled.sql and "strpos(" in compiled.sql
    assert ":p0" in file_index.compile('$.files[?(@.path ~= "zh/")]').sql
    plan = pg_index.explain("$.toc")["plan"]
    assert plan and any("Scan" in step["detail"] for step in plan)  # PostgreSQL's EXPLAIN


def test_reading_methods_over_a_url_match_the_file(both: tuple[Any, Any]) -> None:
    file_index, pg_index = both
    assert pg_index.toc() == file_index.toc()
    assert pg_index.toc("03-architecture.md") == file_index.toc("03-architecture.md")
    for location in LOCATIONS:
        assert pg_index.get(location) == file_index.get(location), location
    assert pg_index.get("datasets/zh/config.md", 2, 3) == file_index.get(
        "datasets/zh/config.md", 2, 3
    )
    many_pg, many_file = (
        pg_index.get_many("datasets/en/**/*.md", 8000),
        file_index.get_many("datasets/en/**/*.md", 8000),
    )
    assert many_pg == many_file and many_file.excerpts and many_file.skipped
    docs = file_index.documents()
    assert [d["path"] for d in pg_index.documents()] == [d["path"] for d in docs]
    assert pg_index.documents(("*.go",)) == file_index.documents(("*.go",))
    assert pg_index.errors() == file_index.errors()
    pg_status, file_status = pg_index.status(), file_index.status()
    for key in ENGINE_STATUS:
        pg_status.pop(key), file_status.pop(key)
    assert pg_status == file_status and pg_status["documents"] == len(docs)
    assert pg_index.has_vectors is False


def test_errors_over_a_url_are_the_file_errors(both: tuple[Any, Any]) -> None:
    file_index, pg_index = both
    for index in (file_index, pg_index):
        with pytest.raises(LocationError, match="no document 'nope.md'"):
            index.get("nope.md")
        with pytest.raises(LocationError, match="past its end"):
            index.get("datasets/zh/config.md:100000")
        with pytest.raises(LocationError, match="has no pages"):
            index.get("datasets/zh/config.md:page 2")
    with pytest.raises(docql_sqlite.QueryError):
        pg_index.query("$.toc[?(@.level <<< 2)]")


def test_search_over_a_url_says_what_is_missing(both: tuple[Any, Any]) -> None:
    _, pg_index = both
    try:
        import docql_sqlite.pg.search  # noqa: F401
    except ModuleNotFoundError:
        with pytest.raises(DocQLError, match="search on PostgreSQL is not available yet"):
            pg_index.search("index configuration", mode="bm25")
        with pytest.raises(DocQLError, match="context on PostgreSQL is not available yet"):
            pg_index.context("how is it configured?")
    else:  # the pg-search branch has landed: the same top passages as the file
        file_index, _ = both
        got = pg_index.search("index configuration", mode="bm25", limit=5)
        assert got and {h["location"] for h in got} & {
            h["location"] for h in file_index.search("index configuration", mode="bm25", limit=5)
        }


def test_a_long_query_is_cancelled_by_postgresql(both: tuple[Any, Any]) -> None:
    _, pg_index = both
    with pytest.raises(docql_sqlite.QueryError, match="took too long"):
        list(pg_index.execute(_sleep(pg_index), timeout=0.2))


def _sleep(index: Any) -> Any:
    compiled = index.compile("$.files")
    return type(compiled)(
        **{**_fields(compiled), "sql": "SELECT pg_sleep(3), path AS _path FROM documents"}
    )


def _fields(compiled: Any) -> dict[str, Any]:
    import dataclasses

    return {f.name: getattr(compiled, f.name) for f in dataclasses.fields(compiled)}
