"""The DocQL pages: `/-/docql` (or `/{database}/-/docql`) and the view of a location's lines.

Every page asks Datasette's permissions first (`permissions.py`): a database's pages need
`view-database` and `view-table` on each of its tables, a DocQL query also `execute-sql`;
`/-/docql` only ever shows and names the databases the actor may read.

Everything a visitor types goes to the `Index` facade as data (DocQL text, search text, a
location) and comes back through Jinja's autoescaping; nothing is read from the file
system — a location's lines come from the index (`Index.get`), never from the document's
file, so `../` or absolute paths can only name indexed documents.
"""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass
from typing import Any

from datasette import Forbidden, Response
from datasette.utils import tilde_decode

from .. import Index
from ..dbapi import VEC_VERSION
from ..errors import DocQLError, QueryError
from . import permissions
from .state import IndexHandle, NotAnIndex, handle_for, index_databases, state_of

# Rows a DocQL query shows. The compiled SQL carries the same LIMIT, so Datasette's SQL
# editor (which returns at most 1,000 rows by default) shows the same rows.
DEFAULT_ROWS = 100
MAX_ROWS = 1000
DEFAULT_HITS = 10
MAX_HITS = 100
# Lines the location view shows at once; a longer range gets a link to the next lines.
MAX_LINES = 2000
# Characters of one cell; the whole value is one click away through its location.
CELL_CHARS = 600
# The CLI's and MCP's default first: smart.
SEARCH_MODES = ("smart", "hybrid", "bm25")
# Longest SQL-editor link offered: uvicorn (h11) refuses a request head over 16 KiB, which a
# query vector of a large model written into the SQL can reach.
MAX_LINK = 12_000

EXAMPLES = [
    ("Top-level headings", "$.toc[?(@.level==1)]"),
    ("Sections about installing", '$.content.heading("install")'),
    ("Chapter 1.2 of every document", '$.content.chapter("1.2")'),
    ("Every class, struct and interface", "$.code.classes"),
    ("Markdown files", '$.files[?(@.extension=="md")]'),
    ("Passages that mention TODO", '$.content.grep("TODO")'),
    ("Titles of the first two levels", "$.toc[?(@.level<=2)].title"),
]


class BadInput(DocQLError):
    """A form value the page cannot use (a limit that is not a number, an unknown mode)."""


@dataclass
class Page:
    """Where a DocQL page is: its database (one the actor may view) and URLs."""

    handle: IndexHandle
    database: str
    database_url: str
    page_url: str
    get_url: str

    def location_url(self, location: str) -> str:
        return self.get_url + "?" + urllib.parse.urlencode({"location": location})


# -- routes ----------------------------------------------------------------------------
async def docql_page(datasette: Any, request: Any) -> Response:
    found = await _find_page(datasette, request)
    if isinstance(found, Response):
        return found
    page = found
    args = request.args
    may_query = await permissions.can_execute_sql(datasette, request.actor, page.database)
    if (args.get("q") or "").strip() and not may_query:
        raise Forbidden(permissions.NO_SQL)
    context: dict[str, Any] = {
        "may_query": may_query,
        "database": page.database,
        "database_url": page.database_url,
        "page_url": page.page_url,
        "examples": [
            (title, query, page.page_url + "?" + urllib.parse.urlencode({"q": query}))
            for title, query in EXAMPLES
        ],
        "q": args.get("q") or "",
        "limit_text": args.get("limit") or "",
        "search": args.get("search") or "",
        "search_limit_text": args.get("search_limit") or "",
        "mode": args.get("mode") or "smart",
        "modes": SEARCH_MODES,
        "notes": [],
        "errors": [],
    }
    context["status"] = await page.handle.call(_status)
    context["vec_sql"] = await _vec_in_sql_editor(datasette, page.database)
    failed = False
    if context["q"].strip():
        failed |= not await _run_query(page, context)
    if context["search"].strip():
        failed |= not await _run_search(page, context)
    body = await datasette.render_template("docql.html", context, request=request)
    return Response.html(body, status=400 if failed else 200)


