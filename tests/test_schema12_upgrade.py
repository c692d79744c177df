"""Schema 12 (sql/012_smaller_rows.sql): `content_hash` as the first 8 bytes of the sha256
(a BLOB, was 32 hex digits), and no foreign keys (nor their indexes) on
`chunks.section_id` and `sections.parent_id`.

- a schema-11 file (the session's index rewritten as schema 11 laid it out: hex hashes in
  `chunks` and `chunk_vectors`, both foreign keys and their indexes, version 11) is refused
  by a reader, upgraded by the next writer, and then holds exactly the rows of the fresh
  index, ids included, and answers DocQL queries and searches the same;
- the optional chunk trigram index (`index --trigram`) keeps answering grep() the same;
- the embedding cache survives: an embedded schema-11 index, upgraded, embeds nothing
  again and finds the same nearest passages;
- a document changed after the upgrade is replaced whole (no row of its old sections or
  chunks is left behind without the foreign keys), and the titles' trigram index, which
  the writer keeps since schema 12 (no more triggers), stays in step;
- the sqlite3 shell (3.40 here) reads the upgraded file and its checks pass.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import apsw
import pytest
from conftest import chdir, query, trigram_copy
from pg_rows import content, sqlite_runner

import docql_sqlite
from docql_sqlite import IngestOptions
from docql_sqlite.errors import DatabaseError
from docql_sqlite.index import embed
from docql_sqlite.index import index as index_paths
from docql_sqlite.store.sqlite import db as dbmod

SQLITE3 = shutil.which("sqlite3", path="/usr/bin") or shutil.which("sqlite3")
REPO = Path(__file__).resolve().parents[1]

# The layout schema 11 left (sql/001_init.sql, 002_embeddings.sql, 009_title_trigrams.sql),
# with each hash as schema 11 computed it (`old_hash`: 32 hex digits of the sha256).
AS_SCHEMA_11 = """
DROP VIEW IF EXISTS toc;
DROP VIEW IF EXISTS passages;
DROP VIEW IF EXISTS codeblocks_code;
CREATE TABLE chunks_v11 (
  id           INTEGER PRIMARY KEY,
  doc_id       INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  section_id   INTEGER REFERENCES sections(id) ON DELETE CASCADE,
  chunk_index  INTEGER NOT NULL,
  line         INTEGER NOT NULL,
  end_line     INTEGER NOT NULL,
  page         INTEGER,
  start_offset INTEGER NOT NULL,
  end_offset   INTEGER NOT NULL,
  content      TEXT NOT NULL,
  fold         TEXT,
  content_hash TEXT NOT NULL
);
INSERT INTO chunks_v11 SELECT id, doc_id, section_id, chunk_index, line, end_line, page,
  start_offset, end_offset, content, fold, old_hash(content) FROM chunks ORDER BY id;
DROP TABLE chunks;
ALTER TABLE chunks_v11 RENAME TO chunks;
CREATE INDEX chunks_doc ON chunks(doc_id, chunk_index);
CREATE INDEX chunks_section ON chunks(section_id);
CREATE TABLE sections_v11 (
  id           INTEGER PRIMARY KEY,
  doc_id       INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord          INTEGER NOT NULL,
  level        INTEGER NOT NULL,
  depth        INTEGER NOT NULL,
  title        TEXT NOT NULL,
  title_fold   TEXT NOT NULL,
  number       TEXT NOT NULL,
  anchor       TEXT NOT NULL,
  parent_id    INTEGER REFERENCES sections(id) ON DELETE CASCADE,
  line         INTEGER NOT NULL,
  end_line     INTEGER NOT NULL,
  own_end_line INTEGER NOT NULL,
  page         INTEGER
);
INSERT INTO sections_v11 SELECT * FROM sections ORDER BY id;
DROP TABLE sections;
ALTER TABLE sections_v11 RENAME TO sections;
CREATE INDEX sections_doc ON sections(doc_id, ord);
CREATE INDEX sections_parent ON sections(parent_id);
CREATE INDEX sections_anchor ON sections(anchor, doc_id);
CREATE INDEX sections_number_doc ON sections(number, doc_id);
CREATE TRIGGER sections_trigram_insert AFTER INSERT ON sections BEGIN
  INSERT INTO sections_trigram(rowid, title_fold) VALUES (new.id, new.title_fold);
END;
CREATE TRIGGER sections_trigram_delete AFTER DELETE ON sections BEGIN
  INSERT INTO sections_trigram(sections_trigram, rowid, title_fold)
  VALUES ('delete', old.id, old.title_fold);
END;
CREATE TRIGGER sections_trigram_update AFTER UPDATE OF id, title_fold ON sections
BEGIN
  INSERT INTO sections_trigram(sections_trigram, rowid, title_fold)
  VALUES ('delete', old.id, old.title_fold);
  INSERT INTO sections_trigram(rowid, title_fold) VALUES (new.id, new.title_fold);
