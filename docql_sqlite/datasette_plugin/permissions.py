"""Who may see what the plugin serves, asked of Datasette's own permission system.

The DocQL pages show a database's indexed text, so they follow the rules of that
database's own page, and a DocQL query compiles to SQL and runs it, so it also needs
`execute-sql`, as Datasette's `?sql=` does:

| what                                            | needs                               |
|-------------------------------------------------|-------------------------------------|
| `/-/docql` (the chooser, the "DocQL" menu link) | `view-instance`                     |
| a database's DocQL page, its search, its lines  | `view-database` on that database,   |
|                                                 | `view-table` on each of its tables  |
| a DocQL query (`?q=`), its compiled SQL         | the above and `execute-sql`         |

Why every table: the pages read an index's tables as a whole through the `Index` facade
(a search hit is a row of `chunks`, a location's lines come from `documents`), so a
table an `allow` block hides from the actor would show through them. When the actor may
not view one table or view of the index, its DocQL pages are refused (fail closed), as
are the canned queries the plugin adds.

Datasette changed its permission API in 1.0a20: `datasette.allowed(action=, resource=,
actor=)` with resource objects replaced `permission_allowed` / `ensure_permissions`.
Both are supported here, each asked the way that version's own database page asks, so a
DocQL page is visible to exactly those who can open the database in Datasette:

- 1.0a20 and later: `allowed(action="view-database", resource=DatabaseResource(name))`
  (the instance's `allow` block already applies to every database there).
- 0.65 (and 1.0 alphas before a20): the cascade `[("view-database", name),
  "view-instance"]` of `ensure_permissions`: the first check that decides wins.
"""

from __future__ import annotations

from typing import Any

from datasette import Forbidden


def _new_api(datasette: Any) -> bool:
    return hasattr(datasette, "allowed")


def _database_resource(name: str) -> Any:
    from datasette.resources import DatabaseResource  # Datasette 1.0a20 and later only

    return DatabaseResource(database=name)


def _table_resource(database: str, table: str) -> Any:
    from datasette.resources import TableResource  # Datasette 1.0a20 and later only

    return TableResource(database=database, table=table)


async def _cascade(datasette: Any, actor: Any, permissions: list[Any]) -> bool:
    """Datasette 0.65's `ensure_permissions`, as a yes or no."""
    try:
        await datasette.ensure_permissions(actor, permissions)
    except Forbidden:
        return False
    return True


async def can_view_instance(datasette: Any, actor: Any) -> bool:
    if _new_api(datasette):
        return bool(await datasette.allowed(action="view-instance", actor=actor))
    return await _cascade(datasette, actor, ["view-instance"])


async def can_view_database(datasette: Any, actor: Any, database: str) -> bool:
    if _new_api(datasette):
        return bool(
            await datasette.allowed(
                action="view-database", resource=_database_resource(database), actor=actor
            )
        )
    return await _cascade(datasette, actor, [("view-database", database), "view-instance"])


async def can_view_table(datasette: Any, actor: Any, database: str, table: str) -> bool:
    """`view-table`, asked as that version's own table page asks it (tables and views)."""
    if _new_api(datasette):
        return bool(
            await datasette.allowed(
                action="view-table", resource=_table_resource(database, table), actor=actor
            )
        )
    return await _cascade(
        datasette,
        actor,
        [("view-table", (database, table)), ("view-database", database), "view-instance"],
    )


async def can_read_index(datasette: Any, actor: Any, database: str) -> bool:
    """What the DocQL pages of `database` need: `view-database`, and `view-table` on every
    table and view of it (hidden ones included), since the pages read them all."""
    if not await can_view_database(datasette, actor, database):
        return False
    served = datasette.get_database(database)
    names = [*await served.table_names(), *await served.view_names()]
    for table in names:
        if not await can_view_table(datasette, actor, database, table):
            return False
    return True


async def can_execute_sql(datasette: Any, actor: Any, database: str) -> bool:
    """`execute-sql` on `database`, for an actor who may read its index (checked too)."""
    if not await can_read_index(datasette, actor, database):
        return False
    if _new_api(datasette):
        return bool(
            await datasette.allowed(
                action="execute-sql", resource=_database_resource(database), actor=actor
            )
        )
    # Datasette 0.65's own SQL pages ask exactly this (allow_sql blocks, default_allow_sql).
    return bool(
        await datasette.permission_allowed(actor, "execute-sql", resource=database, default=True)
    )


async def ensure_view_instance(datasette: Any, actor: Any) -> None:
    if not await can_view_instance(datasette, actor):
        raise Forbidden("You do not have permission to view this Datasette instance")


async def ensure_read_index(datasette: Any, actor: Any, database: str) -> None:
    if not await can_view_database(datasette, actor, database):
        raise Forbidden("You do not have permission to view this database")
    if not await can_read_index(datasette, actor, database):
        raise Forbidden(
            "You do not have permission to view every table of this database, and the "
            "DocQL pages read them all"
        )


NO_SQL = (
    "You do not have permission to execute SQL on this database, and a DocQL query runs "
    "SQL; search and the location view need only permission to view it"
)
