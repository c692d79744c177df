"""What a search reads from: a connection, its SQL dialect, and a version stamp for caches.

Every strategy (`ranking.py`, `smart.py`, `typed.py`, `names.py`, `context_pack.py`)
runs its SQL through an `Engine` and builds it with `Params(engine.dialect)`, so the
same ranking code runs on the SQLite file and on PostgreSQL (`pg/search.py` defines the
PostgreSQL engine: only `pg/` imports psycopg). `of(index)` turns an `Index` (the file
engine) into its engine; an engine passed in is used as it is.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..dialect import Dialect
from ..errors import SearchError
from ..sqlparams import Params, bind
from ..store.sqlite import db
from . import vectors

if TYPE_CHECKING:
    from ..embedders import EmbeddingModel

# FTS5's per-occurrence view of the full-text index (`body_counts`), in the connection's
# temp schema so that a read-only file stays untouched.
VOCAB = "temp.docql_vocab"
PREFIX_END = "\uffff"  # above every character a token can hold (in UTF-8 byte order)


class Engine:
    """The interface a search needs. `path` names the index (a cache key, and messages)."""

    dialect: Dialect
    conn: Any
    path: str

    def rows(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        """Every row of `sql` as a dict (Deferred parameters bound first)."""
        raise NotImplementedError

    def scalar(self, sql: str, params: Any = ()) -> Any:
        """The first value of the first row (None when there is none)."""
        raise NotImplementedError

    def stamp(self) -> tuple[Any, ...]:
        """Changes whenever the index may have changed: the key of `stats.cached`."""
        raise NotImplementedError

    def has_embeddings(self) -> bool:
        """The index holds vectors (whether or not this engine can search them)."""
        raise NotImplementedError

    @property
    def has_vectors(self) -> bool:
        """The index holds vectors and this engine can search them."""
        raise NotImplementedError

    def query_model(self, name: str | None = None) -> EmbeddingModel:
        """The model to embed queries with (`name`, else the index's own), checked."""
        raise NotImplementedError

    def documents(self, globs: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        """Every document (id, path, format, lines, pages, size), optionally by glob."""
        raise NotImplementedError

    def body_counts(
        self,
        token: str,
        prefix: bool,
        params: Params,
        within: str | None = None,
        without: str | None = None,
    ) -> list[tuple[int, int]]:
        """(chunk id, occurrences) of `token` in the body column of each chunk holding it,
        as FTS5's `fts5vocab` instance table counts them (the title column not counted).
        `prefix`: of every token from `token` up to `token` + U+FFFF in UTF-8 byte order
        (the tokens it begins). `within` / `without`: SELECTs of the chunk ids to keep /
        to leave out, their values in `params` (which this adds its own to). Plain tuples
        in chunk order: a common word has thousands (documents.py, the documents channel)."""
        raise NotImplementedError


class SqliteEngine(Engine):
    """The index file, through the `Index` that opened it."""

    def __init__(self, index: Any) -> None:
        self.index = index
        self.conn = index.conn
        self.path = str(index.path)
        self.dialect = index.dialect
        # The Index's in-memory vectors (`vectors.VectorCache`), when it holds them.
        self.vector_cache = getattr(index, "vector_cache", None)

    def rows(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        values = bind(params) if isinstance(params, dict) else params
        try:
            return list(db.rows(self.conn, sql, values))
        except db.SQLError as exc:
            raise db.translate(exc, self.path) or SearchError(
                f"search failed in SQLite: {exc}"
            ) from exc

    def scalar(self, sql: str, params: Any = ()) -> Any:
        values = bind(params) if isinstance(params, dict) else params
        try:
            return db.scalar(self.conn, sql, values)
        except db.SQLError as exc:
            raise db.translate(exc, self.path) or SearchError(
                f"search failed in SQLite: {exc}"
            ) from exc

    def stamp(self) -> tuple[Any, ...]:
        # The modification times of the file and its WAL: every write changes one of them.
        return _mtime(self.path), _mtime(self.path + "-wal")

    def has_embeddings(self) -> bool:
        return vectors.has_embeddings(self.conn)

    @property
    def has_vectors(self) -> bool:
        return vectors.has_embeddings(self.conn) and db.has_vec(self.conn)

    def query_model(self, name: str | None = None) -> EmbeddingModel:
        return vectors.query_model(self.conn, name)

    def documents(self, globs: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        return list(self.index.documents(globs))

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
                f"search failed in SQLite: {exc}"
            ) from exc


def of(index: Any) -> Engine:
    """The engine of `index`: an `Engine` as it is, an `Index` (or anything with `.conn`
    and `.path` on the file engine) wrapped."""
    return index if isinstance(index, Engine) else SqliteEngine(index)


def ensure_vocab(conn: Any) -> None:
    """The fts5vocab instance table over chunks_fts, in this connection's temp schema."""
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB} USING fts5vocab(main, chunks_fts, instance)"
    )


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0
