"""Who may see what the plugin serves, asked of Datasette's own permission system.

The DocQL pages show a database's indexed text, so they follow the rules of that
database's own page, and a DocQL query compiles to SQL and runs it, so it also needs
`execute-sql`, as Datasette's `?sql=` does:

| what                                            | needs                               |
|-------------------------------------------------|-------------------------------------|
| `/-/docql` (the chooser, the "DocQL" menu link) | `view-instance`                     |
| a database's DocQL page, its search, its lines  | `view-database` on that database    |
| a DocQL query (`?q=`), its compiled SQL         | `view-database` and `execute-sql`   |

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


async def can_execute_sql(datasette: Any, actor: Any, database: str) -> bool:
    """`execute-sql` on `database`, for an actor who may view it (checked too)."""
    if not await can_view_database(datasette, actor, database):
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


async def ensure_view_database(datasette: Any, actor: Any, database: str) -> None:
    if not await can_view_database(datasette, actor, database):
        raise Forbidden("You do not have permission to view this database")


NO_SQL = (
    "You do not have permission to execute SQL on this database, and a DocQL query runs "
    "SQL; search and the location view need only permission to view it"
)
