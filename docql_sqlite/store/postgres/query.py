"""Run DocQL on a PostgreSQL index: the compiler's PostgreSQL dialect, rows as items.

The statement is the one `compile_query` builds for SQLite, spelled by
`query.dialect.POSTGRES`; the rows become items through the same `query.results.build`
as on the file engine, so an item differs only where the engines do (docs/scale-out.md).
One time limit covers the statement (PostgreSQL's `statement_timeout`) and the results
stage (a regex grep's hit lines, in Python), as `Index.query` has on the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import psycopg
from psycopg.rows import dict_row

from ... import deadline
from ...dialect import POSTGRES
from ...errors import DocQLError
from ...query import items as item_sql
from ...query import results
from ...query.compiler import Compiled, compile_query
from ...query.functions import Source

DEFAULT = "default"  # the timeout of Index.query: $DOCQL_QUERY_TIMEOUT or 5 s


def compile(  # noqa: A001 - mirrors Index.compile
    text: str,
    *,
    paths: tuple[str, ...] = (),
    limit: int | None = None,
    search_builder: Callable[..., Source] | None = None,
) -> Compiled:
    """`text` as one PostgreSQL statement. `$.content.search()`/`similar()` need the
    search SQL builder (`search/docql.py` over a PostgreSQL engine) as `search_builder`;
    without one they are a clear error."""
    return compile_query(
        text, paths=paths, limit=limit, search_builder=search_builder, dialect=POSTGRES
    )


def execute(
    conn: psycopg.Connection, compiled: Compiled, timeout: float | None = None
) -> Iterator[dict[str, Any]]:
    """The rows of `compiled`, the statement cut off after `timeout` seconds (None: never).

    The limit is set local to a transaction of its own (a savepoint inside one the caller
    has open), so it holds on an autocommit connection too and is gone afterwards."""
    # 0 means no limit, so a limit is at least 1 ms.
    limit = "0" if timeout is None else f"{max(1, round(timeout * 1000))}ms"
    try:
        with conn.transaction(), conn.cursor(row_factory=dict_row) as cursor:
            cursor.execute("SELECT set_config('statement_timeout', %s, true)", (limit,))
            # Deferred parameters (search's term statistics, a query vector) are read in
            # this transaction; loading an embedding model is not the query's time, as on
            # the file (Index.execute).
            with deadline.not_counted():
                params = compiled.bound_params()
            cursor.execute(compiled.sql.encode(), params)
            rows = cursor.fetchall()
    except psycopg.errors.QueryCanceled:
        if timeout is None:
            raise DocQLError("query failed in PostgreSQL: canceled by the server") from None
        raise deadline.timed_out(timeout) from None
    except psycopg.Error as exc:
        message = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DocQLError(f"query failed in PostgreSQL: {message}") from None
    if compiled.item.name == item_sql.SECTION.name:  # (the item type is made per dialect)
        _integral_tiers(rows)
    yield from rows


def _integral_tiers(rows: list[dict[str, Any]]) -> None:
    """A section's score as SQLite gives it: heading()'s title tiers (3, 2, 1) are integers
    and its body fallback 0.5 a float, each row its own type on SQLite; PostgreSQL's UNION
    ALL gives the column one type (float8), so 3 came back as 3.0. Sections have no other
    scores (NULL, the tiers, 0.5), so an integral float is a tier."""
    for row in rows:
        score = row.get("score")
        if isinstance(score, float) and score.is_integer():
            row["score"] = int(score)


def query(
    conn: psycopg.Connection,
    text: str,
    *,
    paths: tuple[str, ...] = (),
    limit: int | None = None,
    offset: int = 0,
    timeout: float | None | str = DEFAULT,
    search_builder: Callable[..., Source] | None = None,
) -> list[Any]:
    """The items of the DocQL query `text` (as `Index.query` returns them): at most
    `limit` after skipping `offset`, within `timeout` seconds (None: no limit)."""
    seconds = deadline.default_seconds() if isinstance(timeout, str) else timeout
    # The offset is applied to the items, so the SQL fetches limit + offset rows.
    compiled = compile(
        text,
        paths=paths,
        limit=None if limit is None else limit + offset,
        search_builder=search_builder,
    )
    with deadline.limit(seconds):
        items = list(results.build(compiled, execute(conn, compiled, seconds)))
    return items[offset:] if offset else items
