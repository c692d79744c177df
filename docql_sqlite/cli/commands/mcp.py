"""`docql-sqlite mcp DB`: the MCP server for agents (docs/mcp.md).

The `mcp` SDK is imported only when this command runs, so the other commands start as
fast as before.
"""

from __future__ import annotations

import os

import click

from ... import IngestOptions, UsageError, is_url, settings
from ..click_options import database_argument
from ..console import handle_errors


@click.command("mcp", short_help="Serve DATABASE to AI agents over MCP (stdio or HTTP), read only.")
@database_argument
@click.option(
    "--http",
    "bind",
    metavar="[HOST:]PORT",
    default=None,
    help="Serve Streamable HTTP at http://HOST:PORT/mcp (HOST defaults to 127.0.0.1) "
    "instead of stdio",
)
@click.option(
    "--token",
    default=None,
    help="With --http: require 'Authorization: Bearer TOKEN' (or set DOCQL_MCP_TOKEN)",
)
@click.option(
    "--watch",
    "watch_paths",
    multiple=True,
    metavar="PATH",
    help="Keep the index current with PATH while serving (repeatable)",
)
@click.option(
    "--include", multiple=True, metavar="GLOB", help="With --watch: only index files like this"
)
@click.option("--exclude", multiple=True, metavar="GLOB", help="With --watch: skip files like this")
@handle_errors
def mcp_command(
    database: str,
    bind: str | None,
    token: str | None,
    watch_paths: tuple[str, ...],
    include: tuple[str, ...],
    exclude: tuple[str, ...],
) -> None:
    """Serve DATABASE to agents over MCP (stdio by default), read only."""
    if token is not None and bind is None:
        raise UsageError("--token applies to --http only (stdio has no network to guard)")
    if bind is not None and token is None:
        token = settings.mcp_token()
    if watch_paths and is_url(database):
        raise UsageError(
            "--watch keeps a file current; index into PostgreSQL with: "
            f"docql-sqlite index {database} PATH"
        )
    if not watch_paths and not is_url(database) and not os.path.exists(database):
        raise UsageError(
            f"no index at '{database}'; build one with: docql-sqlite index {database} PATH"
        )
    # One BLAS thread (unless the user chose): the in-memory nearest search is one
    # matrix-vector product per call, and OpenBLAS's pool spent twice the CPU on it
    # (9.3 vs 4.7 ms) for no gain in wall time on a busy machine. Set before numpy loads.
    settings.set_for_library(settings.OPENBLAS_NUM_THREADS)
    try:
        from ...agent.run import serve
    except ImportError as exc:
        raise UsageError(
            f"the MCP server needs the mcp package ({exc}): pip install 'docql-sqlite[mcp]'"
        ) from None
    if (include or exclude) and not watch_paths:
        raise UsageError("--include and --exclude apply to --watch only")
    watch_options = IngestOptions(include=include, exclude=exclude)
    serve(database, bind=bind, token=token, watch_paths=watch_paths, watch_options=watch_options)
