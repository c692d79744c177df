"""Run DocQL on a PostgreSQL index: the compiler's PostgreSQL dialect, rows as items.

The statement is the one `compile_query` builds for SQLite, spelled by
`query.dialect.POSTGRES`; the rows become items through the same `query.results.build`
as on the file engine, so an item differs only where the engines do (docs/scale-out.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
from psycopg.rows import dict_row

from ..errors import DocQLError
from ..query import results
from ..query.compiler import Compiled, compile_query
from ..query.dialect import POSTGRES


def compile(  # noqa: A001 - mirrors Index.compile
    text: str, *, paths: tuple[str, ...] = (), limit: int | None = None
) -> Compiled:
    return compile_query(text, paths=paths, limit=limit, dialect=POSTGRES)


def execute(conn: psycopg.Connection, compiled: Compiled) -> Iterator[dict[str, Any]]:
    try:
        with conn.cursor(row_factory=dict_row) as cursor:
            cursor.execute(compiled.sql.encode(), compiled.bound_params())
            yield from cursor
    except psycopg.Error as exc:
        conn.rollback()
        message = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DocQLError(f"query failed in PostgreSQL: {message}") from None


def query(
    conn: psycopg.Connection,
    text: str,
    *,
    paths: tuple[str, ...] = (),
    limit: int | None = None,
) -> list[Any]:
    """The items of the DocQL query `text` (as `Index.query` returns them)."""
    compiled = compile(text, paths=paths, limit=limit)
    return list(results.build(compiled, execute(conn, compiled)))
