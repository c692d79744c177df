"""The PostgreSQL side of `Index`: what differs from the file engine when an index is
opened by a postgresql:// URL (docs/scale-out.md, "The Index over a URL").

`Index` keeps one front door and asks this object only for what the engines do
differently: the connection, running compiled DocQL (with a statement timeout), the
query plan, the database size, whether vectors exist, search (`pg/search.py`, imported
by the first search), and the writers
(`pg/ingest.py`, `pg/embed.py`). The catalog reads (`query/catalog.py`) are shared:
the same SQL, spelled by `query.dialect.POSTGRES`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg

from ...errors import DocQLError
from ...query.compiler import Compiled
from ...search.vectors import KEY_MODEL, VEC_TABLE
from . import connect as pg
from . import query as pg_query


class PostgresEngine:
    """A read-only session on a PostgreSQL index (a primary or a hot standby)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.label = pg.safe_url(url)
        conn = pg.connect(url, readonly=True)
        # Autocommit: each read is its own read-only transaction, so a long-lived reader
        # (the MCP server) sees new writes and holds no snapshot between calls.
        conn.autocommit = True
        conn.execute("SET default_transaction_read_only = on")
        self.conn: psycopg.Connection = conn

    def close(self) -> None:
        self.conn.close()

    def execute(self, compiled: Compiled, seconds: float | None) -> Iterator[dict[str, Any]]:
        """The rows of `compiled`, the statement cancelled by PostgreSQL after `seconds`."""
        # pg.query.execute sets the limit for its own transaction and turns PostgreSQL's
        # cancel into the same QueryTimeout as on the file.
        yield from pg_query.execute(self.conn, compiled, timeout=seconds)

    def plan(self, compiled: Compiled) -> list[dict[str, Any]]:
        """PostgreSQL's plan for `compiled`, one line a step (as `EXPLAIN` prints it)."""
        try:
            rows = self.conn.execute(
                b"EXPLAIN " + compiled.sql.encode(), compiled.bound_params()
            ).fetchall()
        except psycopg.Error as exc:
            raise DocQLError(f"EXPLAIN failed in PostgreSQL: {pg.first_line(exc)}") from None
        return [{"id": n, "parent": None, "detail": r[0]} for n, r in enumerate(rows)]

    def rows(self, sql: str, params: Any = ()) -> Iterator[dict[str, Any]]:
        """Rows of read-only SQL of your own (psycopg `%s` markers), as dicts."""
        try:
            cursor = self.conn.execute(sql.encode(), params)
            names = [c.name for c in cursor.description or ()]
            for row in cursor:
                yield dict(zip(names, row))
        except psycopg.Error as exc:
            raise DocQLError(f"query failed in PostgreSQL: {pg.first_line(exc)}") from None

    def size_bytes(self) -> int:
        return int(pg.scalar(self.conn, "SELECT pg_database_size(current_database())") or 0)

    def has_vectors(self) -> bool:
        return pg.table_exists(self.conn, VEC_TABLE) and bool(pg.get_meta(self.conn, KEY_MODEL))

    def search(self, text: str, options: Any) -> list[dict[str, Any]]:
        from . import search  # the search strategies: loaded by the first search

        return search.search(self.conn, text, options)

    def search_builder(self, has_vectors: bool) -> Any:
        """`$.content.search()`/`similar()` for the compiler (`pg.search.docql_builder`),
        the search package imported by the first query that calls one of them."""

        def build(*args: Any) -> Any:
            from . import search

            return search.docql_builder(self.conn, has_vectors)(*args)

        return build

    def context(self, question: str, options: Any) -> dict[str, Any]:
        from . import search

        return search.context(self.conn, question, options)