async def docql_get_page(datasette: Any, request: Any) -> Response:
    found = await _find_page(datasette, request)
    if isinstance(found, Response):
        return found
    page = found
    location = request.args.get("location") or ""
    context: dict[str, Any] = {
        "database": page.database,
        "database_url": page.database_url,
        "page_url": page.page_url,
        "location": location,
        "error": None,
    }
    if not location.strip():
        context["error"] = "give a location, e.g. ?location=docs/guide.md:10-20"
        status = 400
    else:
        try:
            excerpt = await page.handle.call(lambda index: index.get(location))
        except DocQLError as exc:
            context["error"] = exc.message
            status = 404
        else:
            status = 200
            lines = excerpt.lines[:MAX_LINES]
            total = excerpt.total_lines
            context.update(
                path=excerpt.path,
                shown=excerpt.location,
                first=excerpt.first,
                last=excerpt.last,
                total_lines=excerpt.total_lines,
                page_number=excerpt.page,
                lines=lines,
                context_url=page.location_url(_in_context(excerpt.path, excerpt.first, total))
                + f"#L{excerpt.first}",
                more_url=(
                    page.location_url(f"{excerpt.path}:{lines[-1][0] + 1}:{MAX_LINES}")
                    if len(excerpt.lines) > MAX_LINES
                    else None
                ),
            )
    body = await datasette.render_template("docql_get.html", context, request=request)
    return Response.html(body, status=status)


# -- finding the database --------------------------------------------------------------
async def _find_page(datasette: Any, request: Any) -> Page | Response:
    """The page's database, or the response that says why there is none (or a chooser).
    Raises `Forbidden` (Datasette's 403) when the actor may not view it."""
    actor = request.actor
    route = request.url_vars.get("database")
    if route is not None:
        try:
            database = datasette.get_database(route=tilde_decode(route))
        except KeyError:
            return await _message(datasette, request, f"no database '{route}' is served", 404)
        # Before the file is opened: its name or what it holds says nothing to others.
        await permissions.ensure_read_index(datasette, actor, database.name)
    else:
        await permissions.ensure_view_instance(datasette, actor)
        indexes = await index_databases(datasette)
        visible = await visible_databases(datasette, actor, indexes)
        if indexes and not visible:
            # Indexes are served, none to this actor: a 403 that names none of them.
            raise Forbidden("You do not have permission to view any docql-sqlite index here")
        if len(visible) != 1:
            return await _choose(datasette, request, visible)
        database = visible[0]
    try:
        handle = await handle_for(datasette, database)
    except NotAnIndex as exc:
        return await _message(datasette, request, exc.message, 404)
    database_url = datasette.urls.database(database.name)
    return Page(
        handle,
        database.name,
        database_url,
        database_url + "/-/docql",
        database_url + "/-/docql/get",
    )


async def visible_databases(datasette: Any, actor: Any, databases: list[Any]) -> list[Any]:
    """The `databases` whose index the actor may read (the database and each of its
    tables), in their order."""
    return [
        database
        for database in databases
        if await permissions.can_read_index(datasette, actor, database.name)
    ]


async def _choose(datasette: Any, request: Any, indexes: list[Any]) -> Response:
    query = request.query_string
    choices = [
        (
            database.name,
            datasette.urls.database(database.name) + "/-/docql" + (f"?{query}" if query else ""),
        )
        for database in indexes
    ]
    body = await datasette.render_template(
        "docql_choose.html", {"choices": choices}, request=request
    )
    return Response.html(body, status=200 if choices else 404)


async def _message(datasette: Any, request: Any, message: str, status: int) -> Response:
    body = await datasette.render_template(
        "docql_choose.html", {"choices": [], "message": message}, request=request
    )
    return Response.html(body, status=status)


# -- the parts of the page -------------------------------------------------------------
def _status(index: Index) -> dict[str, Any]:
    status = index.status()
    return {
        "documents": status.get("documents", 0),
        "has_vectors": index.has_vectors,
        "embedding_model": status.get("embedding_model"),
    }


async def _vec_in_sql_editor(datasette: Any, name: str) -> dict[str, Any]:
    """Whether `vec_version()` works in Datasette's own SQL (and why not, when it does not)."""
    database = datasette.get_database(name)
    try:
        row = (await database.execute(VEC_VERSION)).first()
        return {"loaded": True, "version": row[0], "reason": None}
    except Exception as exc:  # Datasette's QueryInterrupted / the driver's OperationalError
        status = state_of(datasette).vec.get(name)
        reason = status.reason if status is not None and status.reason else str(exc)
        return {"loaded": False, "version": None, "reason": reason}


