"""Start the MCP server over stdio or Streamable HTTP, with the optional watcher."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable

from .. import (
    DocQLError,
    IngestOptions,
    UsageError,
    __version__,
    index_in_child,
    is_url,
    require_watchfiles,
    settings,
    watch,
)
from . import http, limits, server
from .bind import host_name, parse_bind
from .tools import Tools

Log = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def serve(
    db_path: str,
    bind: str | tuple[str, int] | None = None,
    token: str | None = None,
    watch_paths: tuple[str, ...] = (),
    watch_options: IngestOptions | None = None,
    log: Log = _stderr,
) -> None:
    """Serve `db_path` until stdin closes (stdio) or the process is stopped (HTTP at
    `bind`: "[HOST:]PORT" or a (host, port) pair)."""
    if isinstance(bind, str):
        bind = parse_bind(bind)
    # The settings first (docs/settings.md): a bad value stops the server before any work.
    workers, parallel = limits.heavy_workers(), settings.parallel_search()
    header_seconds = limits.header_seconds()
    # Every run in a child process (`ingest/child.py`): parsing a large
    # file in this one held the request threads up to 0.67 s at a time, with no time
    # limit per file; the child's parser workers have theirs.
    options = watch_options or IngestOptions()
    if watch_paths:
        require_watchfiles()  # before the catch-up run, not after it
        # Catch up with what changed while no server ran (this also creates the index).
        report = index_in_child(db_path, list(watch_paths), options)
        log("watch: " + _summary(report.summary()))
    elif not is_url(db_path) and not os.path.exists(db_path):
        raise UsageError(
            f"no index at '{db_path}'; build one with: docql-sqlite index {db_path} PATH"
        )
    tools = Tools(db_path, heavy_workers=workers, parallel=parallel)
    app = server.build(tools)
    stop = threading.Event()
    if watch_paths:
        _start_watcher(db_path, watch_paths, options, tools, stop, log)
    try:
        if bind is None:
            app.run("stdio")
        else:
            _serve_http(app, tools, bind, token, header_seconds, log)
    finally:
        stop.set()
        tools.close()


def _summary(figures: dict[str, object]) -> str:
    return "indexed {added} added, {updated} updated, {removed} removed, {failed} failed".format(
        **figures
    )


def _start_watcher(
    db_path: str,
    paths: tuple[str, ...],
    options: IngestOptions,
    tools: Tools,
    stop: threading.Event,
    log: Log,
) -> None:
    """The one writer: a thread that re-indexes on file events, then reopens the reader."""

    def reindexed(report: object) -> None:
        tools.reopen()
        log("watch: " + _summary(report.summary()))  # type: ignore[attr-defined]

    def failed(exc: DocQLError) -> None:
        log(f"watch: error: {exc.message}")

    thread = threading.Thread(
        target=watch,
        args=(db_path, list(paths), options),
        kwargs={"on_report": reindexed, "on_error": failed, "stop": stop, "run": index_in_child},
        name="docql-watch",
        daemon=True,
    )
    thread.start()


def _serve_http(
    app: server.DocQLServer,
    tools: Tools,
    bind: tuple[str, int],
    token: str | None,
    header_seconds: float,
    log: Log,
) -> None:
    host, port = bind
    import uvicorn
    from starlette.requests import Request
    from starlette.responses import JSONResponse

    @app.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "server": "docql-sqlite", "version": __version__})

    starlette = app.streamable_http_app(
        transport_security=http.security_settings(host), host=host, json_response=True
    )
    guarded = http.Guard(starlette, host, port, token)
    # Load the embedding model now, once: the first search then costs no more than others.
    threading.Thread(target=tools.warm_up, name="docql-warm-up", daemon=True).start()
    config = uvicorn.Config(
        guarded,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        http=http.guarded_protocol(header_seconds),
    )
    log(
        f"docql-sqlite MCP server on http://{host_name(host)}:{port}{http.MCP_PATH} "
        f"(GET /health){' with a bearer token' if token else ''}"
    )
    uvicorn.Server(config).run()
