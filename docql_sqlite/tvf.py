"""`docql(query[, glob])`: DocQL as a table-valued SQL function, for clients that host Python.

    SELECT path, line, title FROM docql('$.toc[?(@.level==1)]');
    SELECT d.path, count(*) FROM docql('$.content.grep("WAL")') d GROUP BY d.path;
    SELECT json_extract(item, '$.number') FROM docql('$.content.chapter("1.2")', 'docs/*');

A virtual table has one fixed set of columns, while DocQL items differ by type, so each row
gives the fields most items share (NULL where an item lacks them) plus `item`, the whole
item as JSON text (for a projection such as `$.toc.title`, the projected value as JSON).
`title` is the item's title, or its name (entities, symbols, files, structure) or its
section (chunks). Rows come in the query's own order.

Like the other Python SQL functions this is a convenience (DESIGN D3): compiled DocQL never
needs it, and a plain `sqlite3` shell does not have it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .errors import DocQLError
from .output import dumps

if TYPE_CHECKING:
    from .index import Index
    from .store import Store

COLUMNS = ["type", "path", "line", "end_line", "title", "location", "score", "item"]
_TITLE_FIELDS = ("title", "name", "section")


def row(item: Any) -> dict[str, Any]:
    """One result item as a row of the `docql` table."""
    if not isinstance(item, dict):
        return {**dict.fromkeys(COLUMNS), "item": dumps(item)}
    title = next((item[f] for f in _TITLE_FIELDS if item.get(f) is not None), None)
    return {
        "type": item.get("type"),
        "path": item.get("path"),
        "line": item.get("line"),
        "end_line": item.get("end_line"),
        "title": title,
        "location": item.get("location"),
        "score": item.get("score"),
        "item": dumps(item),
    }


def register(store: Store, index_factory: Callable[[], Index | None]) -> bool:
    """Register `docql(query[, glob])` on the connection of `store`; False when its engine
    hosts no Python functions in SQL (PostgreSQL: DocQL is `Index.query` there).

    `index_factory()` returns the `Index` that compiles and runs the query (usually the one
    that owns `store`; the query then runs on that same connection, which SQLite allows
    while the outer statement is stepping). `glob` is one `--path` glob, or NULL.
    """

    # The parameters become the table's hidden columns `query` and `glob` (a parameter may
    # not share a name with a column, hence not `path`).
    def docql(query: str, glob: str | None = None) -> Iterator[dict[str, Any]]:
        if not isinstance(query, str):
            raise DocQLError("docql() needs a DocQL query string, e.g. docql('$.toc')")
        index = index_factory()
        if index is None:
            raise DocQLError("docql(): the index this connection belonged to is closed")
        for item in index.query(query, path=glob):
            yield row(item)

    return store.register_table_function("docql", COLUMNS, docql)


__all__ = ["COLUMNS", "register", "row"]
