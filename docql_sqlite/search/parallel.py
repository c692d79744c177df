"""A second read connection and one worker thread, so that one search runs two of its
lists at the same time (`Index(parallel_search=True)`: the MCP server).

Smart search runs several lists one after the other: BM25 and the name lists (SQLite's
C code, which apsw runs without the GIL), the query embedding (ONNX, also without the
GIL), the nearest vectors (BLAS) and the code-word and document lists (Python). On one
connection SQLite serialises every statement; with a second one the BM25 and name lists
run on the worker while the calling thread embeds the query and runs the others, so a
search uses both cores of a small machine. The answer is the same: each list is
computed exactly as before, and they are fused in the same order.

The worker's connection is read-only and opened on first use; it sees the same file
(each statement its latest committed state, as on the caller's connection, where
statements run one after another without a transaction around them either). Caches keyed
by the index (`stats.cached`) are shared. The caller's time limit (`deadline`) applies
on the worker too: the task runs under what is left of it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from .. import db, deadline
from . import engine as engines

T = TypeVar("T")


class Sidecar:
    """One extra read connection on the index file, used by one worker thread."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._conn: Any = None
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="docql-search"
        )

    def submit(self, index: engines.Engine, task: Callable[[engines.Engine], T]) -> Future[T]:
        """Run `task(engine)` on the worker, `engine` being `index` on the second
        connection; under the caller's time limit."""
        left = deadline.remaining()  # raises when the caller is already out of time
        pool = self._pool
        if pool is None:
            raise RuntimeError("the search sidecar is closed")

        def run() -> T:
            with deadline.limit(left):
                return task(self._engine(index))

        return pool.submit(run)

    def _engine(self, index: engines.Engine) -> engines.Engine:
        """`index`'s engine (a `SqliteEngine`) reading through the worker's connection."""
        with self._lock:
            if self._conn is None:
                self._conn = db.connect(self.path, readonly=True)
            conn = self._conn
        assert isinstance(index, engines.SqliteEngine)
        other = engines.SqliteEngine(index.index)
        other.conn = conn
        return other

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def of(index: Any) -> Sidecar | None:
    """The sidecar of the `Index` behind `index` (an engine), or None: PostgreSQL, or an
    index opened without `parallel_search`."""
    if not isinstance(index, engines.SqliteEngine):
        return None
    sidecar = getattr(index.index, "search_sidecar", None)
    return sidecar if isinstance(sidecar, Sidecar) else None
