"""PostgreSQL: an index of schema 10 upgraded to 11 (`sql/postgres/011_refs_compact.sql`:
kinds and resolutions as small integers, `end_line` NULL when it is `line`, `refs_name`
on the name, `refs_staged` in place of `refs_pending_docs`) answers the same reference
rows as a fresh one, including the queued references of a run stopped before its pass.
A real PostgreSQL 16 (pgserver), as the other PostgreSQL tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pg_rows import content, postgres_runner, sqlite_runner
from pg_server import fresh_database, start_server

import docql_sqlite
from docql_sqlite.store.sqlite.db import SCHEMA_VERSION

psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the 'postgres' extra")

DATASETS_CODE = Path(__file__).resolve().parent.parent / "datasets" / "code"
# The layout schema 10 left, with the first five code files' references written
# `unresolved` and queued in `refs_pending_docs` (a run stopped before its pass).
AS_SCHEMA_10 = """
DROP INDEX refs_name;
ALTER TABLE refs ALTER COLUMN kind TYPE text USING
  CASE kind WHEN 0 THEN 'call' WHEN 1 THEN 'type' WHEN 2 THEN 'inherit' ELSE 'import' END;
ALTER TABLE refs ALTER COLUMN resolution DROP NOT NULL;
ALTER TABLE refs ALTER COLUMN resolution TYPE text USING
  CASE resolution WHEN 1 THEN 'local' WHEN 2 THEN 'import' WHEN 3 THEN 'unique'
    WHEN 4 THEN 'ambiguous' ELSE 'unresolved' END;
ALTER TABLE refs ALTER COLUMN candidates DROP NOT NULL;
UPDATE refs SET end_line = line WHERE end_line IS NULL;
ALTER TABLE refs ALTER COLUMN end_line SET NOT NULL;
CREATE INDEX refs_name ON refs(name, kind);
DROP TABLE refs_staged;
CREATE TABLE refs_pending_docs (doc_id bigint PRIMARY KEY);
INSERT INTO refs_pending_docs
  SELECT DISTINCT doc_id FROM refs ORDER BY doc_id LIMIT 5;
UPDATE refs SET target_id = NULL, resolution = 'unresolved', candidates = 0
  WHERE doc_id IN (SELECT doc_id FROM refs_pending_docs);
