"""Keep an index current: re-index when files change (`index DB PATH... --watch`, and
`mcp DB --watch PATH`).

File events come from `watchfiles` (a maintained Rust watcher; inotify here). Events are
debounced into batches; each batch runs one incremental `index_paths` over the watched
paths, which re-parses only the files whose size, mtime or hash changed and removes the
documents whose files are gone. The runs happen one after another in the calling thread,
so the database keeps a single writer. The index file itself (and its -wal/-shm) is
ignored, so indexing a tree that holds the database does not wake the watcher.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from ..errors import DocQLError, UsageError
from ..options import IngestOptions
from .run import IngestReport, index_paths

DEBOUNCE_MS = 300


WATCHFILES_MISSING = "--watch needs the watchfiles package: pip install 'docql-sqlite[watch]'"


def require_watchfiles() -> None:
    """Raise `UsageError` now when `watchfiles` is missing: `index --watch` and `mcp --watch`
    call this before their first run (they used to index everything, then fail)."""
    import importlib.util

    if importlib.util.find_spec("watchfiles") is None:
        raise UsageError(WATCHFILES_MISSING)


def watch(
    db_path: str | Path,
    paths: list[str],
    options: IngestOptions | None = None,
    *,
    on_report: Callable[[IngestReport], None] | None = None,
    on_error: Callable[[DocQLError], None] | None = None,
    stop: threading.Event | None = None,
    debounce_ms: int = DEBOUNCE_MS,
    run: Callable[[str | Path, list[str], IngestOptions | None], IngestReport] = index_paths,
) -> None:
    """Re-index `paths` into `db_path` after every batch of file changes, until `stop` is
    set (or Ctrl-C). A failed run is reported to `on_error` and watching goes on. `run`
    does each run (`child.index_in_child` for a process that serves meanwhile)."""
    try:
        from watchfiles import Change, DefaultFilter
        from watchfiles import watch as file_events
    except ImportError:
        raise UsageError(WATCHFILES_MISSING) from None
    base = os.path.abspath(db_path)
    ignored = {base, base + "-wal", base + "-shm", base + "-journal"}
    default = DefaultFilter()

    def relevant(change: Change, path: str) -> bool:
        return os.path.abspath(path) not in ignored and default(change, path)

    for _changes in file_events(
        *paths,
        watch_filter=relevant,
        debounce=debounce_ms,
        step=50,
        stop_event=stop,
        raise_interrupt=False,
    ):
        try:
            report = run(db_path, list(paths), options)
        except DocQLError as exc:  # e.g. a watched root was deleted
            if on_error is not None:
                on_error(exc)
            continue
        if on_report is not None:
            on_report(report)
