"""`PostgresStore`: an index in a PostgreSQL database (a primary or a hot standby), through
psycopg (docs/scale-out.md, "The Index over a URL").

A reader's session is autocommit, so a long-lived reader (the MCP server) sees new
writes and holds no snapshot between calls; `snapshot()` runs a block in one read-only
transaction. Statements run inside it directly; outside it, each in its own. Every
statement gets the deadline's time left as `statement_timeout`, and a KNN statement an
`hnsw.ef_search` of at least its k (an HNSW scan returns at most ef_search rows).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg.rows import dict_row, tuple_row

from ... import deadline
from ...dialect import Dialect
from ...dialect.postgres import POSTGRES
from ...errors import DocQLError, SearchError
from ...fts_tokens import quote_lexeme
from ...schema import KEY_DIMENSIONS, KEY_FINGERPRINT, KEY_MODEL, VEC_TABLE
from ...sqlparams import Params, bind
from ..base import Store
from . import connect as pg

if TYPE_CHECKING:
    from ..writer import Writer

# hnsw.ef_search bounds how many rows an HNSW scan returns; pgvector allows 1..1000.
EF_SEARCH_MIN, EF_SEARCH_MAX = 40, 1000
_LIMIT_PARAM = re.compile(r"LIMIT %\((p\d+)\)s")
PREFIX_END = "\uffff"  # above every character a token can hold (in UTF-8 byte order)


class PostgresStore(Store):
    """A session on a PostgreSQL index: read-only unless `readonly=False`."""

    dialect: Dialect = POSTGRES

    def __init__(self, url: str, *, readonly: bool = True, create: bool = True) -> None:
        self.path = url
        self.label = pg.safe_url(url)
        self.readonly = readonly
        conn = pg.connect(url, readonly=readonly, create=create)
        conn.autocommit = True
        if readonly:
            conn.execute("SET default_transaction_read_only = on")
        self.conn: psycopg.Connection = conn
        self._in_snapshot = False
        self._stamp: tuple[Any, ...] | None = None  # read once per snapshot

    def refresh(self) -> None:
        """Nothing is read ahead of time on PostgreSQL."""

    def close(self) -> None:
        if self.sidecar is not None:
            self.sidecar.close()
        self.conn.close()

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        if (
            self._in_snapshot
            or self.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE
        ):
            yield
            return
        self._in_snapshot, self._stamp = True, None
        try:
            with self.conn.transaction(force_rollback=True):
                # REPEATABLE READ: every statement of the block reads the first one's
                # snapshot (PostgreSQL's default, READ COMMITTED, takes one per statement).
                self.conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                yield
        finally:
            self._in_snapshot, self._stamp = False, None

    # -- reading ----------------------------------------------------------------------
    def rows(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        return self._execute(sql, params, dict_row)

    def scalar(self, sql: str, params: Any = ()) -> Any:
        found = self._execute(sql, params, tuple_row)
        return found[0][0] if found else None

    def _execute(self, sql: str, params: Any, row_factory: Any) -> list[Any]:
        values = bind(params) if isinstance(params, dict) else params
        try:
            # A savepoint inside a snapshot, so that a failed statement leaves it usable.
            with self.conn.transaction(), self.conn.cursor(row_factory=row_factory) as cursor:
                for name, value in self._settings(sql, values).items():
                    cursor.execute("SELECT set_config(%s, %s, true)", (name, value))
                cursor.execute(sql.encode(), values or None)
                return list(cursor) if cursor.description else []
        except psycopg.errors.QueryCanceled:
            running = deadline.current()
            if running is not None:
                raise running.expired() from None
            raise SearchError("search cancelled by PostgreSQL (statement_timeout)") from None
        except psycopg.Error as exc:
            raise SearchError(
                f"reading the index failed in PostgreSQL: {pg.first_line(exc)}"
            ) from None

    def _settings(self, sql: str, values: Any) -> dict[str, str]:
        settings: dict[str, str] = {}
        left = deadline.remaining()
        if left is not None:
            settings["statement_timeout"] = str(max(1, int(left * 1000)))
        if "<=>" in sql and isinstance(values, dict):
            ks = [int(values[m]) for m in _LIMIT_PARAM.findall(sql) if m in values]
            if ks:
                settings["hnsw.ef_search"] = str(min(EF_SEARCH_MAX, max(EF_SEARCH_MIN, *ks)))
        return settings

    def execute(
        self, sql: str, params: dict[str, Any], seconds: float | None
    ) -> Iterator[dict[str, Any]]:
        # 0 means no limit, so a limit is at least 1 ms.
        limit = "0" if seconds is None else f"{max(1, round(seconds * 1000))}ms"
        try:
            with self.conn.transaction(), self.conn.cursor(row_factory=dict_row) as cursor:
                cursor.execute("SELECT set_config('statement_timeout', %s, true)", (limit,))
                cursor.execute(sql.encode(), params)
                found = cursor.fetchall()
        except psycopg.errors.QueryCanceled:
            if seconds is None:
                raise DocQLError("query failed in PostgreSQL: canceled by the server") from None
            raise deadline.timed_out(seconds) from None
        except psycopg.Error as exc:
            raise DocQLError(f"query failed in PostgreSQL: {pg.first_line(exc)}") from None
        yield from found

    def plan(self, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        try:
            found = self.conn.execute(b"EXPLAIN " + sql.encode(), params).fetchall()
        except psycopg.Error as exc:
            raise DocQLError(f"EXPLAIN failed in PostgreSQL: {pg.first_line(exc)}") from None
        return [{"id": n, "parent": None, "detail": r[0]} for n, r in enumerate(found)]

    # -- what the index holds ---------------------------------------------------------
    def stamp(self) -> tuple[Any, ...]:
        # The WAL position moves with every write (on a standby: with every replayed one).
        # Read once per snapshot: its statements read one version (and a search asks for
        # the stamp at every cached figure).
        if self._in_snapshot and self._stamp is not None:
            return self._stamp
        stamp = (
            self.scalar(
                "SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() "
                "ELSE pg_current_wal_insert_lsn() END)::text"
            ),
        )
        if self._in_snapshot:
            self._stamp = stamp
        return stamp

    def meta(self, key: str) -> str | None:
        found = self.scalar("SELECT value FROM meta WHERE key = %s", (key,))
        return None if found is None else str(found)

    def size_bytes(self) -> int:
        return int(self.scalar("SELECT pg_database_size(current_database())") or 0)

    def integrity(self, seconds: float) -> str | None:
        return None  # PostgreSQL checks its own pages (data checksums, when enabled)

    def has_embeddings(self) -> bool:
        if not self.meta(KEY_MODEL):
            return False
        return bool(self.scalar("SELECT to_regclass(%s) IS NOT NULL", (VEC_TABLE,)))

    @property
    def has_vectors(self) -> bool:
        return self.has_embeddings()  # chunks_vec exists only where pgvector does

    def has_chunk_trigrams(self) -> bool:
        return False  # pg_trgm over chunks is not built (docs/design.md B35)

    def embedding_meta(self) -> dict[str, str]:
        keys = [KEY_MODEL, KEY_DIMENSIONS, KEY_FINGERPRINT]
        found = self.rows("SELECT key, value FROM meta WHERE key = ANY(%(keys)s)", {"keys": keys})
        return {r["key"]: r["value"] for r in found}

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

    # -- writing ----------------------------------------------------------------------
    def writer(self) -> Writer:
        from .writer import PostgresWriter

        return PostgresWriter(self)
