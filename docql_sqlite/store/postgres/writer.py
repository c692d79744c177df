"""`PostgresWriter`: write parsed documents into a PostgreSQL index, from many writers at once.

The same rows as the file's writer (`store/sqlite/writer.py`), from the same `Parsed`
objects (their rows, folds, hashes and FTS texts, and here the tsvector literals, are
computed by the parser processes), with what concurrency on a server needs
(docs/scale-out.md, "Many writers"):

- Each document is written in its own transaction (`batch_documents` is False), which
  first takes a transaction-level advisory lock on its URI: two writers that meet on one
  file take turns, writers on different files never wait for each other. There is no
  global lock. The document's statements are pipelined: sent without waiting for each
  other's answers.
- The document row is an `INSERT … ON CONFLICT (uri) DO UPDATE`: a URI has one row, its
  id stays, and its dependent rows (sections, chunks and their tsvector, code blocks,
  tables, front matter, entities, symbols) are deleted and written again.
- Every id comes from a sequence (`sql/postgres/writer.sql`), never from max(id) + 1.
- The tsvector of a chunk is built from the same CJK-spaced title and body texts as the
  FTS5 columns, with the same token stream (`fts_tokens.tsvector_literal`), as copy does.
- The resolution pass runs one writer at a time (a session lock); the run's bookkeeping
  in `meta` is a one-row upsert; the vector table and its model's `meta` rows are created
  under an advisory lock, and vector rows are upserts, so two writers that embed the same
  chunk at once leave one row.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import psycopg

from ...errors import DatabaseError, EmbeddingError
from ...fts_tokens import tsvector_literal
from ...schema import KEY_DIMENSIONS, KEY_FINGERPRINT, KEY_MODEL, VEC_TABLE
from ..writer import (
    DOCUMENT_COLUMNS,
    DocumentNotStored,
    FailedFiles,
    Parsed,
    Resolve,
    StaleChunk,
    StoredDoc,
    Writer,
    codeblock_rows,
    document_values,
    entity_rows,
    import_rows,
    now,
    staged_references,
    symbol_rows,
    table_rows,
    to_json,
)
from . import connect as pg

if TYPE_CHECKING:
    from .engine import PostgresStore

# pg_advisory_xact_lock(int, int) key spaces (the one-bigint form, used by migration, is
# a separate space): one document's URI, the writers' set-up (and, as a session lock,
# the resolution pass), the vector table.
URI_LOCK = 0x646F6301
SETUP_LOCK = 0x646F6302
VEC_LOCK = 0x646F6303
SEQUENCE_TABLES = (
    "documents",
    "sections",
    "chunks",
    "codeblocks",
    "tables",
    "entities",
    "symbols",
    "ingest_errors",
)
# Dependent rows of a document, deleted before its new rows are written (chunks first:
# their tsvector rows go with them, and sections are referenced by chunks). The staged
# references before `refs`: while a resolution pass is moving this document's staged row
# into `refs`, the delete of `refs_staged` waits for it to commit, and the delete of
# `refs` then sees (and removes) what it inserted.
# The names a document defines or binds by an import, queued for the resolution pass
# (`ingest/resolve.py`: a package's imports are what it re-exports).
# A star (`export * from "m"`, `from m import *`) as `resolve.star_mark`'s line, which the
# pass turns into the names the module behind it holds.
_NAMES_OF_DOCUMENT = (
    "SELECT name FROM symbols WHERE doc_id = %s "
    "UNION SELECT CASE WHEN j.value = '*' THEN '*' || chr(10) || coalesce(d.language, '') "
    "|| chr(10) || d.path || chr(10) || i.module ELSE j.value END "
    "FROM imports i JOIN documents d ON d.id = i.doc_id, "
    "jsonb_array_elements_text(i.names::jsonb) j(value) WHERE i.doc_id = %s "
    "UNION SELECT alias FROM imports WHERE doc_id = %s AND alias IS NOT NULL"
)
DEPENDENT_TABLES = (
    "chunks",
    "sections",
    "codeblocks",
    "tables",
    "frontmatter",
    "entities",
    "symbols",
    "refs_staged",
    "refs",
    "imports",
)
_STALE = """FROM chunks c LEFT JOIN chunk_vectors cv ON cv.chunk_id = c.id
           WHERE cv.chunk_id IS NULL OR cv.content_hash != c.content_hash
              OR cv.doc_id != c.doc_id"""


class PostgresWriter(Writer):
    """A writer on the PostgreSQL index of `store` (opened with readonly=False; its
    session is autocommit: every unit of work here is its own `conn.transaction()`)."""

    batch_documents = False
    concurrent = True
    wants_tsvectors = True

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        self.conn: psycopg.Connection = store.conn

    # -- a run ------------------------------------------------------------------------
    @contextmanager
    def run_errors(self) -> Iterator[None]:
        try:
            yield
        except psycopg.Error as exc:
            raise DatabaseError(
                f"writing to {self.store.label} failed: {pg.first_line(exc)}; every document "
                f"committed before this is kept: run the same index command again to finish"
            ) from None

    def prepare(self, *, trigram: bool) -> None:
        """Create the id sequences (once) and move each past the ids already in its table
        (`trigram` asks for nothing here: pg_trgm over chunks is not built, design B35)."""
        conn = self.conn
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (SETUP_LOCK,))
            conn.execute((pg.sql_dir() / "writer.sql").read_text(encoding="utf-8").encode())
            for table in SEQUENCE_TABLES:
                # Only forwards, and only past ids that no nextval() gave (a copied index):
                # another writer may be drawing ids right now, and a setval() to a value it
                # has passed would hand its ids out again (duplicate keys).
                # `last_value + is_called` is the id nextval() gives next.
                sql = (
                    f"SELECT setval('{table}_id_seq', m) FROM (SELECT max(id) AS m FROM {table}) "
                    f"t WHERE m >= (SELECT last_value + is_called::int FROM {table}_id_seq)"
                )
                conn.execute(sql.encode())

    def _lock(self, uri: str) -> None:
        """Take this transaction's turn on `uri` (released at commit or rollback)."""
        self.conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (URI_LOCK, uri))

    def stored_documents(self) -> dict[str, StoredDoc]:
        rows = self.conn.execute(
            "SELECT id, uri, size, mtime_ns, sha256, path, chunk_chars, uri_bytes, format, "
            "content_rules FROM documents"
        ).fetchall()
        return {
            uri: StoredDoc(doc_id, size, mtime_ns, sha, path, chunk_chars, raw, fmt, rules)
            for doc_id, uri, size, mtime_ns, sha, path, chunk_chars, raw, fmt, rules in rows
        }

    def failed_files(self) -> FailedFiles:
        rows = self.conn.execute(
            "SELECT uri, size, mtime_ns, reason FROM ingest_errors "
            "WHERE severity = 'error' AND size IS NOT NULL"
        ).fetchall()
        return {uri: ((int(size), mtime_ns), reason) for uri, size, mtime_ns, reason in rows}

    def error_uris(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT uri FROM ingest_errors")]

    def move_documents(self, moves: list[tuple[str, str, bytes | None]]) -> None:
        for old, new, raw in moves:
            with self.conn.transaction():
                self.conn.execute(
                    "UPDATE documents SET uri = %s, uri_bytes = %s WHERE uri = %s", (new, raw, old)
                )
                self.conn.execute("UPDATE ingest_errors SET uri = %s WHERE uri = %s", (new, old))

    def rename_documents(self, renamed: list[tuple[str, str]]) -> None:
        for path, uri in renamed:
            with self.conn.transaction():
                self.conn.execute("UPDATE documents SET path = %s WHERE uri = %s", (path, uri))

    @contextmanager
    def batch(self) -> Iterator[None]:
        yield  # each document commits alone

    @contextmanager
    def document(self, uri: str) -> Iterator[None]:
        try:
            # Pipelined: the statements go out without waiting for each other's answers;
            # the document's upsert (its ids) is the one answer waited for.
            with self.conn.pipeline(), self.conn.transaction():
                self._lock(uri)
                yield
        except psycopg.OperationalError:
            raise  # the connection or the server: the run stops (`run_errors` says how to resume)
        except (psycopg.Error, ValueError) as exc:  # this document's rows: rolled back
            raise DocumentNotStored(
                f"could not be stored: {type(exc).__name__}: {pg.first_line(exc)}"
            ) from None

    def replace_document(self, parsed: Parsed) -> None:
        conn = self.conn
        values = document_values(parsed)
        columns = [c.strip() for c in DOCUMENT_COLUMNS.split(",")]
        updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c != "uri")
        marks = ", ".join("%s" for _ in values)
        # One round trip: the document row, and the ids of its sections and chunks (which
        # the rows below reference), drawn from their sequences in the same statement.
        row = conn.execute(
            f"WITH d AS (INSERT INTO documents(id, {DOCUMENT_COLUMNS}) VALUES "
            f"(nextval('documents_id_seq'), {marks}) ON CONFLICT (uri) DO UPDATE SET {updates} "
            f"RETURNING id, xmax = 0 AS inserted) "
            f"SELECT d.id, d.inserted, "
            f"ARRAY(SELECT nextval('sections_id_seq') FROM generate_series(1, %s)), "
            f"ARRAY(SELECT nextval('chunks_id_seq') FROM generate_series(1, %s)) FROM d".encode(),
            (*values, len(parsed.section_rows), len(parsed.chunk_rows)),
        ).fetchone()
        assert row is not None  # INSERT … RETURNING always returns the row
        doc_id, inserted = int(row[0]), bool(row[1])  # xmax = 0: a new row, nothing to delete
        section_ids, chunk_ids = [int(i) for i in row[2]], [int(i) for i in row[3]]
        # The rest needs no answer: pipelined (`document`), one statement a table.
        if not inserted:
            self._queue_resolution(_NAMES_OF_DOCUMENT, (doc_id, doc_id, doc_id))
            for table in DEPENDENT_TABLES:
                conn.execute(f"DELETE FROM {table} WHERE doc_id = %s".encode(), (doc_id,))
        ids = self._insert_sections(doc_id, parsed.section_rows, section_ids)
        self._insert_chunks(doc_id, parsed, ids, chunk_ids)
        self._insert_extras(doc_id, parsed)

    def delete_document(self, uri: str) -> None:
        """Its dependent rows go with it (ON DELETE CASCADE)."""
        self._queue_resolution(
            _NAMES_OF_DOCUMENT.replace("= %s", "= (SELECT id FROM documents WHERE uri = %s)"),
            (uri, uri, uri),
        )
        self.conn.execute("DELETE FROM documents WHERE uri = %s", (uri,))

    def touch(self, uri: str, mtime_ns: int | None, path: str) -> None:
        self.conn.execute(
            "UPDATE documents SET mtime = %s, mtime_ns = %s, path = %s WHERE uri = %s",
            (mtime_ns / 1e9 if mtime_ns else None, mtime_ns, path, uri),
        )

    def record_problem(
        self,
        path: str,
        uri: str,
        severity: str,
        reason: str,
        file_stat: tuple[int, int | None] | None = None,
    ) -> None:
        size, mtime_ns = file_stat if file_stat is not None else (None, None)
        self.conn.execute(
            "INSERT INTO ingest_errors(id, path, uri, severity, reason, at, size, mtime_ns) "
            "VALUES (nextval('ingest_errors_id_seq'), %s, %s, %s, %s, %s, %s, %s)",
            (path, uri, severity, reason, now(), size, mtime_ns),
        )

    def clear_problems(self, uri: str) -> None:
        self.conn.execute("DELETE FROM ingest_errors WHERE uri = %s", (uri,))

    def resolve_references(self, resolve: Resolve) -> None:
        """One writer at a time (a session lock). The names are taken and committed
        first, so writers still writing never wait on the pass's locks (the pass resolves;
        they only queue); a writer that queues a name again after that adds a row that its
        own pass (which runs after its writes) reads. The staged references are taken in
        the pass's own transaction (a failed pass leaves them staged), then the documents
        they belong to are locked against deletion (`FOR KEY SHARE`: a writer replacing a
        document keeps its row and id, and is not held up), and the references of a
        document deleted meanwhile are dropped. A writer only ever deletes the staged rows
        of the one document it writes, which the pass may hold: then the writer waits for
        the pass, never the other way round (`DEPENDENT_TABLES`)."""
        conn = self.conn
        conn.execute("SELECT pg_advisory_lock(%s, 1)", (SETUP_LOCK,))
        try:
            with conn.transaction():
                names = {n for (n,) in conn.execute("DELETE FROM refs_pending RETURNING name")}
            try:
                with conn.transaction():
                    staged = conn.execute(
                        "DELETE FROM refs_staged RETURNING doc_id, refs"
                    ).fetchall()
                    if staged:
                        live = {
                            d
                            for (d,) in conn.execute(
                                "SELECT id FROM documents WHERE id = ANY(%s) ORDER BY id "
                                "FOR KEY SHARE",
                                (sorted(row[0] for row in staged),),
                            )
                        }
                        staged = sorted(row for row in staged if row[0] in live)
                    resolve(conn, names, staged, self.store.dialect)
            except BaseException:
                with conn.transaction(), conn.cursor() as cursor:  # put the names back
                    cursor.executemany(
                        "INSERT INTO refs_pending(name) VALUES (%s) ON CONFLICT DO NOTHING",
                        [(n,) for n in sorted(names)],
                    )
                raise
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s, 1)", (SETUP_LOCK,))

    def meta(self, key: str) -> str | None:
        return pg.get_meta(self.conn, key)

    def set_meta(self, key: str, value: str) -> None:
        with self.conn.transaction():
            pg.set_meta(self.conn, key, value)

    def finish(self) -> None:
        """Nothing to do: every document is committed."""

    # -- the rows of a document -------------------------------------------------------
    def _queue_resolution(self, names_sql: str, params: tuple[Any, ...]) -> None:
        """The names a document defines or binds by an import (`_NAMES_OF_DOCUMENT`),
        queued for the resolution pass."""
        self.conn.execute(
            # In name order: two writers queueing the same names lock them in one order
            # (no deadlock between their transactions).
            f"INSERT INTO refs_pending(name) SELECT DISTINCT n.name FROM ({names_sql}) n "
            "ORDER BY n.name ON CONFLICT DO NOTHING".encode(),
            params,
        )

    def _insert_sections(
        self, doc_id: int, rows: list[tuple[Any, ...]], new_ids: list[int]
    ) -> dict[int, int]:
        ids = dict(zip((r[0] for r in rows), new_ids))
        # One statement: a parent referenced by a row of the same statement is checked at
        # its end (PostgreSQL's foreign keys are checked after the statement, not each row).
        _insert_rows(
            self.conn,
            "sections",
            SECTION_COLUMNS,
            [
                (ids[r[0]], doc_id, *r[:7], None if r[7] is None else ids[r[7]], *r[8:])
                for r in sorted(rows, key=lambda r: r[0])
            ],
        )
        return ids

    def _insert_chunks(
        self, doc_id: int, parsed: Parsed, section_ids: dict[int, int], ids: list[int]
    ) -> None:
        rows = parsed.chunk_rows
        _insert_rows(
            self.conn,
            "chunks",
            CHUNK_COLUMNS,
            [
                (chunk_id, doc_id, None if r[0] is None else section_ids[r[0]], *r[1:10])
                for chunk_id, r in zip(ids, rows)
            ],
        )
        # The parser processes computed the tsvector literals (`wants_tsvectors`); else
        # from r[10], r[11]: the CJK-spaced title and body, exactly as FTS5 gets them.
        tsvectors = parsed.tsvectors
        if tsvectors is None:
            tsvectors = [tsvector_literal(r[10], r[11]) for r in rows]
        if ids:
            self.conn.execute(
                "INSERT INTO chunks_fts(rowid, tsv) SELECT r, t::tsvector "
                "FROM unnest(%s::bigint[], %s::text[]) AS u(r, t)",
                (ids, tsvectors),
            )

    def _insert_extras(self, doc_id: int, parsed: Parsed) -> None:
        doc = parsed.doc
        conn = self.conn
        if doc.frontmatter is not None:
            conn.execute(
                "INSERT INTO frontmatter(doc_id, data) VALUES (%s, %s)",
                (doc_id, to_json(doc.frontmatter)),
            )
        _insert_rows(
            conn, "codeblocks", CODEBLOCK_COLUMNS, codeblock_rows(doc_id, parsed), sequence=True
        )
        _insert_rows(conn, "tables", TABLE_COLUMNS, table_rows(doc_id, parsed), sequence=True)
        _insert_rows(conn, "entities", ENTITY_COLUMNS, entity_rows(doc_id, parsed), sequence=True)
        _insert_rows(conn, "symbols", SYMBOL_COLUMNS, symbol_rows(doc_id, parsed), sequence=True)
        # The resolution pass inserts them into `refs` (`ingest/resolve.py`).
        staged = staged_references(parsed)
        if staged is not None:
            conn.execute("INSERT INTO refs_staged(doc_id, refs) VALUES (%s, %s)", (doc_id, staged))
        _insert_rows(conn, "imports", IMPORT_COLUMNS, import_rows(doc_id, parsed))
        if doc.symbols or doc.imports:
            self._queue_resolution(_NAMES_OF_DOCUMENT, (doc_id, doc_id, doc_id))

    # -- vectors ----------------------------------------------------------------------
    @contextmanager
    def embed_errors(self) -> Iterator[None]:
        try:
            yield
        except psycopg.Error as exc:
            raise EmbeddingError(
                f"embedding into {self.store.label} failed: {pg.first_line(exc)}"
            ) from None

    def check_vectors(self) -> None:
        """pgvector is created with the schema (`sql/postgres/`): nothing to check."""

    def set_vector_model(
        self, model_id: str, dimensions: int, fingerprint: str, *, replace: bool
    ) -> int:
        conn = self.conn
        removed = 0
        if replace:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (VEC_LOCK,))
                removed = int(pg.scalar(conn, "SELECT count(*) FROM chunk_vectors"))
                conn.execute(f"DROP TABLE IF EXISTS {VEC_TABLE}".encode())
                conn.execute("DELETE FROM chunk_vectors")
                conn.execute(
                    "DELETE FROM meta WHERE key IN (%s, %s, %s)",
                    (KEY_MODEL, KEY_DIMENSIONS, KEY_FINGERPRINT),
                )
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (VEC_LOCK,))
            # Else another writer created it meanwhile: the caller checks it is this model.
            if not pg.table_exists(conn, VEC_TABLE):
                pg.create_vec_table(conn, dimensions)
                conn.execute("DELETE FROM chunk_vectors")  # rows without vectors are meaningless
                pg.set_meta(conn, KEY_MODEL, model_id)
                pg.set_meta(conn, KEY_DIMENSIONS, str(dimensions))
                pg.set_meta(conn, KEY_FINGERPRINT, fingerprint)
        return removed

    def stale_chunk_count(self) -> int:
        return int(pg.scalar(self.conn, f"SELECT count(*) {_STALE}"))

    def stale_chunks(self) -> list[StaleChunk]:
        return [
            (int(a), int(b), bytes(c), str(d))
            for a, b, c, d in self.conn.execute(
                f"SELECT c.id, c.doc_id, c.content_hash, c.content {_STALE} ORDER BY c.id".encode()
            ).fetchall()
        ]

    def chunk_count(self) -> int:
        return int(pg.scalar(self.conn, "SELECT count(*) FROM chunks"))

    def stored_vectors(self, hashes: set[bytes]) -> dict[bytes, Any]:
        return dict(
            self.conn.execute(
                "SELECT DISTINCT ON (cv.content_hash) cv.content_hash, v.embedding::text "
                f"FROM chunk_vectors cv JOIN {VEC_TABLE} v ON v.rowid = cv.chunk_id "
                "WHERE cv.content_hash = ANY(%s)".encode(),
                (sorted(hashes),),
            ).fetchall()
        )

    def vector_value(self, blob: bytes) -> Any:
        return vector_literal(blob)

    def write_vectors(self, rows: list[tuple[int, int, bytes, Any]]) -> None:
        with self.conn.transaction(), self.conn.cursor() as cursor:
            vectors = [(c, vector, doc_id) for c, doc_id, _, vector in rows if vector is not None]
            if vectors:
                cursor.executemany(
                    f"INSERT INTO {VEC_TABLE}(rowid, embedding, doc_id) VALUES (%s, %s, %s) "
                    "ON CONFLICT (rowid) DO UPDATE SET embedding = excluded.embedding, "
                    "doc_id = excluded.doc_id".encode(),
                    vectors,
                )
            # Nothing to embed, no vector (the base's doc): one it had goes.
            none = [c for c, _, _, vector in rows if vector is None]
            if none:
                cursor.execute(f"DELETE FROM {VEC_TABLE} WHERE rowid = ANY(%s)".encode(), (none,))
            cursor.executemany(
                "INSERT INTO chunk_vectors(chunk_id, doc_id, content_hash) VALUES (%s, %s, %s) "
                "ON CONFLICT (chunk_id) DO UPDATE SET doc_id = excluded.doc_id, "
                "content_hash = excluded.content_hash",
                [(chunk_id, doc_id, h) for chunk_id, doc_id, h, _ in rows],
            )

    def drop_orphan_vectors(self) -> int:
        with self.conn.transaction():
            removed = int(
                pg.scalar(
                    self.conn,
                    f"WITH gone AS (DELETE FROM {VEC_TABLE} WHERE rowid NOT IN "
                    "(SELECT id FROM chunks) RETURNING 1) SELECT count(*) FROM gone",
                )
            )
            self.conn.execute(
                "DELETE FROM chunk_vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)"
            )
        return removed