async def _run_query(page: Page, context: dict[str, Any]) -> bool:
    query = context["q"]
    try:
        limit, capped = _limit(context["limit_text"], DEFAULT_ROWS, MAX_ROWS)

        def run(index: Index) -> tuple[list[Any], str]:
            result = index.query(query, limit=limit)
            return list(result), result.compiled.inline_sql()

        items, sql = await page.handle.call(run)
    except QueryError as exc:
        context["query_error"] = str(exc)
        return False
    except DocQLError as exc:
        context["query_error"] = f"error: {exc.message}"
        return False
    if capped:
        context["notes"].append(f"at most {MAX_ROWS} rows are shown; the limit was lowered")
    columns, rows = _table(items, page)
    link = page.database_url + "?" + urllib.parse.urlencode({"sql": sql})
    editor_url = link if len(link) <= MAX_LINK else None
    if editor_url is None:
        context["notes"].append(
            f"the compiled SQL is {len(sql):,} characters, too long for a link to the SQL "
            "editor; copy it from the Compiled SQL box"
        )
    context.update(
        results={"columns": columns, "rows": rows, "count": len(items), "limit": limit},
        compiled_sql=sql,
        editor_url=editor_url,
        query_url=page.page_url + "?" + urllib.parse.urlencode({"q": query}),
    )
    return True


async def _run_search(page: Page, context: dict[str, Any]) -> bool:
    text, mode = context["search"], context["mode"]
    try:
        if mode not in SEARCH_MODES:
            raise BadInput(f"unknown search mode '{mode}'; modes: {', '.join(SEARCH_MODES)}")
        limit, capped = _limit(context["search_limit_text"], DEFAULT_HITS, MAX_HITS)
        hits = await page.handle.call(
            lambda index: index.search(text, mode=mode, limit=limit, content=False)
        )
    except DocQLError as exc:
        context["search_error"] = f"error: {exc.message}"
        return False
    if mode == "hybrid" and not context["status"]["has_vectors"]:
        context["notes"].append(
            "this index has no vectors, so hybrid search ranked by BM25 alone; "
            "add them with: docql-sqlite embed DB --model MODEL"
        )
    context["hits"] = [
        {
            "location": hit["location"],
            "href": page.location_url(hit["location"]),
            "section": " ".join(str(x) for x in (hit.get("number"), hit.get("section")) if x),
            "score": hit.get("score"),
            "snippet": _marked(hit.get("snippet") or ""),
        }
        for hit in hits
    ]
    return True


def _in_context(path: str, first: int, total: int) -> str:
    """The whole document when it fits on one page, else a page of lines around `first`."""
    if total <= MAX_LINES:
        return path
    return f"{path}:{max(1, first - 20)}:{MAX_LINES}"


def _limit(text: str, default: int, most: int) -> tuple[int, bool]:
    """A row limit from the form: (limit, whether it was lowered to `most`)."""
    if not text.strip():
        return default, False
    try:
        value = int(text.strip())
    except ValueError:
        raise BadInput(f"the limit must be a whole number, got '{text[:40]}'") from None
    if value < 1:
        raise BadInput(f"the limit must be at least 1, got {value}")
    return (most, True) if value > most else (value, False)


def _table(items: list[Any], page: Page) -> tuple[list[str], list[list[dict[str, Any]]]]:
    """Column names (the union of the items' keys, in order, with the linked column first)
    and rows of cells."""
    if items and not all(isinstance(item, dict) for item in items):
        return ["value"], [[_cell("value", item, page)] for item in items]
    columns: dict[str, None] = {}
    for item in items:
        columns.update(dict.fromkeys(item))
    # The link to the lines goes first: after a long passage it would be out of sight.
    for first in ("path", "location"):  # a file's path, then (first of all) a location
        if first in columns and any(_linked_column(item) == first for item in items):
            columns = {first: None, **columns}
    rows = [
        [_cell(name, item.get(name), page, _linked_column(item)) for name in columns]
        for item in items
    ]
    return list(columns), rows


def _linked_column(item: dict[str, Any]) -> str | None:
    """The column that links to the item's lines: its location, or the path of a file."""
    if "location" in item:
        return "location"
    if item.get("type") == "file" or item.get("kind") == "file":
        return "path"
    return None


def _cell(column: str, value: Any, page: Page, linked: str | None = "location") -> dict[str, Any]:
    if value is None:
        text = ""
    elif isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = str(value)
    href = page.location_url(text) if column == linked and text else None
    if len(text) > CELL_CHARS:
        text = text[:CELL_CHARS] + "…"
    return {"text": text, "href": href}


def _marked(snippet: str) -> list[dict[str, Any]]:
    """A snippet's parts, with the `**words**` search marked as `mark` (escaped by Jinja)."""
    return [
        {"text": part, "mark": i % 2 == 1} for i, part in enumerate(snippet.split("**")) if part
    ]
