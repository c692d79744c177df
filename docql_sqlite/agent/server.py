"""The MCP server: the six tools, documents as `docql://{path}` resources and the DocQL
guide as a prompt, on the official `mcp` SDK (`MCPServer`).

Tool schemas come from the signatures below (types, bounds, descriptions); the bodies
are `tools.Tools` methods, so everything the model can do goes through the read-only
`Index` front door.

`docql_query`, `get`, `toc` and `status` are `async def`: the SDK then calls them on the
event loop instead of handing each call to a worker thread and back, which cost about a
millisecond of CPU a call (a third of the server's own work for a small query,
docs/mcp.md). They are index look-ups of a few milliseconds, and `Tools` runs one call
at a time anyway (its lock), so the loop loses nothing it could have done meanwhile.
`search` and `context` stay on worker threads: they embed the question and fuse several
lists (tens of milliseconds), and the loop keeps answering `/health` and new sessions.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import quote

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.resources.templates import ResourceSecurity
from mcp.types import (
    CallToolResult,
    ListResourcesResult,
    PaginatedRequestParams,
    Resource,
    TextContent,
    ToolAnnotations,
)
from pydantic import Field

from ..errors import DocQLError
from ..version import __version__
from . import guide
from .tools import MAX_BUDGET, MAX_MAP_BUDGET, MAX_QUERY_LIMIT, MAX_SEARCH_LIMIT, Reply, Tools

RESOURCE_PAGE = 100  # documents per resources/list page
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def document_uri(path: str) -> str:
    return "docql://" + quote(path, safe="/")


class DocQLServer(MCPServer[Any]):
    """MCPServer with a paged document list (the SDK's own list is one page)."""

    tools: Tools

    async def _handle_list_resources(
        self, ctx: Any, params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        cursor = params.cursor if params is not None else None
        start = int(cursor) if cursor and cursor.isdigit() else 0
        docs = self.tools.documents()
        page = docs[start : start + RESOURCE_PAGE]
        resources = [
            Resource(
                uri=document_uri(d["path"]),
                name=d["path"],
                description=f"{d['format']} document, {d['lines']} lines",
                mime_type="text/plain",
                size=d["size"],
            )
            for d in page
        ]
        following = start + RESOURCE_PAGE
        return ListResourcesResult(
            resources=resources, next_cursor=str(following) if following < len(docs) else None
        )


def result(reply: Reply) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=reply.text)], is_error=reply.is_error
    )