def vector_literal(blob: bytes) -> str:
    """A float32 blob as pgvector text: the exact double of each float32 reads back as it."""
    values = struct.unpack(f"<{len(blob) // 4}f", blob)
    return "[" + ",".join(map(repr, values)) + "]"


# (column, type) of each table's rows as the functions above build them; `id` first where
# the writer gives it, left out where the table's sequence does (`sequence=True`).
SECTION_COLUMNS = (
    ("id", "bigint"),
    ("doc_id", "bigint"),
    ("ord", "bigint"),
    ("level", "bigint"),
    ("depth", "bigint"),
    ("title", "text"),
    ("title_fold", "text"),
    ("number", "text"),
    ("anchor", "text"),
    ("parent_id", "bigint"),
    ("line", "bigint"),
    ("end_line", "bigint"),
    ("own_end_line", "bigint"),
    ("page", "bigint"),
)
CHUNK_COLUMNS = (
    ("id", "bigint"),
    ("doc_id", "bigint"),
    ("section_id", "bigint"),
    ("chunk_index", "bigint"),
    ("line", "bigint"),
    ("end_line", "bigint"),
    ("page", "bigint"),
    ("start_offset", "bigint"),
    ("end_offset", "bigint"),
    ("content", "text"),
    ("fold", "text"),
    ("content_hash", "bytea"),
)
CODEBLOCK_COLUMNS = (
    ("doc_id", "bigint"),
    ("ord", "bigint"),
    ("language", "text"),
    ("code", "text"),
    ("body_start", "bigint"),
    ("body_end", "bigint"),
    ("line", "bigint"),
    ("end_line", "bigint"),
)
TABLE_COLUMNS = (
    ("doc_id", "bigint"),
    ("ord", "bigint"),
    ("headers", "text"),
    ("rows", "text"),
    ("row_count", "bigint"),
    ("column_count", "bigint"),
    ("line", "bigint"),
    ("end_line", "bigint"),
)
ENTITY_COLUMNS = (
    ("doc_id", "bigint"),
    ("ord", "bigint"),
    ("entity_type", "text"),
    ("name", "text"),
    ("name_fold", "text"),
    ("signature", "text"),
    ("definition", "text"),
    ("line", "bigint"),
    ("end_line", "bigint"),
)
IMPORT_COLUMNS = (
    ("doc_id", "bigint"),
    ("ord", "bigint"),
    ("module", "text"),
    ("names", "text"),
    ("line", "bigint"),
    ("end_line", "bigint"),
    ("alias", "text"),
)
SYMBOL_COLUMNS = (
    ("doc_id", "bigint"),
    ("ord", "bigint"),
    ("kind", "text"),
    ("name", "text"),
    ("name_fold", "text"),
    ("qualified_name", "text"),
    ("signature", "text"),
    ("language", "text"),
    ("parent", "text"),
    ("line", "bigint"),
    ("end_line", "bigint"),
    ("docstring", "text"),
)


def _insert_rows(
    conn: psycopg.Connection,
    table: str,
    columns: tuple[tuple[str, str], ...],
    rows: list[tuple[Any, ...]],
    *,
    sequence: bool = False,
) -> None:
    """Every row of one table in one statement: a typed array per column, unnested (a
    multi-row INSERT with as many parameters as columns, whatever the row count). With
    `sequence`, each row's id is the table's next sequence value, in row order."""
    if not rows:
        return
    names = ", ".join(name for name, _ in columns)
    arrays = ", ".join(f"%s::{kind}[]" for _, kind in columns)
    if sequence:
        sql = (
            f"INSERT INTO {table}(id, {names}) SELECT nextval('{table}_id_seq'), u.* "
            f"FROM unnest({arrays}) AS u"
        )
    else:
        sql = f"INSERT INTO {table}({names}) SELECT * FROM unnest({arrays})"
    conn.execute(sql.encode(), [list(column) for column in zip(*rows)])


__all__ = ["PostgresWriter", "vector_literal"]
