"""Copy an index between engines (SQLite file ↔ PostgreSQL URL), verified by checksums.

Every stored table is copied row for row with its ids, in primary-key order, inside one
transaction on the destination; the full-text rows are rebuilt there from the copied
chunks (an FTS5 table is contentless, so there is nothing to read back), and the vectors
travel as their exact float32 values. Before committing, each table of the destination is
read back in the same canonical order (primary key, text keys by code point) and its
count and SHA-256 compared with the source's; any difference rolls the copy back.

Engine-specific meta keys (schema version, application, full-text tokenizer) are the
destination's own and are neither copied nor compared.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import DatabaseError, UsageError
from ...fts_tokens import tsvector_literal
from ...text import fts_text
from ..sqlite import db
from . import connect as pg
from . import is_url

# (table, primary key) in an order that satisfies the foreign keys.
TABLES: tuple[tuple[str, str], ...] = (
    ("meta", "key"),
    ("documents", "id"),
    ("sections", "id"),
    ("chunks", "id"),
    ("codeblocks", "id"),
    ("tables", "id"),
    ("frontmatter", "doc_id"),
    ("entities", "id"),
    ("symbols", "id"),
    ("refs", "doc_id, ord"),
    ("imports", "doc_id, ord"),
    ("refs_pending", "name"),
    ("refs_staged", "doc_id"),
    ("ingest_errors", "id"),
    ("chunk_vectors", "chunk_id"),
)
ENGINE_META = ("schema_version", "application", "fts_tokenizer", "fts_text")
BATCH = 2000
Row = tuple[Any, ...]


@dataclass(slots=True)
class TableCheck:
    name: str
    rows: int
    checksum: str
    columns: list[str] = field(default_factory=list)
    dest_rows: int = -1
    dest_checksum: str = ""

    @property
    def ok(self) -> bool:
        return self.rows == self.dest_rows and self.checksum == self.dest_checksum


@dataclass(slots=True)
class CopyReport:
    source: str
    dest: str
    tables: list[TableCheck] = field(default_factory=list)
    dimensions: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "dest": self.dest,
            "dimensions": self.dimensions,
            "tables": [
                {"table": t.name, "rows": t.rows, "checksum": t.checksum, "ok": t.ok}
                for t in self.tables
            ],
        }


class Checksum:
    """SHA-256 over rows in a canonical form: a type tag and the exact value per cell."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.rows = 0

    def add(self, row: Sequence[Any]) -> None:
        self.rows += 1
        parts = []
        for value in row:
            if value is None:
                parts.append(b"N")
            elif isinstance(value, bool | int):
                parts.append(b"i" + str(int(value)).encode())
            elif isinstance(value, float):
                parts.append(b"f" + value.hex().encode())
            elif isinstance(value, bytes | bytearray | memoryview):
                parts.append(b"b" + bytes(value).hex().encode())
            else:
                parts.append(b"s" + str(value).encode("utf-8", "surrogatepass"))
        self.hash.update(b"\x1f".join(parts) + b"\x1e")

    def hexdigest(self) -> str:
        return self.hash.hexdigest()


