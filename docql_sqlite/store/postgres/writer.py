"""Write parsed documents into a PostgreSQL index, from many writers at once.

The same rows as `ingest/store.py` writes into a file, from the same `Parsed` objects
(their rows, folds, hashes and FTS texts are computed by the parser processes), with
what concurrency on a server needs (docs/scale-out.md, "Many writers"):

- Each document is replaced in its own transaction, which first takes a transaction-level
  advisory lock on its URI: two writers that meet on one file take turns, writers on
  different files never wait for each other. There is no global lock.
- The document row is an `INSERT … ON CONFLICT (uri) DO UPDATE`: a URI has one row, its
  id stays, and its dependent rows (sections, chunks and their tsvector, code blocks,
  tables, front matter, entities, symbols) are deleted and written again.
- Every id comes from a sequence (`sql/postgres/writer.sql`), never from max(id) + 1.
- The tsvector of a chunk is built from the same CJK-spaced title and body texts as the
  FTS5 columns, with the same token stream (`fts_tokens.tsvector_literal`), as copy does.

The caller owns the transaction of each function here except `prepare`.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import psycopg

from ...fts_tokens import tsvector_literal
from ...ingest.paths import raw_bytes, shown
from ...ingest.run import StoredDoc
from ...ingest.store import Parsed, _json, now
from ...text import fold
from ..writer import Writer

if TYPE_CHECKING:
    from .engine import PostgresStore
from . import connect as pg

# pg_advisory_xact_lock(int, int) key spaces (the one-bigint form, used by migration, is
# a separate space): one document's URI, and the writers' set-up.
URI_LOCK = 0x646F6301
SETUP_LOCK = 0x646F6302
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
# their tsvector rows go with them, and sections are referenced by chunks).
DEPENDENT_TABLES = (
    "chunks",
    "sections",
    "codeblocks",
    "tables",
    "frontmatter",
    "entities",
    "symbols",
    "refs",
    "imports",
)
DOCUMENT_COLUMNS = (
    "path, uri, name, directory, extension, format, language, title, size, lines, pages, "
    "mtime, mtime_ns, sha256, header_text, body_line, indexed_at, chunk_chars, uri_bytes, "
    "content_rules, page_lines"
)


def prepare(conn: psycopg.Connection) -> None:
    """Create the id sequences (once) and move each past the ids already in its table."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (SETUP_LOCK,))
        conn.execute((pg.sql_dir() / "writer.sql").read_text(encoding="utf-8").encode())
        for table in SEQUENCE_TABLES:
            # Only forwards, and only past ids that no nextval() gave (a copied index):
            # another writer may be drawing ids right now, and a setval() to a value it
            # has passed would hand its ids out again (duplicate keys). `last_value + is_called`
            # is the id nextval() gives next.
            conn.execute(
                f"SELECT setval('{table}_id_seq', m) FROM (SELECT max(id) AS m FROM {table}) t "
                f"WHERE m >= (SELECT last_value + is_called::int FROM {table}_id_seq)".encode()
            )


def lock_uri(conn: psycopg.Connection, uri: str) -> None:
    """Take this transaction's turn on `uri` (released at commit or rollback)."""
    conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (URI_LOCK, uri))


def stored_documents(conn: psycopg.Connection) -> dict[str, StoredDoc]:
    """What the index holds per URI: enough for the run to skip unchanged files."""
    rows = conn.execute(
        "SELECT id, uri, size, mtime_ns, sha256, path, chunk_chars, uri_bytes, format, "
        "content_rules FROM documents"
    ).fetchall()
    return {
        uri: StoredDoc(doc_id, size, mtime_ns, sha, path, chunk_chars, raw, fmt, rules)
        for doc_id, uri, size, mtime_ns, sha, path, chunk_chars, raw, fmt, rules in rows
    }