END;
CREATE TABLE chunk_vectors_v11 (
  chunk_id     INTEGER PRIMARY KEY,
  doc_id       INTEGER NOT NULL,
  content_hash TEXT NOT NULL
);
INSERT INTO chunk_vectors_v11
  SELECT cv.chunk_id, cv.doc_id,
    coalesce(old_hash(c.content), lower(hex(cv.content_hash)) || '0123456789abcdef')
  FROM chunk_vectors cv LEFT JOIN chunks c ON c.id = cv.chunk_id
    AND c.content_hash = cv.content_hash;
DROP TABLE chunk_vectors;
ALTER TABLE chunk_vectors_v11 RENAME TO chunk_vectors;
CREATE INDEX chunk_vectors_hash ON chunk_vectors(content_hash);
ALTER TABLE refs DROP COLUMN qualifier;
ALTER TABLE imports DROP COLUMN alias;
UPDATE meta SET value = '11' WHERE key = 'schema_version';
"""
# Every stored row, ids included (a migration keeps ids): table → SELECT.
RAW_ROWS = {
    "chunks": "SELECT * FROM chunks ORDER BY id",
    "sections": "SELECT * FROM sections ORDER BY id",
    "chunk_vectors": "SELECT * FROM chunk_vectors ORDER BY chunk_id",
}
QUERIES = [
    '$.content.chapter("#installation")',
    '$.files[?(@.name=="install.md")].content.chapter("1")',
    '$.content.heading("install")',
    "$.toc[?(@.level==2)][0:10]",
    '$.content.chapter("1.1")',
    "$.code.classes",
]
SEARCHES = ["install the package", "架构 设计", '"query plan"', "DocQLLexer tokens"]


def old_hash(text: str | None) -> str | None:
    """A chunk's `content_hash` as schema 11 wrote it."""
    if text is None:
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def as_schema_11(source: Path, dest: Path) -> Path:
    """A copy of `source` laid out as schema 11 wrote it."""
    shutil.copy(source, dest)
    conn = apsw.Connection(str(dest))
    conn.create_scalar_function("old_hash", old_hash, 1, deterministic=True)
    try:
        with conn:
            conn.execute(AS_SCHEMA_11)
            conn.execute((dbmod.sql_dir() / "views.sql").read_text(encoding="utf-8"))
        conn.execute("VACUUM")
    finally:
        conn.close()
    return dest


def raw_rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    return {table: query(path, sql) for table, sql in RAW_ROWS.items()}


def names(path: Path, kind: str) -> set[str]:
    return {r[0] for r in query(path, "SELECT name FROM sqlite_master WHERE type = ?", (kind,))}


def answers(path: Path) -> list[object]:
    with docql_sqlite.open(path) as index:
        found: list[object] = [list(index.query(q)) for q in QUERIES]
        found += [[h["location"] for h in index.search(s, limit=10)] for s in SEARCHES]
    return found


def test_a_fresh_index_stores_8_bytes_of_the_sha256(corpus_db: Path) -> None:
    rows = query(corpus_db, "SELECT content, content_hash FROM chunks")
    assert len(rows) > 100
    for text, stored in rows:
        assert stored == hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8]
    assert query(corpus_db, "SELECT \"from\" FROM pragma_foreign_key_list('chunks')") == [
        ("doc_id",)
    ]
    assert query(corpus_db, "SELECT \"from\" FROM pragma_foreign_key_list('sections')") == [
        ("doc_id",)
    ]
    assert not {"chunks_section", "sections_parent"} & names(corpus_db, "index")


def test_a_schema_11_file_upgraded_holds_the_rows_of_a_fresh_one(
    corpus_db: Path, tmp_path: Path
) -> None:
    old = as_schema_11(corpus_db, tmp_path / "old.db")
    assert query(old, "SELECT DISTINCT typeof(content_hash), length(content_hash) FROM chunks") == [
        ("text", 32)
    ]
    assert {"chunks_section", "sections_parent"} <= names(old, "index")
    with pytest.raises(
        DatabaseError, match=f"schema 11; this docql-sqlite needs schema {dbmod.SCHEMA_VERSION}"
    ):
        docql_sqlite.open(old)
    dbmod.connect(old).close()  # what the next `index` run does first
    assert raw_rows(old) == raw_rows(corpus_db)
    upgraded, fresh = content(sqlite_runner(old)), content(sqlite_runner(corpus_db))
    # Schema 11 had no `imports.alias` (schema 14): the migration adds the column empty
    # and the next run's re-parse fills it (the code content rules; checked by
    # test_code_references.test_an_older_index_gets_its_qualifiers_and_aliases_...): a
    # CommonJS `const http = require("node:http")` in datasets binds one.
    assert [r[:-1] for r in upgraded.pop("imports")] == [r[:-1] for r in fresh.pop("imports")]
    assert upgraded == fresh
    assert names(old, "index") == names(corpus_db, "index")
    assert names(old, "trigger") == names(corpus_db, "trigger") == set()  # the writer's job
    assert names(old, "view") == names(corpus_db, "view")
    # The trigram index of the titles keeps every row (a sub-section's title once went
    # out of it with the rebuilt table: the cascade of `parent_id` fired its trigger).
    trigrams = "SELECT rowid FROM sections_trigram WHERE sections_trigram MATCH 'ins' ORDER BY 1"
    assert len(query(old, trigrams)) > 3 and query(old, trigrams) == query(corpus_db, trigrams)
    assert answers(old) == answers(corpus_db)
    assert query(old, "PRAGMA foreign_key_check") == []


