"""`SqliteStore`: an index file, through apsw (`db.py` is the driver glue)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ... import deadline
from ...dialect import SQLITE, SQLITE_CHUNK_TRIGRAMS, Dialect
from ...errors import DocQLError, SearchError
from ...schema import KEY_DIMENSIONS, KEY_FINGERPRINT, KEY_MODEL, VEC_TABLE
from ...sqlparams import Params, bind
from ..base import Store
from . import db

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any

    from ..writer import Writer

# FTS5's per-occurrence view of the full-text index (`body_counts`), in the connection's
# temp schema so that a read-only file stays untouched.
VOCAB = "temp.docql_vocab"
PREFIX_END = "\uffff"  # above every character a token can hold (in UTF-8 byte order)


class SqliteStore(Store):
    """An index file: read-only unless `readonly=False` (the one writer's connection)."""

    def __init__(
        self,
        path: str,
        *,
        readonly: bool = True,
        create: bool = True,
        checked: db.BackgroundCheck | None = None,
    ) -> None:
        self.path = self.label = str(path)
        self.readonly = readonly
        self.conn: db.Connection = db.connect(
            self.path, readonly=readonly, create=create, checked=checked
        )
        self.dialect: Dialect = SQLITE_CHUNK_TRIGRAMS if self.has_chunk_trigrams() else SQLITE

    def hold_pages(self, kib: int) -> None:
        """Pages in SQLite's cache instead of mapped (`db.READER_MMAP_BYTES`): with
        `cell_size_check` on (db.py), SQLite makes a new page object for every access to
        a mapped page and checks its cells again each time, which doubled the BM25 list's
        CPU on the 10 MB mix (5.7 against 2.7 ms); a cached page is checked once, when it
        is read. For a process that answers many searches; a one-off command keeps the
        map (it reads each page a few times at most: no difference measured)."""
        self.conn.execute("PRAGMA mmap_size = 0")
        self.conn.execute(f"PRAGMA cache_size = -{int(kib)}")
        super().hold_pages(kib)

    def refresh(self) -> None:
        """Read again what compiling depends on (after this process wrote the index)."""
        self.dialect = SQLITE_CHUNK_TRIGRAMS if self.has_chunk_trigrams() else SQLITE

    def close(self) -> None:
        if self.sidecar is not None:
            self.sidecar.close()
        self.conn.close()

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")  # deferred: the snapshot is taken by the first read
        try:
            yield
        finally:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")

    # -- reading ----------------------------------------------------------------------
    def rows(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        values = bind(params) if isinstance(params, dict) else params
        deadline.remaining()  # out of time: stop before the statement (its own check is per steps)
        try:
            return list(db.rows(self.conn, sql, values))
        except db.SQLError as exc:
            raise db.translate(exc, self.path) or SearchError(
                f"reading the index failed in SQLite: {exc}"
            ) from exc

    def scalar(self, sql: str, params: Any = ()) -> Any:
        values = bind(params) if isinstance(params, dict) else params
        deadline.remaining()
        try:
            return db.scalar(self.conn, sql, values)
        except db.SQLError as exc:
            raise db.translate(exc, self.path) or SearchError(
                f"reading the index failed in SQLite: {exc}"
            ) from exc

    def execute(
        self, sql: str, params: dict[str, Any], seconds: float | None
    ) -> Iterator[dict[str, Any]]:
        with deadline.limit(seconds) as clock:
            try:
                for row in db.rows(self.conn, sql, params):
                    if clock is None:
                        yield row
                    else:  # pause/resume: a context manager per row costs ~10 % of a query
                        clock.pause()
                        try:
                            yield row
                        finally:
                            clock.resume()
            except db.SQLError as exc:
                raise DocQLError(f"query failed in SQLite: {exc}") from exc

    def plan(self, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        try:
            found = list(self.conn.execute("EXPLAIN QUERY PLAN " + sql, params))
        except db.SQLError as exc:
            raise DocQLError(f"EXPLAIN failed in SQLite: {exc}") from exc
        return [{"id": r[0], "parent": r[1], "detail": r[3]} for r in found]

    # -- what the index holds ---------------------------------------------------------
    def stamp(self) -> tuple[Any, ...]:
        # The modification times of the file and its WAL: every write changes one of them.
        return _mtime(self.path), _mtime(self.path + "-wal")

    def meta(self, key: str) -> str | None:
        return db.get_meta(self.conn, key)

    def size_bytes(self) -> int:
        return sum(os.path.getsize(p) for p in (self.path, self.path + "-wal") if os.path.exists(p))

    def integrity(self, seconds: float) -> str | None:
        return db.integrity(self.conn, self.path, seconds)

    def has_embeddings(self) -> bool:
        found = self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (VEC_TABLE,))
        return bool(self.meta(KEY_MODEL)) and found.fetchone() is not None

    @property
    def has_vectors(self) -> bool:
        return db.has_vec(self.conn) and bool(self.meta(KEY_MODEL))

    def has_chunk_trigrams(self) -> bool:
        return db.has_chunk_trigrams(self.conn)

    def embedding_meta(self) -> dict[str, str]:
        keys = (KEY_MODEL, KEY_DIMENSIONS, KEY_FINGERPRINT)
        found = self.rows(
            f"SELECT key, value FROM meta WHERE key IN ({', '.join('?' * len(keys))})", keys
        )
        return {r["key"]: r["value"] for r in found}

    def body_counts(
        self,
        token: str,
        prefix: bool,
        params: Params,
        within: str | None = None,
        without: str | None = None,
    ) -> list[tuple[int, int]]:
        # A vocabulary row per occurrence (term, doc = chunk rowid, col, offset); FTS5
        # answers the term conditions from its index, not by a scan.
        ensure_vocab(self.conn)
        if prefix:
            low, high = params.add(token), params.add(token + PREFIX_END)
            cond = f"v.term >= {low} AND v.term < {high}"
        else:
            cond = f"v.term = {params.add(token)}"
        if within:
            cond += f" AND v.doc IN ({within})"
        if without:
            cond += f" AND v.doc NOT IN ({without})"
        sql = (
            f"SELECT v.doc AS chunk, count(*) AS n FROM {VOCAB} v WHERE {cond} "
            "AND v.col = 'body' GROUP BY v.doc"
        )
        try:
            return list(self.conn.execute(sql, bind(params.values)))
        except db.SQLError as exc:
            raise db.translate(exc, self.path) or SearchError(
                f"reading the index failed in SQLite: {exc}"
            ) from exc

    def data_version(self) -> int | None:
        return int(db.scalar(self.conn, "PRAGMA data_version"))

    def quiescent(self) -> bool:
        # A commit appends to the WAL, which cannot be emptied again while an older
        # snapshot is open (search/parallel.py): empty at two moments, no commit between.
        return wal_empty(self.path)

    def register_table_function(
        self, name: str, columns: list[str], function: Callable[..., Iterator[dict[str, Any]]]
    ) -> bool:
        db.register_table_function(self.conn, name, columns, function)
        return True

    # -- writing ----------------------------------------------------------------------
    def writer(self) -> Writer:
        from .writer import SqliteWriter

        return SqliteWriter(self)


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def ensure_vocab(conn: db.Connection) -> None:
    """The fts5vocab instance table over chunks_fts (VOCAB), in this connection's temp
    schema: `body_counts` reads it; so may SQL of your own."""
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB} USING fts5vocab(main, chunks_fts, instance)"
    )


def wal_empty(path: str) -> bool:
    """Whether the index's WAL holds no frames (no file: nothing was written since the last
    connection closed, or the file is not in WAL mode, where readers block commits)."""
    try:
        return os.stat(path + "-wal").st_size == 0
    except FileNotFoundError:
        return True