def error_uris(conn: psycopg.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT DISTINCT uri FROM ingest_errors").fetchall()]


def move(conn: psycopg.Connection, old: str, new: str, raw: bytes | None) -> None:
    """A document whose folder moved (`ingest.run._moved_here`): the same rows, a new URI."""
    conn.execute("UPDATE documents SET uri = %s, uri_bytes = %s WHERE uri = %s", (new, raw, old))
    conn.execute("UPDATE ingest_errors SET uri = %s WHERE uri = %s", (new, old))


def rename(conn: psycopg.Connection, path: str, uri: str) -> None:
    conn.execute("UPDATE documents SET path = %s WHERE uri = %s", (path, uri))


def touch(conn: psycopg.Connection, uri: str, mtime_ns: int | None, path: str) -> None:
    """An unchanged file (same bytes) with a new mtime or path."""
    conn.execute(
        "UPDATE documents SET mtime = %s, mtime_ns = %s, path = %s WHERE uri = %s",
        (mtime_ns / 1e9 if mtime_ns else None, mtime_ns, path, uri),
    )


def delete_document(conn: psycopg.Connection, uri: str) -> None:
    """Remove a document; its dependent rows go with it (ON DELETE CASCADE). Its vectors
    stay until the next embed, which reuses them for unchanged text, then drops them."""
    _queue_resolution(
        conn,
        "SELECT y.name FROM symbols y JOIN documents d ON d.id = y.doc_id WHERE d.uri = %s",
        (uri,),
    )
    conn.execute("DELETE FROM documents WHERE uri = %s", (uri,))


def _queue_resolution(conn: psycopg.Connection, names_sql: str, params: tuple[Any, ...]) -> None:
    """The names a document defines, queued for the resolution pass (ingest/resolve.py)."""
    conn.execute(
        # In name order: two writers queueing the same names lock them in one order
        # (no deadlock between their transactions).
        f"INSERT INTO refs_pending(name) SELECT DISTINCT n.name FROM ({names_sql}) n "
        "ORDER BY n.name ON CONFLICT DO NOTHING".encode(),
        params,
    )


def record_problem(
    conn: psycopg.Connection,
    path: str,
    uri: str,
    severity: str,
    reason: str,
    file_stat: tuple[int, int | None] | None = None,
) -> None:
    """One row of `ingest_errors`; `file_stat` (size, mtime_ns) of a file that failed to
    parse lets the next run skip it until it changes (`failed_files`), as on a file."""
    size, mtime_ns = file_stat if file_stat is not None else (None, None)
    conn.execute(
        "INSERT INTO ingest_errors(id, path, uri, severity, reason, at, size, mtime_ns) "
        "VALUES (nextval('ingest_errors_id_seq'), %s, %s, %s, %s, %s, %s, %s)",
        (shown(path), shown(uri), severity, shown(reason), now(), size, mtime_ns),
    )


def failed_files(conn: psycopg.Connection) -> dict[str, tuple[tuple[int, int | None], str]]:
    """uri → ((size, mtime_ns), reason) of the files whose last parse failed, as they were
    (the failed-file memo of `ingest.run._plan`; the twin of `ingest.store.failed_files`)."""
    rows = conn.execute(
        "SELECT uri, size, mtime_ns, reason FROM ingest_errors "
        "WHERE severity = 'error' AND size IS NOT NULL"
    ).fetchall()
    return {uri: ((int(size), mtime_ns), reason) for uri, size, mtime_ns, reason in rows}


def clear_problems(conn: psycopg.Connection, uri: str) -> None:
    conn.execute("DELETE FROM ingest_errors WHERE uri = %s", (shown(uri),))


def replace_document(conn: psycopg.Connection, parsed: Parsed) -> int:
    """Write the rows of `parsed` (the caller holds the URI's lock); its document id."""
    uri, path = shown(parsed.uri), shown(parsed.path)
    doc = parsed.doc
    name = path.rstrip("/").rsplit("/", 1)[-1]
    directory = path[: -len(name)].rstrip("/") if "/" in path else ""
    extension = os.path.splitext(name.split("?")[0])[1][1:].lower()
    values = (
        path,
        uri,
        name,
        directory,
        extension,
        doc.format,
        doc.language,
        doc.title or name,
        parsed.size,
        parsed.line_count,
        doc.page_count,
        parsed.mtime_ns / 1e9 if parsed.mtime_ns is not None else None,
        parsed.mtime_ns,
        parsed.sha256,
        parsed.header_text,
        doc.body_start_line,
        now(),
        parsed.chunk_chars,
        raw_bytes(parsed.uri),
        parsed.content_rules,
        json.dumps(doc.page_lines) if doc.page_lines else None,
    )
    updates = ", ".join(
        f"{c} = excluded.{c}"
        for c in (c.strip() for c in DOCUMENT_COLUMNS.split(","))
        if c != "uri"
    )
    marks = ", ".join("%s" for _ in values)
    # One round trip: the document row, and the ids of its sections and chunks (which the
    # rows below reference), drawn from their sequences in the same statement.
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
    # The rest needs no answer: the caller pipelines it (pg/ingest.py), one statement a
    # table, sent without waiting for each other.
    if not inserted:
        _queue_resolution(conn, "SELECT name FROM symbols WHERE doc_id = %s", (doc_id,))
        for table in DEPENDENT_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE doc_id = %s".encode(), (doc_id,))
    ids = _insert_sections(conn, doc_id, parsed.section_rows, section_ids)
    _insert_chunks(conn, doc_id, parsed, ids, chunk_ids)
    _insert_extras(conn, doc_id, parsed)
    return doc_id


def _insert_sections(
    conn: psycopg.Connection, doc_id: int, rows: list[tuple[Any, ...]], new_ids: list[int]
) -> dict[int, int]:
    ids = dict(zip((r[0] for r in rows), new_ids))
    # One statement: a parent referenced by a row of the same statement is checked at its
    # end (PostgreSQL's foreign keys are checked after the statement, not after each row).
    _insert_rows(
        conn,
        "sections",
        SECTION_COLUMNS,
        [
            (ids[r[0]], doc_id, *r[:7], None if r[7] is None else ids[r[7]], *r[8:])
            for r in sorted(rows, key=lambda r: r[0])
        ],
    )
    return ids


def _insert_chunks(
    conn: psycopg.Connection,
    doc_id: int,
    parsed: Parsed,
    section_ids: dict[int, int],
    ids: list[int],
) -> None:
    rows = parsed.chunk_rows
    _insert_rows(
        conn,
        "chunks",
        CHUNK_COLUMNS,
        [
            (chunk_id, doc_id, None if r[0] is None else section_ids[r[0]], *r[1:10])
            for chunk_id, r in zip(ids, rows)
        ],
    )
    # The parser processes computed the tsvector literals (ParseTask.tsvectors); else from
    # r[10], r[11]: the CJK-spaced title and body, exactly as the FTS5 columns get them.
    tsvectors = parsed.tsvectors
    if tsvectors is None:
        tsvectors = [tsvector_literal(r[10], r[11]) for r in rows]
    if ids:
        conn.execute(
            "INSERT INTO chunks_fts(rowid, tsv) SELECT r, t::tsvector "
            "FROM unnest(%s::bigint[], %s::text[]) AS u(r, t)",
            (ids, tsvectors),
        )


def _insert_extras(conn: psycopg.Connection, doc_id: int, parsed: Parsed) -> None:
    doc = parsed.doc
    if doc.frontmatter is not None:
        conn.execute(
            "INSERT INTO frontmatter(doc_id, data) VALUES (%s, %s)",
            (doc_id, _json(doc.frontmatter)),
        )
    _insert_rows(
        conn,
        "codeblocks",
        CODEBLOCK_COLUMNS,
        [
            (doc_id, i, b.language, *stored, b.line, b.end_line)
            for i, (b, stored) in enumerate(zip(doc.codeblocks, parsed.code_storage))
        ],
        sequence=True,
    )
    _insert_rows(
        conn,
        "tables",
        TABLE_COLUMNS,
        [
            (
                doc_id,
                i,
                _json(t.headers),
                _json(t.rows),
                len(t.rows),
                max([len(t.headers)] + [len(r) for r in t.rows]),
                t.line,
                t.end_line,
            )
            for i, t in enumerate(doc.tables)
        ],
        sequence=True,
    )
    _insert_rows(
        conn,
        "entities",
        ENTITY_COLUMNS,
        [
            (
                doc_id,
                i,
                e.entity_type,
                e.name,
                fold(e.name),
                e.signature,
                e.definition,
                e.line,
                e.end_line,
            )
            for i, e in enumerate(doc.entities)
        ],
        sequence=True,
    )
    _insert_rows(
        conn,
        "symbols",
        SYMBOL_COLUMNS,
        [
            (
                doc_id,
                i,
                s.kind,
                s.name,
                fold(s.name),
                s.qualified_name,
                s.signature,
                s.language,
                s.parent,
                s.line,
                s.end_line,
                s.docstring,
            )
            for i, s in enumerate(doc.symbols)
        ],
        sequence=True,
    )
    _insert_rows(
        conn,
        "refs",
        REF_COLUMNS,
        [
            (doc_id, i, r.name, r.kind, r.caller_ord, r.line, r.end_line, r.column)
            for i, r in enumerate(doc.references)
        ],
    )
    _insert_rows(
        conn,
        "imports",
        IMPORT_COLUMNS,
        [
            (doc_id, i, m.module, _json(m.names), m.line, m.end_line)
            for i, m in enumerate(doc.imports)
        ],
    )
    if doc.symbols:
        _queue_resolution(conn, "SELECT name FROM symbols WHERE doc_id = %s", (doc_id,))


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
    ("content_hash", "text"),
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
REF_COLUMNS = (
    ("doc_id", "bigint"),
    ("ord", "bigint"),
    ("name", "text"),
    ("kind", "text"),
    ("caller_ord", "bigint"),
    ("line", "bigint"),
    ("end_line", "bigint"),
    ("col", "bigint"),
)
IMPORT_COLUMNS = (
    ("doc_id", "bigint"),
    ("ord", "bigint"),
    ("module", "text"),
    ("names", "text"),
    ("line", "bigint"),
    ("end_line", "bigint"),
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


class PostgresWriter(Writer):
    """(Step 0 of the store redesign: filled in by the writer work.)"""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