# -- the two engines ------------------------------------------------------------------
class SqliteSide:
    """An index file through `db.py` (the only apsw user)."""

    def __init__(self, path: str, *, write: bool) -> None:
        self.label = path
        self.created = write and not Path(path).exists()
        if not write:
            self.conn = db.connect(path, readonly=True)
        else:
            self.conn = db.connect(path)
            if db.scalar(self.conn, "SELECT count(*) FROM documents"):
                self.conn.close()
                raise UsageError(f"'{path}' already holds an index; copy into a new file")
        if not db.has_vec(self.conn) and self._vec_exists():
            raise DatabaseError(f"'{path}' has vectors but sqlite-vec cannot be loaded here")

    def _vec_exists(self) -> bool:
        return bool(
            db.scalar(self.conn, "SELECT count(*) FROM sqlite_master WHERE name = 'chunks_vec'")
        )

    def columns(self, table: str) -> list[str]:
        return [r["name"] for r in db.rows(self.conn, f"PRAGMA table_info({table})")]

    def read(self, table: str, key: str, columns: list[str]) -> Iterator[Row]:
        where = _meta_filter(table)
        cursor = self.conn.execute(
            f"SELECT {', '.join(columns)} FROM {table}{where} ORDER BY {key}", _meta_args(table)
        )
        for row in cursor:
            yield tuple(row)

    def write(self, table: str, columns: list[str], rows: Iterable[Row]) -> None:
        marks = ", ".join("?" for _ in columns)
        sql = f"INSERT INTO {table}({', '.join(columns)}) VALUES ({marks})"
        if table == "meta":
            sql += " ON CONFLICT(key) DO UPDATE SET value = excluded.value"
        for batch in _batches(rows):
            self.conn.executemany(sql, batch)

    def fts_rows(self) -> int:
        return int(db.scalar(self.conn, "SELECT count(*) FROM chunks_fts") or 0)

    def rebuild_fts(self) -> None:
        source = self.conn.execute(
            "SELECT c.id, coalesce(s.title, ''), c.content FROM chunks c "
            "LEFT JOIN sections s ON s.id = c.section_id ORDER BY c.id"
        ).fetchall()
        self.conn.executemany(
            "INSERT INTO chunks_fts(rowid, title, body) VALUES (?, ?, ?)",
            [(cid, fts_text(str(title)), fts_text(str(body))) for cid, title, body in source],
        )
        # The trigram indexes read their text from the copied rows (external content).
        for table in ("sections_trigram", "symbols_trigram", "entities_trigram"):
            self.conn.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')")

    def dimensions(self) -> int | None:
        value = db.get_meta(self.conn, "embedding_dimensions")
        return int(value) if value and self._vec_exists() else None

    def read_vectors(self) -> Iterator[tuple[int, int, bytes]]:
        for rowid, doc_id, blob in self.conn.execute(
            "SELECT rowid, doc_id, embedding FROM chunks_vec ORDER BY rowid"
        ):
            yield int(rowid), int(doc_id), bytes(blob)

    def write_vectors(self, dimensions: int, rows: Iterable[tuple[int, int, bytes]]) -> None:
        template = (db.sql_dir() / "vec.sql").read_text(encoding="utf-8")
        self.conn.execute(template.replace("{dimensions}", str(int(dimensions))))
        for batch in _batches(rows):
            self.conn.executemany(
                "INSERT INTO chunks_vec(rowid, embedding, doc_id) VALUES (?, ?, ?)",
                [(rowid, blob, doc_id) for rowid, doc_id, blob in batch],
            )

    def begin(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.conn.execute("COMMIT")

    def rollback(self) -> None:
        if not self.conn.getautocommit():
            self.conn.execute("ROLLBACK")

    def close(self, *, failed: bool = False) -> None:
        self.conn.close()
        if failed and self.created:
            for suffix in ("", "-wal", "-shm"):
                Path(self.label + suffix).unlink(missing_ok=True)


def _meta_args(table: str) -> tuple[str, ...]:
    return ENGINE_META if table == "meta" else ()


def _meta_filter(table: str, mark: str = "?") -> str:
    """The rows of `table` that are copied: not the engine's own meta keys, and not the
    staged references of documents that are gone (PostgreSQL's `refs_staged` keeps them
    until the resolution pass drops them; a SQLite file's foreign key refuses them)."""
    if table == "refs_staged":
        return " WHERE doc_id IN (SELECT id FROM documents)"
    if table != "meta":
        return ""
    return f" WHERE key NOT IN ({', '.join(mark for _ in ENGINE_META)})"


class PostgresSide:
    """A PostgreSQL database through psycopg."""

    def __init__(self, url: str, *, write: bool) -> None:
        self.label = pg.safe_url(url)
        self.conn = pg.connect(url, readonly=not write)
        if write and pg.scalar(self.conn, "SELECT count(*) FROM documents"):
            self.conn.close()
            raise UsageError(f"{self.label} already holds an index; copy into an empty database")
        self.conn.commit()

    def columns(self, table: str) -> list[str]:
        rows = self.conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
            "AND table_schema = current_schema() ORDER BY ordinal_position",
            (table,),
        ).fetchall()
        return [r[0] for r in rows]

    def read(self, table: str, key: str, columns: list[str]) -> Iterator[Row]:
        # COLLATE "C": text keys in code-point order, as SQLite's BINARY collation.
        order = f'{key} COLLATE "C"' if table == "meta" else key
        sql = (
            f"SELECT {', '.join(columns)} FROM {table}{_meta_filter(table, '%s')} ORDER BY {order}"
        )
        with self.conn.cursor(name=f"read_{table}") as cursor:
            cursor.itersize = BATCH
            cursor.execute(sql.encode(), _meta_args(table))
            for row in cursor:
                yield tuple(row)

    def write(self, table: str, columns: list[str], rows: Iterable[Row]) -> None:
        if table == "meta":  # few rows; the destination's own keys are kept
            for key, value in rows:
                pg.set_meta(self.conn, key, value)
            return
        with self.conn.cursor().copy(
            f"COPY {table} ({', '.join(columns)}) FROM STDIN".encode()
        ) as copy:
            for row in rows:
                copy.write_row(row)

    def fts_rows(self) -> int:
        return int(pg.scalar(self.conn, "SELECT count(*) FROM chunks_fts") or 0)

    def rebuild_fts(self) -> None:
        """The tsvector of every chunk from the same CJK-spaced text as the FTS5 columns,
        tokenized as FTS5 does (fts_tokens)."""
        with self.conn.cursor(name="fts_chunks") as chunks:
            chunks.itersize = BATCH
            chunks.execute(
                "SELECT c.id, coalesce(s.title, ''), c.content FROM chunks c "
                "LEFT JOIN sections s ON s.id = c.section_id ORDER BY c.id"
            )
            rows = [
                (cid, tsvector_literal(fts_text(title), fts_text(body)))
                for cid, title, body in chunks
            ]
        with self.conn.cursor().copy("COPY chunks_fts (rowid, tsv) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def dimensions(self) -> int | None:
        value = pg.get_meta(self.conn, "embedding_dimensions")
        return int(value) if value and pg.table_exists(self.conn, "chunks_vec") else None

    def read_vectors(self) -> Iterator[tuple[int, int, bytes]]:
        with self.conn.cursor(name="read_vectors") as cursor:
            cursor.itersize = BATCH
            cursor.execute("SELECT rowid, doc_id, embedding::real[] FROM chunks_vec ORDER BY rowid")
            for rowid, doc_id, values in cursor:
                yield int(rowid), int(doc_id), struct.pack(f"<{len(values)}f", *values)

    def write_vectors(self, dimensions: int, rows: Iterable[tuple[int, int, bytes]]) -> None:
        pg.create_vec_table(self.conn, dimensions)
        with self.conn.cursor().copy(
            "COPY chunks_vec (rowid, embedding, doc_id) FROM STDIN"
        ) as copy:
            for rowid, doc_id, blob in rows:
                values = struct.unpack(f"<{len(blob) // 4}f", blob)
                # repr of a float32's exact double value parses back to that float32.
                copy.write_row((rowid, "[" + ",".join(map(repr, values)) + "]", doc_id))

    def begin(self) -> None:
        pass  # psycopg opens the transaction with the first statement

    def commit(self) -> None:
        self.conn.commit()

    def rollback(self) -> None:
        self.conn.rollback()

    def close(self, *, failed: bool = False) -> None:
        self.conn.close()


Side = SqliteSide | PostgresSide


def open_side(target: str, *, write: bool) -> Side:
    if is_url(target):
        return PostgresSide(target, write=write)
    if not write and not Path(target).exists():
        raise DatabaseError(f"no index at '{target}'")
    return SqliteSide(target, write=write)


# -- the copy ---------------------------------------------------------------------------
def copy_index(
    source: str, dest: str, *, progress: Callable[[str, int], None] | None = None
) -> CopyReport:
    """Copy the index at `source` to `dest` (each a file path or a postgresql:// URL)."""
    if is_url(source) == is_url(dest) and not is_url(source):
        raise UsageError("copy goes between engines: one side must be a postgresql:// URL")
    if source == dest:
        raise UsageError("source and destination are the same")
    src = open_side(source, write=False)
    try:
        dst = open_side(dest, write=True)
    except BaseException:
        src.close()
        raise
    report = CopyReport(src.label, dst.label)
    failed = True
    try:
        dst.begin()
        for table, key in TABLES:
            columns = src.columns(table)
            missing = set(columns) - set(dst.columns(table))
            if missing:
                raise DatabaseError(f"{dst.label} has no column {sorted(missing)} in '{table}'")
            check = Checksum()
            dst.write(table, columns, _tee(src.read(table, key, columns), check))
            report.tables.append(TableCheck(table, check.rows, check.hexdigest(), columns))
            if progress:
                progress(table, check.rows)
        dst.rebuild_fts()
        dimensions = src.dimensions()
        report.dimensions = dimensions
        if dimensions is not None:
            check = Checksum()
            dst.write_vectors(dimensions, _tee(src.read_vectors(), check))
            report.tables.append(TableCheck("chunks_vec", check.rows, check.hexdigest()))
            if progress:
                progress("chunks_vec", check.rows)
        _verify(report, dst)
        dst.commit()
        failed = False
    except BaseException:
        dst.rollback()
        raise
    finally:
        src.close()
        dst.close(failed=failed)
    return report


def table_checksums(target: str) -> dict[str, tuple[int, str]]:
    """(rows, checksum) of every copied table of the index at `target` (for tests, `status`)."""
    side = open_side(target, write=False)
    try:
        result = {}
        for table, key in TABLES:
            check = Checksum()
            for row in side.read(table, key, side.columns(table)):
                check.add(row)
            result[table] = (check.rows, check.hexdigest())
        if side.dimensions() is not None:
            check = Checksum()
            for row in side.read_vectors():
                check.add(row)
            result["chunks_vec"] = (check.rows, check.hexdigest())
        result["chunks_fts"] = (side.fts_rows(), "")
        return result
    finally:
        side.close()


def _verify(report: CopyReport, dst: Side) -> None:
    for entry in report.tables:
        check = Checksum()
        if entry.name == "chunks_vec":
            rows: Iterable[Sequence[Any]] = dst.read_vectors()
        else:
            key = dict(TABLES)[entry.name]
            rows = dst.read(entry.name, key, entry.columns)
        for row in rows:
            check.add(row)
        entry.dest_rows, entry.dest_checksum = check.rows, check.hexdigest()
    chunks = next(t.rows for t in report.tables if t.name == "chunks")
    fts = dst.fts_rows()
    bad = [t.name for t in report.tables if not t.ok]
    if fts != chunks:
        bad.append(f"chunks_fts ({fts} rows for {chunks} chunks)")
    if bad:
        raise DatabaseError(f"copy verification failed for {', '.join(bad)}; nothing was written")


def _tee(rows: Iterable[Row], check: Checksum) -> Iterator[Row]:
    for row in rows:
        check.add(row)
        yield row


def _batches(rows: Iterable[Any]) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH:
            yield batch
            batch = []
    if batch:
        yield batch
