"""Every cap and deadline of the MCP server, in one place (docs/mcp.md, "Denial of service").

An argument is checked against its cap before any work is done, twice: the tool's input
schema carries the cap (`maxLength`, `maxItems`), so a client sees it and the SDK refuses
a longer value, and `check_text` refuses it again in `Tools` (a caller of the Python API,
or a schema check that was bypassed). The errors name the argument and its cap.
"""

from __future__ import annotations

from .. import UsageError, deadline, settings

# Arguments (characters). A DocQL query, a search or a question is a few hundred
# characters; the caps leave room for a typed search document with a long `hyde:` line.
MAX_QUERY_CHARS = 4_000  # docql_query.query, search.query, context.question
MAX_INTENT_CHARS = 1_000  # search.intent
MAX_PATH_CHARS = 4_096  # get.path, toc.path (PATH_MAX on Linux)
MAX_GLOB_CHARS = 1_024  # get.path when it is a glob; each of search.paths
MAX_PATHS = 32  # search.paths
# Results per call and where to start (larger values are refused by the schema).
MAX_QUERY_LIMIT = 10_000
MAX_SEARCH_LIMIT = 100
MAX_OFFSET = 1_000_000

# Replies (characters of the final text, header and "call again" line included).
CHAR_CAP = 20_000
# A resource (a whole document, read by the client application rather than by the model):
# ~250,000 tokens, more than a context window holds. A longer document is cut on a line
# boundary and says where the rest is; before, a 20 MB document came back whole (and six
# clients reading it held `status` for ~1 s and the server at 750 MB).
RESOURCE_CHAR_CAP = 1_000_000

# HTTP transport.
MAX_BODY_BYTES = 1 << 20  # one JSON-RPC request; larger bodies get 413 before parsing
MAX_CONNECTIONS = 256  # open connections at once; more are closed as they arrive

# Worker threads (each with its own read-only connection).
# Pages each search connection (a heavy reader and its sidecar) keeps in its own cache
# (`Store.hold_pages`): a mapped page is checked anew at every access. 8, 16 and 32 MB
# cost the same CPU on the 10 MB mix (~15 ms a smart search, 400 searches).
SEARCH_PAGES_KIB = 16 << 10
QUICK_WORKERS = 2  # status, get of one location, toc of one document
HEAVY_PER_CLIENT = 2  # a session's heavy calls running or waiting for a worker at once

# The settings a deployment may change (docs/settings.md): their variables' names.
WORKERS_ENV = settings.MCP_WORKERS.name  # heavy workers: docql_query, search, context, ...
HEADER_ENV = settings.MCP_HEADER_TIMEOUT.name  # seconds to send request headers


def call_seconds() -> float:
    """The per-call deadline: $DOCQL_QUERY_TIMEOUT or 5 s, as for a query; a server keeps
    one even when the variable says "none" (a call without end would hold a worker)."""
    return settings.query_timeout() or deadline.DEFAULT_SECONDS


def heavy_workers() -> int:
    """Threads for heavy calls (docql_query, search, context, glob get, toc of everything)."""
    return settings.mcp_workers()


def header_seconds() -> float:
    """Seconds an HTTP connection has to send its request headers."""
    return settings.mcp_header_timeout()


class ArgumentTooLarge(UsageError):
    """An argument over its cap: refused before any work."""


def check_text(name: str, value: str | None, cap: int) -> None:
    if value is not None and len(value) > cap:
        raise ArgumentTooLarge(
            f"argument '{name}' is {len(value):,} characters; the cap is {cap:,} "
            "(MCP server limit): shorten it"
        )


def check_list(name: str, values: list[str] | None, cap: int, item_cap: int) -> None:
    if values is None:
        return
    if len(values) > cap:
        raise ArgumentTooLarge(
            f"argument '{name}' has {len(values):,} items; the cap is {cap:,} (MCP server limit)"
        )
    for value in values:
        check_text(f"{name}[]", value, item_cap)
