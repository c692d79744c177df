"""`SqliteWriter`: the one writer of an index file.

Documents are written in batches: one transaction per batch (speed), each document in a
savepoint of it, so that a document whose rows cannot be written rolls back alone and an
interrupted run leaves every file either old or new. FTS rows are contentless, so
deleting them means re-supplying the exact text that was indexed: `text.fts_text` of the
stored columns. Ids are given explicitly (max(id) + 1: one writer per file) so that rows,
parents and FTS rows go in with executemany.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ...errors import DatabaseFull, EmbeddingError
from ...schema import KEY_DIMENSIONS, KEY_FINGERPRINT, KEY_MODEL, VEC_TABLE
from ...text import fts_text
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
from . import db

if TYPE_CHECKING:
    from .engine import SqliteStore


# FTS5 writes its pending terms out as a new segment at every savepoint (and merges the
# segments later), so the writer keeps each document's full-text rows in an `FtsWrites`
# and applies them once per batch, after the savepoints: one segment per batch instead
# of one per file. On the Markdown mix that is ~12 % less ingest CPU and no longer
# leaves ~1 MB of merged-away segment pages free at the end of a cold build
# (docs/benchmarks.md).
_FTS_DELETE = "INSERT INTO chunks_fts(chunks_fts, rowid, title, body) VALUES ('delete', ?, ?, ?)"
_FTS_INSERT = "INSERT INTO chunks_fts(rowid, title, body) VALUES (?, ?, ?)"
# The optional trigram index over what grep() compares, coalesce(fold, content)
# (`index --trigram`, db.create_chunk_trigrams), written the same way when the file has it.
_TRIGRAM_DELETE = "INSERT INTO chunks_trigram(chunks_trigram, rowid, text) VALUES ('delete', ?, ?)"
_TRIGRAM_INSERT = "INSERT INTO chunks_trigram(rowid, text) VALUES (?, ?)"
# The trigram index of the folded section titles (external content on `sections`), written
# the same way since schema 12. Its triggers (schema 9-11) wrote it row by row inside each
# document's savepoint, where FTS5 flushes: 0.25 of the writer's 1.4 CPU s on the
# Markdown mix, and one segment per document (docs/benchmarks.md).
_TITLE_TRIGRAM_DELETE = (
    "INSERT INTO sections_trigram(sections_trigram, rowid, title_fold) VALUES ('delete', ?, ?)"
)
_TITLE_TRIGRAM_INSERT = "INSERT INTO sections_trigram(rowid, title_fold) VALUES (?, ?)"
# The trigram index of the folded symbol names (schema 15, external content on `symbols`),
# written the same way.
_NAME_TRIGRAM_DELETE = (
    "INSERT INTO symbols_trigram(symbols_trigram, rowid, name_fold) VALUES ('delete', ?, ?)"
)
_NAME_TRIGRAM_INSERT = "INSERT INTO symbols_trigram(rowid, name_fold) VALUES (?, ?)"
# And of the folded entity names (schema 16, external content on `entities`).
_ENTITY_TRIGRAM_DELETE = (
    "INSERT INTO entities_trigram(entities_trigram, rowid, name_fold) VALUES ('delete', ?, ?)"
)
_ENTITY_TRIGRAM_INSERT = "INSERT INTO entities_trigram(rowid, name_fold) VALUES (?, ?)"
# The names a document defines or binds by an import (`SqliteWriter._queue_resolution`);
# a star (`export * from "m"`, `from m import *`) as `resolve.star_mark`'s line, which the
# pass turns into the names the module behind it holds.
_QUEUE_NAMES = (
    "INSERT OR IGNORE INTO refs_pending(name) SELECT name FROM symbols WHERE doc_id = ? "
    "UNION SELECT CASE WHEN j.value = '*' THEN '*' || char(10) || coalesce(d.language, '') "
    "|| char(10) || d.path || char(10) || i.module ELSE j.value END "
    "FROM imports i JOIN documents d ON d.id = i.doc_id, json_each(i.names) j "
    "WHERE i.doc_id = ? "
    "UNION SELECT alias FROM imports WHERE doc_id = ? AND alias IS NOT NULL"
)
_FTS_TABLES = {
    _FTS_DELETE: "chunks_fts",
    _FTS_INSERT: "chunks_fts",
    _TRIGRAM_DELETE: "chunks_trigram",
    _TRIGRAM_INSERT: "chunks_trigram",
    _TITLE_TRIGRAM_DELETE: "sections_trigram",
    _TITLE_TRIGRAM_INSERT: "sections_trigram",
    _NAME_TRIGRAM_DELETE: "symbols_trigram",
    _NAME_TRIGRAM_INSERT: "symbols_trigram",
    _ENTITY_TRIGRAM_DELETE: "entities_trigram",
    _ENTITY_TRIGRAM_INSERT: "entities_trigram",
}
# The page cache of the resolution pass, in KiB (`resolve_references`; 64 MB measured
# no better).
_PASS_CACHE_KB = 16 * 1024
# A run that wrote at least this many chunk full-text rows (inserted or deleted) per chunk
# of the index ends by merging each full-text index into one segment (`optimize`): FTS5
# keeps a deleted row's entries, and its many segments, until merges drop them, and a
# run that replaced every file of the Markdown mix left `chunks_fts` at 6.2 MB instead of
# 4.2 (the file 24.2 MB instead of 21.6). The merge costs ~0.06 CPU s there, in
# proportion to the whole index: only a run that rewrote a good part of it pays for it
# (every cold build does: 0.15 MB less on the mix); smaller runs leave it to automerge.
_OPTIMIZE_SHARE = 0.25
# FTS5's own `automerge` (segments merged as they pile up, 4 at a time). A cold build
# (the index had no chunk) sets it to 0 for the run: every batch's segment stays as it is
# until `finish` merges each table into one (`optimize`, as any run that rewrote a
# quarter of the index), instead of merging the same rows twice; 1.870 → 1.825 CPU s for
# the Markdown mix in one process (median of 6 alternated runs). Every run sets it
# again, so a cold build stopped before its end leaves the default to the next.
_AUTOMERGE = 4
_STALE = """FROM chunks c LEFT JOIN chunk_vectors cv ON cv.chunk_id = c.id
           WHERE cv.chunk_id IS NULL OR cv.content_hash != c.content_hash OR cv.doc_id !=
           c.doc_id"""


class FtsWrites:
    """Full-text deletes and inserts queued in order, for `apply` to run in one go.

    Kept per full-text table, in each table's own order (the tables are independent:
    each FTS5 table has its own pending terms, flushed at the commit), and a document's
    rows are appended to the previous document's when the statement is the same: a
    cold batch is one `executemany` per table instead of one per file and table
    (~2,600 calls fewer on the Markdown mix), and every table sees the same rows in the
    same order as before (the same segments, docs/benchmarks-history.md, issue 24 item 2).
    """

    __slots__ = ("tables",)

    def __init__(self) -> None:
        self.tables: dict[str, list[tuple[str, list[tuple[Any, ...]]]]] = {}

    def add(self, statement: str, rows: list[tuple[Any, ...]]) -> None:
        """Queue `rows` (a list this queue may extend later: the caller's own)."""
        if not rows:
            return
        ops = self.tables.setdefault(_FTS_TABLES[statement], [])
        if ops and ops[-1][0] == statement:
            ops[-1][1].extend(rows)
        else:
            ops.append((statement, rows))

    def extend(self, other: FtsWrites) -> None:
        for ops in other.tables.values():
            for statement, rows in ops:
                self.add(statement, rows)

    def apply(self, conn: db.Connection) -> int:
        """Run the queued writes (in the caller's transaction, outside any savepoint);
        how many `chunks_fts` rows they inserted or deleted."""
        written = 0
        for ops in self.tables.values():
            for statement, rows in ops:
                conn.executemany(statement, rows)
                if statement in (_FTS_INSERT, _FTS_DELETE):
                    written += len(rows)
        self.tables.clear()
        return written


class SqliteWriter(Writer):
    """The writer of the file of `store` (opened with readonly=False)."""

    batch_documents = True
    concurrent = False
    wants_tsvectors = False

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self.conn: db.Connection = store.conn
        # Full-text writes of the open batch (None: none open, they run at once), and
        # of the open document (applied with the batch only when all its rows went in).
        self._batch_fts: FtsWrites | None = None
        # Whether `refs` holds a row, asked once per batch: only the pass writes it.
        self._refs_held: bool | None = None
        self._doc_fts: FtsWrites | None = None
        self._fts_rows_written = 0  # `chunks_fts` rows this writer inserted or deleted
        # The next free id of `sections` and `chunks` (max(id) + 1), known while this
        # writer has only appended since it read it: forgotten at every delete, rollback
        # and transaction edge, so an id is always what max(id) + 1 would give (two
        # queries a document fewer).
        self._next_ids: dict[str, int] = {}

    # -- a run ------------------------------------------------------------------------
    @contextmanager
    def run_errors(self) -> Iterator[None]:
        path = self.store.path
        try:
            yield
        except (db.DiskFullError, DatabaseFull):
            raise DatabaseFull(
                f"no space left to write '{path}' (disk full): every document committed "
                f"before this is kept (some may still be in '{path}-wal'; keep that file "
                f"next to the index); free some space, then run the same index command "
                f"again to finish"
            ) from None

    def prepare(self, *, trigram: bool) -> None:
        # Read before the write transaction: a read in it would make its first write fail
        # at once (not wait) when another run committed since (a stale snapshot).
        cold = not db.scalar(self.conn, "SELECT EXISTS (SELECT 1 FROM chunks)")
        if trigram:
            with self.conn:
                db.create_chunk_trigrams(self.conn)
        self._set_automerge(0 if cold else _AUTOMERGE)

    def stored_documents(self) -> dict[str, StoredDoc]:
        return {
            row[1]: StoredDoc(row[0], *row[2:])
            for row in self.conn.execute(
                "SELECT id, uri, size, mtime_ns, sha256, path, chunk_chars, uri_bytes, format, "
                "content_rules FROM documents"
            )
        }

    def failed_files(self) -> FailedFiles:
        return {
            uri: ((size, mtime_ns), reason)
            for uri, size, mtime_ns, reason in self.conn.execute(
                "SELECT uri, size, mtime_ns, reason FROM ingest_errors "
                "WHERE severity = 'error' AND size IS NOT NULL"
            )
        }

    def error_uris(self) -> list[str]:
        return [uri for (uri,) in self.conn.execute("SELECT DISTINCT uri FROM ingest_errors")]

    def move_documents(self, moves: list[tuple[str, str, bytes | None]]) -> None:
        if not moves:
            return
        with self.conn:
            self.conn.executemany(
                "UPDATE documents SET uri = ?, uri_bytes = ? WHERE uri = ?",
                [(new, raw, old) for old, new, raw in moves],
            )
            self.conn.executemany(
                "UPDATE ingest_errors SET uri = ? WHERE uri = ?",
                [(new, old) for old, new, _ in moves],
            )

    def rename_documents(self, renamed: list[tuple[str, str]]) -> None:
        if renamed:
            with self.conn:
                self.conn.executemany("UPDATE documents SET path = ? WHERE uri = ?", renamed)

    @contextmanager
    def batch(self) -> Iterator[None]:
        self._batch_fts = FtsWrites()
        self._next_ids.clear()
        self._refs_held = None  # asked again in each transaction (`_queue_resolution`)
        try:
            with self.conn:  # one transaction for speed; each document in it whole or not at all
                yield
                self._fts_rows_written += self._batch_fts.apply(self.conn)
        finally:
            self._batch_fts = None
            self._next_ids.clear()

    @contextmanager
    def document(self, uri: str) -> Iterator[None]:
        mine = FtsWrites()
        self._doc_fts = mine
        try:
            try:
                # a savepoint: a document whose rows cannot be written rolls back alone
                with self.conn:
                    yield
            except BaseException:
                self._next_ids.clear()  # rolled back: the ids read since may be free again
                raise
        except db.WHOLE_DATABASE_ERRORS:
            raise
        except DocumentNotStored:
            raise
        except Exception as exc:  # noqa: BLE001 - one file must never stop a run
            if not self.conn.in_transaction:  # SQLite rolled the whole batch back: stop
                raise
            raise DocumentNotStored(f"could not be stored: {type(exc).__name__}: {exc}") from exc
        finally:
            self._doc_fts = None
        if self._batch_fts is not None:
            self._batch_fts.extend(mine)  # only a document whose rows were all written
        else:
            self._fts_rows_written += mine.apply(self.conn)

    def _fts(self, statement: str, rows: list[Any]) -> None:
        if self._doc_fts is None:
            self.conn.executemany(statement, rows)
            if statement in (_FTS_INSERT, _FTS_DELETE):
                self._fts_rows_written += len(rows)
        else:
            self._doc_fts.add(statement, rows)

    def replace_document(self, parsed: Parsed) -> None:
        """Paths that are not valid UTF-8 are stored escaped, with the exact bytes in
        `uri_bytes` (see `ingest/paths.py`)."""
        existing = self.conn.execute(
            "SELECT id FROM documents WHERE uri = ?", (parsed.uri,)
        ).fetchone()
        if existing is not None:
            self._delete(existing[0])
        self.conn.execute(
            "INSERT INTO documents(" + DOCUMENT_COLUMNS + ") VALUES "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            document_values(parsed),
        )
        doc_id = self.conn.last_insert_rowid()
        section_base = self._insert_sections(doc_id, parsed.section_rows)
        self._insert_chunks(doc_id, parsed, section_base)
        self._insert_extras(doc_id, parsed)

    def delete_document(self, uri: str) -> None:
        found = self.conn.execute("SELECT id FROM documents WHERE uri = ?", (uri,)).fetchone()
        if found is not None:
            self._delete(found[0])

    def _delete(self, doc_id: int) -> None:
        rows = self.conn.execute(
            "SELECT c.id, coalesce(s.title, ''), c.content, c.fold FROM chunks c "
            "LEFT JOIN sections s ON s.id = c.section_id WHERE c.doc_id = ?",
            (doc_id,),
        ).fetchall()
        self._fts(
            _FTS_DELETE,
            [(cid, fts_text(str(title)), fts_text(str(body))) for cid, title, body, _ in rows],
        )
        if db.writes_chunk_trigrams(self.conn):
            self._fts(
                _TRIGRAM_DELETE,
                [(cid, body if folded is None else folded) for cid, _, body, folded in rows],
            )
        self._fts(
            _TITLE_TRIGRAM_DELETE,
            self.conn.execute(
                "SELECT id, title_fold FROM sections WHERE doc_id = ?", (doc_id,)
            ).fetchall(),
        )
        self._fts(
            _NAME_TRIGRAM_DELETE,
            self.conn.execute(
                "SELECT id, name_fold FROM symbols WHERE doc_id = ?", (doc_id,)
            ).fetchall(),
        )
        self._fts(
            _ENTITY_TRIGRAM_DELETE,
            self.conn.execute(
                "SELECT id, name_fold FROM entities WHERE doc_id = ?", (doc_id,)
            ).fetchall(),
        )
        self._queue_resolution(doc_id)
        self.conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
        self._next_ids.clear()  # the document's ids may be the highest: max(id) + 1 again

    def touch(self, uri: str, mtime_ns: int | None, path: str) -> None:
        self.conn.execute(
            "UPDATE documents SET mtime = ?, mtime_ns = ?, path = ? WHERE uri = ?",
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
            "INSERT INTO ingest_errors(path, uri, severity, reason, at, size, mtime_ns) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (path, uri, severity, reason, now(), size, mtime_ns),
        )

    def clear_problems(self, uri: str) -> None:
        self.conn.execute("DELETE FROM ingest_errors WHERE uri = ?", (uri,))

    def resolve_references(self, resolve: Resolve) -> None:
        conn = self.conn
        # The pass inserts every staged reference into `refs` (in key order: appended)
        # and `refs_name` (in name order: its pages touched at random). With SQLite's
        # default cache (2 MB: 125 of these 16 KB pages) most of those went out to the
        # WAL and back: on the scale corpus' code 16 MB took the inserts from 2.3 to
        # 1.6 CPU s (docs/benchmarks.md, issue 23).
        previous = db.scalar(conn, "PRAGMA cache_size")
        conn.execute(f"PRAGMA cache_size = {-_PASS_CACHE_KB}")
        try:
            with conn:  # the file's one writer: take the queues and resolve at once
                names = {n for (n,) in conn.execute("DELETE FROM refs_pending RETURNING name")}
                staged = [
                    (int(doc_id), str(refs))
                    for doc_id, refs in conn.execute(
                        "SELECT doc_id, refs FROM refs_staged ORDER BY doc_id"
                    )
                ]
                resolve(conn, names, staged, self.store.dialect)
                if staged:
                    conn.execute("DELETE FROM refs_staged")
        finally:
            conn.execute(f"PRAGMA cache_size = {int(previous)}")

    def meta(self, key: str) -> str | None:
        return db.get_meta(self.conn, key)

    def set_meta(self, key: str, value: str) -> None:
        with self.conn:
            db.set_meta(self.conn, key, value)

    def finish(self) -> None:
        self._optimize_full_text()
        self._set_automerge(_AUTOMERGE)
        # Move the run's pages from the WAL into the main file, so the index is one file
        # again (and a full disk shows up here, not at some later reader's checkpoint).
        # Hand back the pages FTS5's last segment merges left free (files made with
        # auto_vacuum = INCREMENTAL, see db.py; a no-op on older files): a cold build
        # then ends at its content's size, 1.96x the Markdown mix instead of 1.95-2.05x.
        self.conn.execute("PRAGMA incremental_vacuum").fetchall()
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def _optimize_full_text(self) -> None:
        """Merge the full-text indexes into one segment each when this run rewrote a good
        part of the index (`_OPTIMIZE_SHARE`)."""
        written, self._fts_rows_written = self._fts_rows_written, 0
        if not written or written < _OPTIMIZE_SHARE * self.chunk_count():
            return
        tables = self._full_text_tables()
        with db.write_locked(self.conn):  # FTS5's special inserts read before they write
            for table in tables:
                self.conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")

    def _full_text_tables(self) -> list[str]:
        tables = ["chunks_fts", "sections_trigram", "symbols_trigram", "entities_trigram"]
        if db.writes_chunk_trigrams(self.conn):
            tables.append(db.CHUNK_TRIGRAMS)
        return tables

    def _set_automerge(self, value: int) -> None:
        """FTS5's `automerge` of every full-text table (`_AUTOMERGE`), kept in the file."""
        tables = self._full_text_tables()
        with db.write_locked(self.conn):
            for table in tables:
                self.conn.execute(
                    f"INSERT INTO {table}({table}, rank) VALUES ('automerge', ?)", (value,)
                )

    # -- the rows of a document -------------------------------------------------------
    def _next_id(self, table: str) -> int:
        """max(id) + 1 of `table` (`sections`, `chunks`, `entities` or `symbols`)."""
        known = self._next_ids.get(table)
        if known is not None:
            return known
        row = self.conn.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()
        assert row is not None  # an aggregate always returns a row
        return int(row[0])

    def _insert_sections(self, doc_id: int, rows: list[tuple[Any, ...]]) -> int:
        """Insert the rows; the id base: a section's id is base + its ord."""
        base = self._next_id("sections")
        # The columns unpacked by name, not sliced and starred: ~2.4x less Python a row.
        self.conn.executemany(
            "INSERT INTO sections(id, doc_id, ord, level, depth, title, title_fold, number, "
            "anchor, parent_id, line, end_line, own_end_line, page) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    base + ord_,
                    doc_id,
                    ord_,
                    level,
                    depth,
                    title,
                    title_fold,
                    number,
                    anchor,
                    None if parent is None else base + parent,
                    line,
                    end_line,
                    own_end_line,
                    page,
                )
                for (
                    ord_,
                    level,
                    depth,
                    title,
                    title_fold,
                    number,
                    anchor,
                    parent,
                    line,
                    end_line,
                    own_end_line,
                    page,
                ) in rows
            ],
        )
        self._fts(_TITLE_TRIGRAM_INSERT, [(base + r[0], r[4]) for r in rows])  # r[4] title_fold
        self._next_ids["sections"] = base + max([r[0] + 1 for r in rows], default=0)
        return base

    def _insert_chunks(self, doc_id: int, parsed: Parsed, section_base: int) -> None:
        base = self._next_id("chunks")
        rows = parsed.chunk_rows
        self.conn.executemany(
            "INSERT INTO chunks(id, doc_id, section_id, chunk_index, line, end_line, page, "
            "start_offset, end_offset, content, fold, content_hash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    base + i,
                    doc_id,
                    None if section is None else section_base + section,  # its section's id
                    index,
                    line,
                    end_line,
                    page,
                    start,
                    end,
                    content,
                    folded,
                    content_hash,
                )
                for i, (
                    section,
                    index,
                    line,
                    end_line,
                    page,
                    start,
                    end,
                    content,
                    folded,
                    content_hash,
                    _,
                    _,
                ) in enumerate(rows)
            ],
        )
        self._next_ids["chunks"] = base + len(rows)
        self._fts(_FTS_INSERT, [(base + i, r[10], r[11]) for i, r in enumerate(rows)])
        if db.writes_chunk_trigrams(self.conn):  # r[7] content, r[8] its fold (None: the same)
            self._fts(
                _TRIGRAM_INSERT,
                [(base + i, r[7] if r[8] is None else r[8]) for i, r in enumerate(rows)],
            )

    def _insert_extras(self, doc_id: int, parsed: Parsed) -> None:
        doc = parsed.doc
        conn = self.conn
        if doc.frontmatter is not None:
            conn.execute(
                "INSERT INTO frontmatter(doc_id, data) VALUES (?, ?)",
                (doc_id, to_json(doc.frontmatter)),
            )
        # Most files have none of some of these: no statement for an empty list (four
        # `executemany` calls a Markdown file fewer, each a statement-cache lookup).
        if doc.codeblocks:
            conn.executemany(
                "INSERT INTO codeblocks(doc_id, ord, language, code, body_start, body_end, "
                "line, end_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                codeblock_rows(doc_id, parsed),
            )
        if doc.tables:
            conn.executemany(
                "INSERT INTO tables(doc_id, ord, headers, rows, row_count, column_count, line, "
                "end_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                table_rows(doc_id, parsed),
            )
        if doc.entities:
            # Ids given here, as the symbols' below: the name trigrams are queued without
            # reading the rows back.
            base = self._next_id("entities")
            entities = [(base + row[1], *row) for row in entity_rows(doc_id, parsed)]
            conn.executemany(
                "INSERT INTO entities(id, doc_id, ord, entity_type, name, name_fold, "
                "signature, definition, line, end_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                entities,
            )
            self._fts(_ENTITY_TRIGRAM_INSERT, [(row[0], row[5]) for row in entities])
            self._next_ids["entities"] = base + len(entities)
        if doc.symbols:
            # Ids given here (as sections' and chunks'), so the name trigrams are queued
            # without reading the rows back.
            base = self._next_id("symbols")
            symbols = [(base + row[1], *row) for row in symbol_rows(doc_id, parsed)]
            conn.executemany(
                "INSERT INTO symbols(id, doc_id, ord, kind, name, name_fold, qualified_name, "
                "signature, language, parent, line, end_line, docstring) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                symbols,
            )
            self._fts(_NAME_TRIGRAM_INSERT, [(row[0], row[5]) for row in symbols])
            self._next_ids["symbols"] = base + len(symbols)
        if not (parsed.references_json or doc.reference_rows or doc.imports or doc.symbols):
            return
        # A code file's references wait in `refs_staged` (one row: a JSON array) for the
        # run's resolution pass, which inserts them into `refs` resolved: each row of
        # `refs` and its index is written once. The names the file defines are queued so
        # that references to them elsewhere are resolved again.
        staged = staged_references(parsed)
        if staged is not None:
            conn.execute("INSERT INTO refs_staged(doc_id, refs) VALUES (?, ?)", (doc_id, staged))
        if doc.imports:
            conn.executemany(
                "INSERT INTO imports(doc_id, ord, module, names, line, end_line, alias) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                import_rows(doc_id, parsed),
            )
        self._queue_resolution(doc_id)

    def _queue_resolution(self, doc_id: int) -> None:
        """Queue the names `doc_id` defines and the names its imports bind (before a
        delete, after an insert): references to them anywhere may now resolve differently
        (`ingest/resolve.py`; a package's imports are what it re-exports). Not while
        `refs` is empty (a new index, until its first pass): the queue only says which
        of its rows to decide again, and staged references are decided whole."""
        if self._refs_held is None or self._batch_fts is None:
            self._refs_held = self.conn.execute("SELECT 1 FROM refs LIMIT 1").fetchone() is not None
        if not self._refs_held:
            return
        self.conn.execute(_QUEUE_NAMES, (doc_id, doc_id, doc_id))

    # -- vectors ----------------------------------------------------------------------
    @contextmanager
    def embed_errors(self) -> Iterator[None]:
        yield  # the connection's errors are DocQLErrors already (db.translate)

    def check_vectors(self) -> None:
        if not db.has_vec(self.conn):
            raise EmbeddingError(
                "sqlite-vec cannot be loaded here, so vectors cannot be stored; "
                "pip install sqlite-vec"
            )

    def set_vector_model(
        self, model_id: str, dimensions: int, fingerprint: str, *, replace: bool
    ) -> int:
        exists = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = ?", (VEC_TABLE,)
        ).fetchone()
        if exists is not None and not replace:
            return 0
        removed = db.scalar(self.conn, "SELECT count(*) FROM chunk_vectors") if replace else 0
        template = (db.sql_dir() / "vec.sql").read_text(encoding="utf-8")
        # One transaction: the old model's vectors go and the new model's empty table
        # comes together, so a run killed here leaves one model or the other, never an
        # index with no model recorded (where a plain restarted `embed` would not know
        # what to run).
        with self.conn:
            if replace:
                self.conn.execute(f"DROP TABLE IF EXISTS {VEC_TABLE}")
                self.conn.execute(
                    "DELETE FROM meta WHERE key IN (?, ?, ?)",
                    (KEY_MODEL, KEY_DIMENSIONS, KEY_FINGERPRINT),
                )
            self.conn.execute(template.replace("{dimensions}", str(int(dimensions))))
            self.conn.execute("DELETE FROM chunk_vectors")  # rows without vectors are meaningless
            db.set_meta(self.conn, KEY_MODEL, model_id)
            db.set_meta(self.conn, KEY_DIMENSIONS, str(dimensions))
            db.set_meta(self.conn, KEY_FINGERPRINT, fingerprint)
        return int(removed)

    def stale_chunk_count(self) -> int:
        return int(db.scalar(self.conn, f"SELECT count(*) {_STALE}"))

    def stale_chunks(self) -> list[StaleChunk]:
        return [
            (int(a), int(b), bytes(c), str(d))
            for a, b, c, d in self.conn.execute(
                f"SELECT c.id, c.doc_id, c.content_hash, c.content {_STALE} ORDER BY c.id"
            )
        ]

    def chunk_count(self) -> int:
        return int(db.scalar(self.conn, "SELECT count(*) FROM chunks"))

    def stored_vectors(self, hashes: set[bytes]) -> dict[bytes, Any]:
        found: dict[bytes, bytes] = {}
        for chunk_id, content_hash in self.conn.execute(
            "SELECT chunk_id, content_hash FROM chunk_vectors"
        ):
            if content_hash in hashes and content_hash not in found:
                row = self.conn.execute(
                    f"SELECT embedding FROM {VEC_TABLE} WHERE rowid = ?", (chunk_id,)
                ).fetchone()
                if row is not None:
                    found[content_hash] = row[0]
        return found

    def vector_value(self, blob: bytes) -> Any:
        return blob

    def write_vectors(self, rows: list[tuple[int, int, bytes, Any]]) -> None:
        with self.conn:
            for chunk_id, doc_id, content_hash, vector in rows:
                self.conn.execute(f"DELETE FROM {VEC_TABLE} WHERE rowid = ?", (chunk_id,))
                if vector is not None:  # None: nothing to embed, no vector (the base's doc)
                    self.conn.execute(
                        f"INSERT INTO {VEC_TABLE}(rowid, embedding, doc_id) VALUES (?, ?, ?)",
                        (chunk_id, vector, doc_id),
                    )
                self.conn.execute(
                    "INSERT OR REPLACE INTO chunk_vectors(chunk_id, doc_id, content_hash) "
                    "VALUES (?, ?, ?)",
                    (chunk_id, doc_id, content_hash),
                )

    def drop_orphan_vectors(self) -> int:
        orphans = [
            r[0]
            for r in self.conn.execute(
                "SELECT chunk_id FROM chunk_vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)"
            )
        ]
        with self.conn:
            for chunk_id in orphans:
                self.conn.execute(f"DELETE FROM {VEC_TABLE} WHERE rowid = ?", (chunk_id,))
            self.conn.execute(
                "DELETE FROM chunk_vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)"
            )
        return len(orphans)


__all__ = ["FtsWrites", "SqliteWriter"]
