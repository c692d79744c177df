"""Search and context packs on a PostgreSQL index: the file engine's ranking, PostgreSQL SQL.

`search(conn, text, options)` and `context(conn, question, options)` run the very
strategies of `Index.search` / `Index.context` (`search/api.py`, `smart.py`, `typed.py`,
`context_pack.py`) through `PgEngine`, whose dialect makes `search/sqlbuild.py` spell
the PostgreSQL statement: a tsquery over `chunks_fts.tsv`, FTS5's BM25 computed in SQL
from the index's term statistics, pgvector KNN, and hybrid RRF as one statement
(docs/scale-out.md, "Search on PostgreSQL").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg.rows import dict_row, tuple_row

from ... import deadline
from ...dialect import POSTGRES
from ...errors import SearchError
from ...fts_tokens import quote_lexeme
from ...globs import matcher
from ...options import ContextOptions, SearchOptions
from ...query.functions import Source
from ...query.nodes import Call
from ...search import api, context_pack, vectors
from ...search.docql import search_source
from ...search.engine import PREFIX_END, Engine
from ...sqlparams import Params, bind

if TYPE_CHECKING:
    from ...embedders import EmbeddingModel

# hnsw.ef_search bounds how many rows an HNSW scan returns; pgvector allows 1..1000.
EF_SEARCH_MIN, EF_SEARCH_MAX = 40, 1000
_LIMIT_PARAM = re.compile(r"LIMIT %\((p\d+)\)s")


def search(conn: psycopg.Connection, text: str, options: SearchOptions) -> list[dict[str, Any]]:
    """Ranked passages for `text` on the PostgreSQL index behind `conn`.

    The same hit dicts as `Index.search` (path, line, end_line, location, section, number,
    page, chunk_index, score, snippet, content; `explain` with options.explain), for every
    mode (smart, bm25, vector, hybrid) and typed query documents. `conn` is a psycopg
    connection to a database holding an index (`pg.connect(url, readonly=True)` opens
    one); it is left in the transaction state it came in (a search only reads). Errors
    are `DocQLError`s (SearchError, EmbeddingError, QueryTimeout, OptionError).
    """
    with PgEngine(conn) as engine:
        return api.search(engine, text, options)


def context(conn: psycopg.Connection, question: str, options: ContextOptions) -> dict[str, Any]:
    """The context pack for `question` (as `Index.context`: text, blocks, strategy, chars,
    budget, question) on the PostgreSQL index behind `conn`."""
    with PgEngine(conn) as engine:
        return context_pack.context(engine, question, options)


def docql_builder(
    conn: psycopg.Connection, has_vectors: bool | None = None
) -> Callable[[str, str, str, Params, Call], Source]:
    """The `search_builder` of `pg.query.compile`/`pg.query.query` for the index behind
    `conn`: `$.content.search(q)` and `similar(q)` compile to the search SQL builder's
    PostgreSQL statement (`search/docql.py`, as on the file). `has_vectors`: whether the
    index has vectors, when the caller knows (`Index` does: compiling then reads no row);
    None asks the database when a query calls search() or similar()."""

    def build(name: str, q: str, scope: str, params: Params, call: Call) -> Source:
        return search_source(DocqlEngine(conn, has_vectors), name, q, scope, params, call)

    return build


class PgEngine(Engine):
    """A PostgreSQL index as the search strategies read it (`search/engine.py`)."""

    dialect = POSTGRES

    def __init__(self, conn: psycopg.Connection) -> None:
        self.conn = conn
        info = conn.info
        self.path = f"postgresql://{info.host}:{info.port}/{info.dbname}"
        idle = conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        # Idle and not autocommit: the search's statements run in one transaction of its
        # own (one snapshot, no savepoints), rolled back at the end.
        self._owned = idle and not conn.autocommit
        self._stamp: tuple[Any, ...] | None = None
        self._timeout_set = False

    def __enter__(self) -> PgEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        # A search only reads: leave no transaction open that it began (a standby must
        # not keep an old snapshot; the caller's own transaction is left alone).
        if self._owned and not self.conn.closed:
            self.conn.rollback()

    def rows(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        return self._execute(sql, params, dict_row)

    def _execute(self, sql: str, params: Any, row_factory: Any) -> list[Any]:
        values = bind(params) if isinstance(params, dict) else params
        settings = self._settings(sql, values)
        try:
            if self._owned:
                # The search's own transaction (begun by its first statement): no
                # savepoint round trips; a failure rolls it back (__exit__ or below).
                return self._run(sql, values, settings, row_factory)
            with self.conn.transaction():  # the caller's transaction, or autocommit
                return self._run(sql, values, settings, row_factory)
        except psycopg.errors.QueryCanceled:
            self._abort()
            running = deadline.current()
            if running is not None:
                raise running.expired() from None
            raise SearchError("search cancelled by PostgreSQL (statement_timeout)") from None
        except psycopg.Error as exc:
            self._abort()
            message = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise SearchError(f"search failed in PostgreSQL: {message}") from None

    def _run(self, sql: str, values: Any, settings: dict[str, str], row_factory: Any) -> list[Any]:
        with self.conn.cursor(row_factory=row_factory) as cursor:
            for name, value in settings.items():
                cursor.execute("SELECT set_config(%s, %s, true)", (name, value))
            cursor.execute(sql.encode(), values or None)
            return list(cursor) if cursor.description else []

    def _abort(self) -> None:
        if self._owned and not self.conn.closed:
            self.conn.rollback()

    def scalar(self, sql: str, params: Any = ()) -> Any:
        found = self.rows(sql, params)
        return next(iter(found[0].values())) if found else None

    def _settings(self, sql: str, values: Any) -> dict[str, str]:
        """Per-statement settings: the query's time left as statement_timeout, and for a
        KNN an hnsw.ef_search of at least its k (an HNSW scan returns ef_search rows at
        most)."""
        settings: dict[str, str] = {}
        left = deadline.remaining()
        if left is not None and not (self._owned and self._timeout_set):
            # In its own transaction a search sets it once (its whole time limit).
            settings["statement_timeout"] = str(max(1, int(left * 1000)))
            self._timeout_set = True
        if "<=>" in sql and isinstance(values, dict):
            ks = [int(values[m]) for m in _LIMIT_PARAM.findall(sql) if m in values]
            if ks:
                ef = min(EF_SEARCH_MAX, max(EF_SEARCH_MIN, *ks))
                settings["hnsw.ef_search"] = str(ef)
        return settings

    def stamp(self) -> tuple[Any, ...]:
        # The WAL position moves with every write (on a standby: with every replayed one).
        # Read once per engine, i.e. per search: one search reads one version.
        if self._stamp is None:
            self._stamp = (
                self.scalar(
                    "SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() "
                    "ELSE pg_current_wal_insert_lsn() END)::text"
                ),
            )
        return self._stamp

    def _meta(self) -> dict[str, str]:
        keys = (vectors.KEY_MODEL, vectors.KEY_DIMENSIONS, vectors.KEY_FINGERPRINT)
        found = self.rows(
            "SELECT key, value FROM meta WHERE key = ANY(%(keys)s)", {"keys": list(keys)}
        )
        return {r["key"]: r["value"] for r in found}

    def has_embeddings(self) -> bool:
        if not self._meta().get(vectors.KEY_MODEL):
            return False
        return bool(self.scalar("SELECT to_regclass('chunks_vec') IS NOT NULL"))

    @property
    def has_vectors(self) -> bool:
        return self.has_embeddings()  # chunks_vec exists only where pgvector does

    def query_model(self, name: str | None = None) -> EmbeddingModel:
        meta = self._meta()
        if not self.has_embeddings():
            raise vectors.no_embeddings()
        model = vectors.load_model(name or meta[vectors.KEY_MODEL])
        vectors.check_model_meta(meta, model)
        return model

    def documents(self, globs: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        docs = self.rows(
            'SELECT id, path, format, lines, pages, size FROM documents ORDER BY path COLLATE "C"'
        )
        if not globs:
            return docs
        matches = matcher(globs)
        return [d for d in docs if matches(d["path"])]

    def body_counts(
        self,
        token: str,
        prefix: bool,
        params: Params,
        within: str | None = None,
        without: str | None = None,
    ) -> list[tuple[int, int]]:
        # The tsvector holds each lexeme's positions with their weights, body positions
        # weighted B (fts_tokens.tsvector_literal), so a chunk's body count of a lexeme is
        # its number of B positions: fts5vocab's instance rows in the body column. The
        # tsquery (`'tok':B`, `'tok':*B`) picks the chunks through the GIN index.
        lexeme = quote_lexeme(token)
        query = params.add(f"{lexeme}:*B" if prefix else f"{lexeme}:B")
        where = f"f.tsv @@ CAST({query} AS tsquery)"
        if within:
            where += f" AND f.rowid IN ({within})"
        if without:
            where += f" AND f.rowid NOT IN ({without})"
        if prefix:
            # Every lexeme in the byte range FTS5's vocabulary is read over (COLLATE "C":
            # UTF-8 byte order, whatever the database's collation), out of the row's
            # unnested tsvector.
            low, high = params.add(token), params.add(token + PREFIX_END)
            n = "cardinality(array_positions(u.weights, 'B'))"
            sql = (
                f"SELECT f.rowid AS chunk, sum({n})::bigint AS n "
                f"FROM chunks_fts f CROSS JOIN LATERAL unnest(f.tsv) u WHERE {where} "
                f'AND u.lexeme COLLATE "C" >= {low} AND u.lexeme COLLATE "C" < {high} '
                f"GROUP BY f.rowid HAVING sum({n}) > 0 ORDER BY f.rowid"
            )
        else:
            # One lexeme: its body positions isolated by tsvector functions (body positions
            # only, then this lexeme's re-weighted C and kept), so only a one-lexeme vector
            # is unnested: 2-4x less server time than unnesting the whole row for it.
            one = (
                f"ts_filter(setweight(ts_filter(f.tsv, '{{b}}'), 'c', "
                f"ARRAY[{params.add(token)}]::text[]), '{{c}}')"
            )
            sql = (
                f"SELECT chunk, n FROM (SELECT f.rowid AS chunk, (SELECT "
                f"sum(cardinality(u.positions)) FROM unnest({one}) u)::bigint AS n "
                f"FROM chunks_fts f WHERE {where}) s WHERE n > 0 ORDER BY chunk"
            )
        return self._execute(sql, params.values, tuple_row)


class DocqlEngine(PgEngine):
    """The engine behind search() and similar() in a DocQL statement. It is made when the
    query compiles and read when its deferred parameters are bound (term statistics, the
    query vector), which `pg.query.execute` does inside the statement's own transaction:
    so it never owns a transaction, each statement runs in a savepoint of that one."""

    def __init__(self, conn: psycopg.Connection, has_vectors: bool | None) -> None:
        super().__init__(conn)
        self._owned = False
        self._known_vectors = has_vectors

    @property
    def has_vectors(self) -> bool:
        if self._known_vectors is None:
            self._known_vectors = self.has_embeddings()
        return self._known_vectors


__all__ = ["DocqlEngine", "PgEngine", "context", "docql_builder", "search"]