def by_alias(**aliases: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The SDK calls a tool with aliased arguments under their alias (`from`, a Python
    keyword); hand them to the function under its parameter names."""
    names = {alias: name for name, alias in aliases.items()}

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)  # keeps the signature the schema is made from
        async def call(**arguments: Any) -> Any:
            return await fn(**{names.get(k, k): v for k, v in arguments.items()})

        return call

    return decorate


def build(tools: Tools) -> DocQLServer:
    """The server for one index (`tools` holds its read-only connection)."""
    figures, has_vectors = tools.instructions_figures()
    app = DocQLServer(
        "docql-sqlite",
        instructions=guide.instructions(figures, has_vectors),
        version=__version__,
        log_level="WARNING",
    )
    app.tools = tools

    @app.tool(name="docql_query", annotations=READ_ONLY)
    async def docql_query(
        query: Annotated[
            str, Field(description='DocQL text, e.g. $.toc[?(@.level<=2)] or $.code.class("X")')
        ],
        limit: Annotated[
            int | None, Field(ge=0, le=MAX_QUERY_LIMIT, description="Keep at most this many")
        ] = None,
        offset: Annotated[int, Field(ge=0, description="Skip this many results first")] = 0,
    ) -> CallToolResult:
        """Run a DocQL query (JSONPath-like; see the server instructions) and get its
        results as JSON lines, each with a location that `get` reads."""
        return result(tools.docql_query(query, limit, offset))

    @app.tool(name="search", annotations=READ_ONLY)
    def search(
        query: Annotated[
            str,
            Field(
                description="Plain words or a question in any language, or a typed query "
                "document: lines 'lex: words \"phrase\" -not', 'vec: question', 'hyde: an "
                "answer', 'intent: what it is for'"
            ),
        ],
        mode: Annotated[
            str,
            Field(
                description="smart (default), bm25, vector or hybrid",
                json_schema_extra={"enum": ["smart", "bm25", "vector", "hybrid"]},
            ),
        ] = "smart",
        limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_LIMIT)] = 10,
        paths: Annotated[
            list[str] | None, Field(description="Only documents matching these globs")
        ] = None,
        intent: Annotated[
            str | None, Field(description="What the search is for (steers snippets)")
        ] = None,
        offset: Annotated[int, Field(ge=0, le=MAX_SEARCH_LIMIT)] = 0,
    ) -> CallToolResult:
        """Ranked passages for a free-text question, each labelled with its location."""
        return result(tools.search(query, mode, limit, paths, intent, offset))

    @app.tool(name="get", annotations=READ_ONLY)
    @by_alias(from_="from")
    async def get(
        path: Annotated[
            str,
            Field(
                description="A location as results print it (path, path:12, path:12-40, "
                "path:page 3), or a glob such as docs/**/*.md for several documents"
            ),
        ],
        from_: Annotated[
            int | None, Field(alias="from", ge=1, description="First line (1-based)")
        ] = None,
        count: Annotated[int | None, Field(ge=1, description="Number of lines")] = None,
    ) -> CallToolResult:
        """Lines of an indexed document, read from the index (never from disk)."""
        return result(tools.get(path, from_, count))

    @app.tool(name="toc", annotations=READ_ONLY)
    async def toc(
        path: Annotated[
            str | None, Field(description="A document (default: every document)")
        ] = None,
        offset: Annotated[int, Field(ge=0)] = 0,
    ) -> CallToolResult:
        """The outline of a document: numbered headings with their line ranges."""
        return result(tools.toc(path, offset))

    @app.tool(name="context", annotations=READ_ONLY)
    def context(
        question: Annotated[str, Field(description="The question to answer")],
        budget: Annotated[
            int, Field(ge=1, description=f"Characters of context (at most {MAX_BUDGET})")
        ] = 12_000,
    ) -> CallToolResult:
        """A context pack for answering `question`: the best passages within `budget`
        characters, each labelled with its location."""
        return result(tools.context(question, budget))

    @app.tool(name="repo_map", annotations=READ_ONLY)
    def repo_map(
        paths: Annotated[
            list[str] | None, Field(description="Directories or globs to map (default: all)")
        ] = None,
        budget: Annotated[
            int, Field(ge=1, description=f"Tokens of map (at most {MAX_MAP_BUDGET})")
        ] = 1024,
        focus: Annotated[
            str | None, Field(description="A symbol name or file to centre the map on")
        ] = None,
    ) -> CallToolResult:
        """The repository map: the most central files and symbols of the indexed code
        (ranked by how the code references them), each with its signature and line."""
        return result(tools.repo_map(paths, budget, focus))

    @app.tool(name="status", annotations=READ_ONLY)
    async def status() -> CallToolResult:
        """What the index holds: documents by format, code languages, vectors, errors."""
        return result(tools.status())

    @app.resource(
        "docql://{+path}",
        name="document",
        description="The text of an indexed document, as indexed",
        mime_type="text/plain",
        # Documents indexed outside the working directory have absolute paths. Safe to
        # allow: the handler reads the index's own copy of an indexed document, never the
        # filesystem (`..` and NUL stay refused).
        security=ResourceSecurity(reject_absolute_paths=False),
    )
    def document(path: str) -> str:
        try:
            return tools.document(path)
        except DocQLError as exc:  # a clear "not found" for the client, not a crash
            raise ResourceError(exc.message) from None

    @app.prompt(name="docql_guide", description="How to answer questions with these tools")
    def docql_guide(question: str = "") -> str:
        ask = f"\n\nThe question: {question}" if question else ""
        return guide.GUIDE + ask

    return app
