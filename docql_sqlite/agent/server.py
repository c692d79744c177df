"""The MCP server: the seven tools, documents as `docql://{path}` resources and the DocQL
guide as a prompt, on the official `mcp` SDK (`MCPServer`).

Tool schemas come from the signatures below (types, bounds, caps, descriptions), output
schemas from `outputs.py`; the bodies are `tools.Tools` methods, so everything the model
can do goes through the read-only `Index` front door.

Every tool is `async def` and hands its work to `lanes.Lanes`: a worker thread of its
lane (quick or heavy) with its own connection, under the per-call deadline. Nothing runs
on the event loop but the transport, so `/health`, new sessions and quick calls are
answered while slow calls run (docs/mcp.md, "Denial of service"). Handing a call to a
thread costs about a millisecond of CPU; the earlier design ran the small tools on the
loop to save it, and one slow query then held every client.

Adding a tool: a `Tools` method that returns a `Reply` (text and `data`) through
`Tools.call`, an output model in `outputs.py`, and one decorated function in `build`
that hands the method to `run(...)`; `Tools.lane` puts any tool it does not name in the
heavy lane, which is right for anything that runs a query.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import quote

from mcp.server.mcpserver import Context, MCPServer
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

from .. import __version__
from . import guide, limits, outputs
from .lanes import Lanes
from .limits import MAX_QUERY_LIMIT, MAX_SEARCH_LIMIT
from .tools import MAX_BUDGET, MAX_MAP_BUDGET, Reply, Tools

RESOURCE_PAGE = 100  # documents per resources/list page
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def document_uri(path: str) -> str:
    return "docql://" + quote(path, safe="/")


class DocQLServer(MCPServer[Any]):
    """MCPServer with a paged document list (the SDK's own list is one page)."""

    tools: Tools
    lanes: Lanes

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
        content=[TextContent(type="text", text=reply.text)],
        structured_content=None if reply.is_error else reply.data,
        is_error=reply.is_error,
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


def client_of(ctx: Context[Any, Any] | None) -> Any:
    """The calling session (a client), for the per-client limit; None outside a request."""
    try:
        return ctx.session if ctx is not None else None
    except Exception:  # no request context (a direct call)
        return None


QueryText = Annotated[
    str,
    Field(
        max_length=limits.MAX_QUERY_CHARS,
        description='DocQL text, e.g. $.toc[?(@.level<=2)], $.code.methods[?(@.parent=="Vec")]'
        f".signature (at most {limits.MAX_QUERY_CHARS} characters)",
    ),
]


def build(tools: Tools) -> DocQLServer:
    """The server for one index (`tools` holds its read-only connections)."""
    figures, has_vectors = tools.instructions_figures()
    app = DocQLServer(
        "docql-sqlite",
        instructions=guide.instructions(figures, has_vectors),
        version=__version__,
        log_level="WARNING",
    )
    app.tools = tools
    lanes = Lanes(tools)
    app.lanes = lanes

    async def run(
        tool: str, arguments: dict[str, Any], ctx: Any, work: Callable[[float], Reply]
    ) -> CallToolResult:
        return result(await lanes.run(tool, arguments, client_of(ctx), work))

    @app.tool(
        name="docql_query",
        title="DocQL query",
        description=guide.query_tool_description(),
        annotations=READ_ONLY,
    )
    async def docql_query(
        query: QueryText,
        ctx: Context[Any, Any],
        limit: Annotated[
            int | None,
            Field(
                ge=0,
                le=MAX_QUERY_LIMIT,
                description="Keep at most this many (0: count them, show none)",
            ),
        ] = None,
        offset: Annotated[
            int, Field(ge=0, le=limits.MAX_OFFSET, description="Skip this many results first")
        ] = 0,
        bodies: Annotated[
            bool | None,
            Field(
                description="Long text fields (content, source, docstring, …) whole (true) or "
                "as their first line (false); default: whole for a single result, first "
                "lines for a list"
            ),
        ] = None,
    ) -> Annotated[CallToolResult, outputs.QueryOutput]:
        return await run(
            "docql_query",
            {},
            ctx,
            lambda left: tools.docql_query(query, limit, offset, bodies, seconds=left),
        )

    @app.tool(name="search", title="Search passages", annotations=READ_ONLY)
    async def search(
        query: Annotated[
            str,
            Field(
                max_length=limits.MAX_QUERY_CHARS,
                description="Plain words or a question in any language, or a typed query "
                "document: lines 'lex: words \"phrase\" -not', 'vec: question', 'hyde: an "
                f"answer', 'intent: what it is for' (at most {limits.MAX_QUERY_CHARS} "
                "characters)",
            ),
        ],
        ctx: Context[Any, Any],
        mode: Annotated[
            str,
            Field(
                description="smart (default), bm25, vector or hybrid",
                json_schema_extra={"enum": ["smart", "bm25", "vector", "hybrid"]},
            ),
        ] = "smart",
        limit: Annotated[int, Field(ge=1, le=MAX_SEARCH_LIMIT)] = 10,
        paths: Annotated[
            list[Annotated[str, Field(max_length=limits.MAX_GLOB_CHARS)]] | None,
            Field(max_length=limits.MAX_PATHS, description="Only documents matching these globs"),
        ] = None,
        intent: Annotated[
            str | None,
            Field(
                max_length=limits.MAX_INTENT_CHARS,
                description="What the search is for (steers snippets)",
            ),
        ] = None,
        offset: Annotated[int, Field(ge=0, le=MAX_SEARCH_LIMIT)] = 0,
    ) -> Annotated[CallToolResult, outputs.SearchOutput]:
        """Ranked passages for a free-text question, each labelled with its location.
        Names code as written ("Session.merge", "class Session"); "who calls X?" and
        "where is X used?" give the passages of X's uses."""
        return await run(
            "search",
            {},
            ctx,
            lambda left: tools.search(query, mode, limit, paths, intent, offset, seconds=left),
        )

    @app.tool(name="get", title="Read lines or documents", annotations=READ_ONLY)
    @by_alias(from_="from")
    async def get(
        path: Annotated[
            str,
            Field(
                max_length=limits.MAX_PATH_CHARS,
                description="A location as results print it (path, path:12, path:12-40, "
                "path:page 3), or a glob such as docs/**/*.md for several documents "
                f"(a glob: at most {limits.MAX_GLOB_CHARS} characters)",
            ),
        ],
        ctx: Context[Any, Any],
        from_: Annotated[
            int | None, Field(alias="from", ge=1, description="First line (1-based)")
        ] = None,
        count: Annotated[int | None, Field(ge=1, description="Number of lines")] = None,
        offset: Annotated[
            int,
            Field(ge=0, le=limits.MAX_OFFSET, description="A glob: skip this many documents"),
        ] = 0,
    ) -> Annotated[CallToolResult, outputs.GetOutput]:
        """Lines of an indexed document, read from the index (never from disk); or, for a
        glob, the matching documents whole, a page at a time."""
        arguments = {"path": path, "from": from_, "count": count}
        return await run(
            "get", arguments, ctx, lambda left: tools.get(path, from_, count, offset, left)
        )

    @app.tool(name="toc", title="Outline", annotations=READ_ONLY)
    async def toc(
        ctx: Context[Any, Any],
        path: Annotated[
            str | None,
            Field(
                max_length=limits.MAX_PATH_CHARS,
                description="A document, or a glob such as docs/**/*.md for several "
                "(default: every document)",
            ),
        ] = None,
        offset: Annotated[int, Field(ge=0, le=limits.MAX_OFFSET)] = 0,
    ) -> Annotated[CallToolResult, outputs.TocOutput]:
        """The outline of a document (or of the documents a glob matches): numbered
        headings with their line ranges."""
        return await run(
            "toc", {"path": path}, ctx, lambda left: tools.toc(path, offset, seconds=left)
        )

    @app.tool(name="context", title="Context pack", annotations=READ_ONLY)
    async def context(
        question: Annotated[
            str,
            Field(
                max_length=limits.MAX_QUERY_CHARS,
                description=f"The question to answer (at most {limits.MAX_QUERY_CHARS} characters)",
            ),
        ],
        ctx: Context[Any, Any],
        budget: Annotated[
            int, Field(ge=1, description=f"Characters of context (at most {MAX_BUDGET})")
        ] = 12_000,
    ) -> Annotated[CallToolResult, outputs.ContextOutput]:
        """A context pack for answering `question`: the best passages within `budget`
        characters, each labelled with its location."""
        return await run(
            "context", {}, ctx, lambda left: tools.context(question, budget, seconds=left)
        )

    @app.tool(name="repo_map", title="Repository map", annotations=READ_ONLY)
    async def repo_map(
        ctx: Context[Any, Any],
        paths: Annotated[
            list[str] | None,
            Field(
                max_length=limits.MAX_PATHS,
                description="Directories or globs to map (default: all)",
            ),
        ] = None,
        budget: Annotated[int, Field(ge=1, le=MAX_MAP_BUDGET, description="Tokens of map")] = 1024,
        focus: Annotated[
            str | None,
            Field(
                max_length=limits.MAX_PATH_CHARS,
                description="A symbol name or file to centre the map on",
            ),
        ] = None,
    ) -> Annotated[CallToolResult, outputs.RepoMapOutput]:
        """The repository map: the most central files and symbols of the indexed code
        (ranked by how the code references them), each with its signature and line."""
        return await run(
            "repo_map", {}, ctx, lambda left: tools.repo_map(paths, budget, focus, seconds=left)
        )

    @app.tool(name="status", title="Index status", annotations=READ_ONLY)
    async def status(ctx: Context[Any, Any]) -> Annotated[CallToolResult, outputs.StatusOutput]:
        """What the index holds: documents by format, code languages, vectors, errors."""
        return await run("status", {}, ctx, lambda left: tools.status(seconds=left))

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
    async def document(path: str, ctx: Context[Any, Any]) -> str:
        # On a worker of the heavy lane (a whole document), under the per-call deadline
        # and the per-client limit: the SDK ran a plain function on its own thread pool,
        # outside all three, and took a quick lane's connection.
        reply = await lanes.run(
            "document", {}, client_of(ctx), lambda left: tools.document(path, left)
        )
        if reply.is_error:  # a clear "not found" for the client, not a crash
            raise ResourceError(reply.text.removeprefix("error: "))
        return reply.text

    @app.prompt(name="docql_guide", description="How to answer questions with these tools")
    def docql_guide(question: str = "") -> str:
        ask = f"\n\nThe question: {question}" if question else ""
        return guide.GUIDE + ask

    return app