-- A schema-10 index was written by code content rules 3 at most (qualifiers came with
-- 4): its next run parses its code files again.
UPDATE documents SET content_rules = 3 WHERE format = 'code';
UPDATE meta SET value = '10' WHERE key = 'schema_version';
"""


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    yield from start_server()


def test_a_schema_10_postgres_index_upgraded_answers_the_same_rows(
    pg_server: Any, tmp_path: Path
) -> None:
    fresh = fresh_database(pg_server)
    docql_sqlite.index(fresh, [str(DATASETS_CODE)])
    expected = content(postgres_runner(fresh))["refs"]
    assert len(expected) > 500
    # and the same rows as a SQLite file of the same files
    file_db = tmp_path / "code.db"
    docql_sqlite.index(file_db, [str(DATASETS_CODE)])
    assert content(sqlite_runner(file_db))["refs"] == expected

    old = fresh_database(pg_server)
    docql_sqlite.index(old, [str(DATASETS_CODE)])
    with psycopg.connect(old, autocommit=True) as conn:
        conn.execute(AS_SCHEMA_10.encode())
        queued = conn.execute("SELECT count(*) FROM refs_pending_docs").fetchone()
    assert queued == (5,)
    with psycopg.connect(old) as conn:
        (code_files,) = conn.execute(
            "SELECT count(*) FROM documents WHERE format = 'code'"
        ).fetchone()
    report = docql_sqlite.index(old, [str(DATASETS_CODE)])
    # The code files alone are parsed again (older content rules); the rest is the
    # migration's and the pass's.
    assert len(report.updated) == code_files
    assert content(postgres_runner(old))["refs"] == expected
    with psycopg.connect(old) as conn:
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        staged = conn.execute("SELECT count(*) FROM refs_staged").fetchone()
        pending = conn.execute("SELECT to_regclass('refs_pending_docs')").fetchone()
        index = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'refs_name'"
        ).fetchone()
    assert version == (str(SCHEMA_VERSION),) and staged == (0,) and pending == (None,)
    assert index is not None and index[0].endswith("USING btree (name)"), index


def test_a_schema_13_postgres_index_gets_the_aliases_from_the_next_run(
    pg_server: Any, tmp_path: Path
) -> None:
    """Schema 14 (`sql/postgres/014_import_aliases.sql`): an import's alias, which a
    qualifier may be (`h.load` with `import pkg.helpers as h`). A schema-13 index of
    PostgreSQL (no `imports.alias`, code of content rules 4) parsed again by the next run
    holds the rows of a fresh one, which are the SQLite file's."""
    import shutil

    from test_code_references import _aliased_corpus

    corpus = tmp_path / "code"
    shutil.copytree(DATASETS_CODE, corpus)
    _aliased_corpus(corpus / "aliased")
    fresh = fresh_database(pg_server)
    docql_sqlite.index(fresh, [str(corpus)])
    expected = content(postgres_runner(fresh))
    aliases = sorted(row[-1] for row in expected["imports"] if row[-1] is not None)
    assert aliases == ["_", "f", "h", "h", "hp", "http", "j2", "mr", "np", "u", "u"], expected[
        "imports"
    ][:3]
    file_db = tmp_path / "code.db"
    docql_sqlite.index(file_db, [str(corpus)])
    on_file = content(sqlite_runner(file_db))
    assert on_file["imports"] == expected["imports"] and on_file["refs"] == expected["refs"]

    old = fresh_database(pg_server)
    docql_sqlite.index(old, [str(corpus)])
    with psycopg.connect(old, autocommit=True) as conn:
        conn.execute(
            b"ALTER TABLE imports DROP COLUMN alias; "
            b"UPDATE documents SET content_rules = 4 WHERE format = 'code'; "
            b"UPDATE meta SET value = '13' WHERE key = 'schema_version';"
        )
    report = docql_sqlite.index(old, [str(corpus)])
    assert report.updated  # the code files, parsed again
    upgraded = content(postgres_runner(old))
    assert upgraded["imports"] == expected["imports"] and upgraded["refs"] == expected["refs"]


@pytest.mark.parametrize(
    "tree, barrel, line, name",
    [
        # `pytest.raises` through the package's `from _pytest.python_api import raises`:
        # the writer queues the names a file's imports bind
        ("REEXPORTS", "pytest/__init__.py", "from _pytest.python_api import raises\n", "raises"),
        # zod's `core.clone(…)` through `export * from "./schemas.js"`: a mark for the
        # star (`resolve.STAR_MARK`), which the pass turns into the names behind it
        ("BARRELS", "ts/core/index.ts", 'export * from "./schemas.js";\n', "clone"),
    ],
)
def test_a_re_export_removed_decides_its_uses_again_on_both_engines(
    pg_server: Any, tmp_path: Path, tree: str, barrel: str, line: str, name: str
) -> None:
    """A module stops re-exporting a name: the pass decides its uses again, on
    PostgreSQL as on a SQLite file, row for row, before and after."""
    import test_code_references

    corpus = tmp_path / "src"
    for path, text in getattr(test_code_references, tree).items():
        (corpus / path).parent.mkdir(parents=True, exist_ok=True)
        (corpus / path).write_text(text)
    server, file_db = fresh_database(pg_server), tmp_path / "code.db"
    for target in (server, file_db):
        docql_sqlite.index(target, [str(corpus)])
    assert content(sqlite_runner(file_db))["refs"] == content(postgres_runner(server))["refs"]
    (corpus / barrel).write_text((corpus / barrel).read_text().replace(line, ""))
    for target in (server, file_db):
        docql_sqlite.index(target, [str(corpus)])
    assert content(sqlite_runner(file_db))["refs"] == content(postgres_runner(server))["refs"]
    with docql_sqlite.open(server) as index:
        links = [(r["resolution"], r["target"]) for r in index.query(f'$.code.callers("{name}")')]
    assert links == [("ambiguous", None)]  # the one call, through the re-export before
