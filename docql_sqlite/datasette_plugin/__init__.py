"""The Datasette plugin (entry point group `datasette`; `pip install 'docql-sqlite[datasette]'`).

- `prepare_connection`: our SQL functions and sqlite-vec on every Datasette connection
  (`docql_sqlite.dbapi`); where sqlite-vec cannot load, the reason is kept for the DocQL page.
- `register_routes`: the DocQL page (`/-/docql`, `/{database}/-/docql`) and the view of a
  location's lines (`.../-/docql/get?location=...`), in `pages.py`.
- `canned_queries`: outline of a document, classes of a path, ingest errors
  (`docql_sqlite.canned_queries`), on databases that are docql-sqlite indexes. Datasette
  1.0a41 dropped that hook for stored queries: there `startup` stores the same queries.
- `register_commands`: `datasette docql DB QUERY`, which runs
  `docql-sqlite query DB QUERY` (same flags, output and exit codes; `command.py`).
- `menu_links` / `database_actions`: links to the DocQL page, shown only to an actor who
  may open it.
- `permission_allowed`: the canned queries only for an actor who may view every table of
  the index (they read them).

Every page, link and action asks Datasette's permissions (`permissions.py`).

Templates live in `templates/`, which Datasette finds inside the plugin's package.
"""

from __future__ import annotations

from typing import Any

from datasette import hookimpl

from .. import canned_queries as docql_canned_queries
from .. import dbapi
from . import pages, permissions
from .command import docql_command
from .state import NotAnIndex, handle_for, index_databases, state_of


@hookimpl
def prepare_connection(conn: Any, database: str, datasette: Any) -> None:
    state_of(datasette).vec[database] = dbapi.prepare_connection(conn)


@hookimpl
def register_routes(datasette: Any) -> list[tuple[str, Any]]:
    return [
        (r"^/-/docql$", pages.docql_page),
        (r"^/-/docql/get$", pages.docql_get_page),
        (r"^/(?P<database>[^/]+)/-/docql$", pages.docql_page),
        (r"^/(?P<database>[^/]+)/-/docql/get$", pages.docql_get_page),
    ]


@hookimpl
def canned_queries(datasette: Any, database: str, actor: Any) -> Any:
    async def for_indexes() -> dict[str, Any]:
        served = datasette.databases.get(database)
        if served is None:
            return {}
        try:
            await handle_for(datasette, served)
        except NotAnIndex:
            return {}
        return docql_canned_queries()

    return for_indexes


@hookimpl(optionalhook=True)  # Datasette 1.0a20 replaced this hook
def permission_allowed(datasette: Any, actor: Any, action: str, resource: Any) -> Any:
    """Our canned queries read the index's tables: an actor who may not view one of them
    (an `allow` block on `sections` hides the outline too) may not view the queries.
    Datasette 0.65 asks `view-query` with (database, query); the plugin says no or
    nothing, never yes, so the other rules keep deciding."""
    if action != "view-query" or not isinstance(resource, (tuple, list)) or len(resource) != 2:
        return None
    database, query = resource
    if query not in docql_canned_queries() or database not in datasette.databases:
        return None

    async def decide() -> bool | None:
        return None if await permissions.can_read_index(datasette, actor, database) else False

    return decide


@hookimpl
def startup(datasette: Any) -> Any:
    async def store_queries() -> None:
        if not hasattr(datasette, "add_query"):  # Datasette 0.65: `canned_queries` above
            return
        for database in await index_databases(datasette):
            for name, query in docql_canned_queries().items():
                await datasette.add_query(
                    database.name,
                    name,
                    query["sql"],
                    title=query["title"],
                    description=query["description"],
                    source="docql-sqlite",
                    # Fixed SQL from this package, as a canned query of 0.65's config is:
                    # runs for whoever may view it, without execute-sql.
                    is_trusted=True,
                )

    return store_queries


@hookimpl
def register_commands(cli: Any) -> None:
    cli.add_command(docql_command, name="docql")


@hookimpl
def menu_links(datasette: Any, actor: Any, request: Any) -> Any:
    async def links() -> list[dict[str, str]]:
        if not await permissions.can_view_instance(datasette, actor):
            return []
        indexes = await index_databases(datasette)
        if not await pages.visible_databases(datasette, actor, indexes):
            return []
        return [{"href": datasette.urls.path("/-/docql"), "label": "DocQL"}]

    return links


@hookimpl
def database_actions(datasette: Any, actor: Any, database: str, request: Any) -> Any:
    async def links() -> list[dict[str, str]]:
        served = datasette.databases.get(database)
        if served is None or not await permissions.can_read_index(datasette, actor, database):
            return []
        try:
            await handle_for(datasette, served)
        except NotAnIndex:
            return []
        may_query = await permissions.can_execute_sql(datasette, actor, database)
        label = "Query with DocQL" if may_query else "Search with DocQL"
        return [{"href": datasette.urls.database(database) + "/-/docql", "label": label}]

    return links
