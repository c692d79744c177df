"""PostgreSQL: an index of schema 11 upgraded to 12 (`sql/postgres/012_smaller_rows.sql`:
`content_hash` as the first 8 bytes of the sha256, bytea, in `chunks` and
`chunk_vectors`) holds the rows of a fresh one, and of a SQLite file of the same files,
and keeps its embedding cache: nothing is embedded again. A real PostgreSQL 16
(pgserver), as the other PostgreSQL tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pg_rows import content, postgres_runner, sqlite_runner
from pg_server import fresh_database, start_server

import docql_sqlite
from docql_sqlite.store.sqlite import db as dbmod

psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the 'postgres' extra")

DATASETS_EN = Path(__file__).resolve().parent.parent / "datasets" / "en"
# The layout schema 11 left: 32 hex digits of the sha256 as text (the vectors' keys too).
AS_SCHEMA_11 = """
ALTER TABLE chunks ALTER COLUMN content_hash TYPE text
  USING left(encode(sha256(convert_to(content, 'UTF8')), 'hex'), 32);
ALTER TABLE chunk_vectors ALTER COLUMN content_hash TYPE text
  USING encode(content_hash, 'hex') || '0123456789abcdef';
UPDATE chunk_vectors cv SET content_hash = c.content_hash FROM chunks c
  WHERE c.id = cv.chunk_id AND left(c.content_hash, 16) = left(cv.content_hash, 16);
ALTER TABLE refs DROP COLUMN qualifier;
ALTER TABLE imports DROP COLUMN alias;
UPDATE meta SET value = '11' WHERE key = 'schema_version';
"""
VECTOR_KEYS = "SELECT chunk_id, doc_id, content_hash FROM chunk_vectors ORDER BY chunk_id"


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    yield from start_server()


def rows(url: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return [tuple(r) for r in conn.execute(sql.encode()).fetchall()]


def test_a_schema_11_postgres_index_upgraded_holds_the_same_rows(
    pg_server: Any, tmp_path: Path
) -> None:
    file_db = tmp_path / "en.db"
    docql_sqlite.index(file_db, [str(DATASETS_EN)])
    expected = content(sqlite_runner(file_db))
    assert len(expected["chunks"]) > 50

    old = fresh_database(pg_server)
    docql_sqlite.index(old, [str(DATASETS_EN)])
    assert docql_sqlite.embed(old, "hash")["embedded"] > 50
    assert content(postgres_runner(old)) == expected  # bytea hashes, as SQLite's BLOBs
    keys = rows(old, VECTOR_KEYS)
    with psycopg.connect(old, autocommit=True) as conn:
        conn.execute(AS_SCHEMA_11.encode())
    hexed = rows(old, "SELECT DISTINCT length(content_hash) FROM chunk_vectors")
    assert hexed == [(32,)]

    report = docql_sqlite.index(old, [str(DATASETS_EN)])
    assert not report.updated and not report.added  # the migration alone
    assert content(postgres_runner(old)) == expected
    assert rows(old, VECTOR_KEYS) == keys
    assert rows(old, "SELECT value FROM meta WHERE key = 'schema_version'") == [
        (str(dbmod.SCHEMA_VERSION),)
    ]
    again = docql_sqlite.embed(old, "hash")
    assert again["embedded"] == 0 and again["unchanged"] == again["chunks"]