def test_the_optional_chunk_trigrams_survive_the_upgrade(corpus_db: Path, tmp_path: Path) -> None:
    """`index --trigram`'s table is contentless, keyed by chunk id: the rebuilt `chunks`
    keeps the ids, so grep() reads the same candidates."""
    fresh = trigram_copy(corpus_db, tmp_path / "fresh.db")
    old = as_schema_11(fresh, tmp_path / "old.db")
    dbmod.connect(old).close()
    greps = ['$.content.grep("replication")', '$.content.grep("install")', '$.content.grep("架构")']
    with docql_sqlite.open(old) as upgraded, docql_sqlite.open(fresh) as expected:
        assert upgraded.has_chunk_trigrams
        for grep in greps:
            assert list(upgraded.query(grep)) == list(expected.query(grep)), grep
        assert list(expected.query(greps[0]))
    conn = apsw.Connection(str(old))
    conn.execute("INSERT INTO chunks_trigram(chunks_trigram) VALUES ('integrity-check')")
    conn.close()


def test_the_embedding_cache_survives_the_upgrade(hash_embedded_db: Path, tmp_path: Path) -> None:
    old = as_schema_11(hash_embedded_db, tmp_path / "embedded.db")
    hexed = query(old, "SELECT count(*) FROM chunk_vectors WHERE length(content_hash) = 32")
    assert hexed[0][0] > 100
    dbmod.connect(old).close()
    assert raw_rows(old) == raw_rows(hash_embedded_db)
    report = embed(old, "hash")
    assert report["embedded"] == 0 and report["reused"] == 0
    assert report["unchanged"] == report["chunks"] > 100
    with docql_sqlite.Index(old) as upgraded, docql_sqlite.Index(hash_embedded_db) as fresh:
        for text in SEARCHES:
            got = [h["location"] for h in upgraded.search(text, mode="vector", limit=5)]
            assert got and got == [
                h["location"] for h in fresh.search(text, mode="vector", limit=5)
            ]


def test_a_document_changed_after_the_upgrade_is_replaced_whole(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nintro\n\n## B\n\nbee text\n\n### Cormorant\n\nsea text\n")
    (docs / "b.md").write_text("# Other\n\nkept as it was\n")
    built = tmp_path / "built.db"
    with chdir(tmp_path):
        index_paths(built, ["docs"], IngestOptions(workers=0))
    old = as_schema_11(built, tmp_path / "old.db")
    (docs / "a.md").write_text("# A\n\nintro, changed\n\n## D\n\ndee text\n")
    fresh = tmp_path / "fresh.db"
    with chdir(tmp_path):
        report = index_paths(old, ["docs"], IngestOptions(workers=0))
        index_paths(fresh, ["docs"], IngestOptions(workers=0))
    assert report.updated == ["docs/a.md"]
    assert content(sqlite_runner(old)) == content(sqlite_runner(fresh))
    orphans = query(
        old,
        "SELECT (SELECT count(*) FROM chunks WHERE section_id NOT IN (SELECT id FROM sections))"
        " + (SELECT count(*) FROM sections WHERE parent_id NOT IN (SELECT id FROM sections))"
        " + (SELECT count(*) FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents))",
    )
    assert orphans == [(0,)]
    conn = apsw.Connection(str(old))
    conn.execute("INSERT INTO sections_trigram(sections_trigram) VALUES ('integrity-check')")
    conn.close()
    with docql_sqlite.open(old) as index:
        assert [h["title"] for h in index.query('$.content.heading("D")')][0] == "D"
        assert not list(index.query('$.content.heading("cormorant")'))


@pytest.mark.skipif(SQLITE3 is None, reason="no sqlite3 shell on PATH")
def test_the_sqlite3_shell_reads_the_upgraded_file(corpus_db: Path, tmp_path: Path) -> None:
    old = as_schema_11(corpus_db, tmp_path / "shell.db")
    dbmod.connect(old).close()
    assert SQLITE3 is not None
    done = subprocess.run(
        [
            SQLITE3,
            "-readonly",
            str(old),
            "PRAGMA integrity_check;",
            "PRAGMA foreign_key_check;",
            "SELECT DISTINCT typeof(content_hash) || ' ' || length(content_hash) FROM chunks;",
            "SELECT count(*) > 0 FROM passages JOIN toc USING (doc_id);",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["ok", "blob 8", "1"]
