"""A second read connection and one worker thread, so that one search runs two of its
lists at the same time (`Index(parallel_search=True)`: the MCP server).

Smart search runs several lists one after the other: BM25 and the name lists (SQLite's
C code, which apsw runs without the GIL), the query embedding (ONNX, also without the
GIL), the nearest vectors (BLAS) and the code-word and document lists (Python). On one
connection SQLite serialises every statement; with a second one the BM25 and name lists
run on the worker while the calling thread embeds the query and runs the others, so a
search uses both cores of a small machine. The answer is the same: each list is
computed exactly as before, and they are fused in the same order.

The worker's connection is read-only and opened on first use. Its lists must read the
same committed state as the caller's (`Index.snapshot`: one read transaction per answer),
or a commit landing mid-search would fuse passages of two versions of a document. SQLite
cannot hand a snapshot to another connection from Python, so the worker runs its task in
a read transaction of its own and uses it only when the two are provably the same: the
WAL file was empty once the caller's snapshot was taken and is still empty once the
worker's is. A commit appends to the WAL, and the WAL cannot be emptied again while the
caller's older snapshot is open (a checkpoint neither backfills nor truncates past an
open reader), so an empty WAL at both moments means no commit came between them. In an
index that is not being written (the usual case: every index run ends by truncating the
WAL) that always holds; while a writer is at work the search runs on the caller's thread
alone, as without a sidecar. Caches keyed by the index (`stats.cached`) are shared. The
caller's time limit (`deadline`) applies on the worker too: the task runs under what is
left of it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Generic, TypeVar, cast

from .. import deadline
from ..store.sqlite import db
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

    def submit(self, index: engines.Engine, task: Callable[[engines.Engine], T]) -> Pending[T]:
        """Start `task(engine)` on the worker, `engine` being `index` on the second
        connection, under the caller's time limit. `Pending.result()` is its answer, or
        `task(index)` run on the caller's thread when the worker could not read the
        caller's snapshot (a commit came between them; see the module docstring)."""
        left = deadline.remaining()  # raises when the caller is already out of time
        pool = self._pool
        if pool is None:
            raise RuntimeError("the search sidecar is closed")
        if index.conn.in_transaction:  # pin the caller's snapshot before looking at the WAL
            index.conn.execute("SELECT 1 FROM meta LIMIT 1").fetchall()
        if not wal_empty(self.path):
            return Pending(index, task, None)

        def run() -> tuple[bool, T | None]:
            with deadline.limit(left):
                other = self._engine(index)
                other.conn.execute("BEGIN")
                try:
                    other.conn.execute("SELECT 1 FROM meta LIMIT 1").fetchall()  # its snapshot
                    if not wal_empty(self.path):
                        return False, None
                    return True, task(other)
                finally:
                    other.conn.execute("COMMIT")

        return Pending(index, task, pool.submit(run))

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


class Pending(Generic[T]):
    """A task started on the worker (or not: `future` None), answered by `result()`."""

    def __init__(
        self,
        index: engines.Engine,
        task: Callable[[engines.Engine], T],
        future: Future[tuple[bool, T | None]] | None,
    ) -> None:
        self.index, self.task, self.future = index, task, future

    def result(self, timeout: float | None = None) -> T:
        """The worker's answer (waiting up to `timeout` seconds for it), or the task run
        here when the worker's snapshot was not the caller's."""
        if self.future is not None:
            same_snapshot, answer = self.future.result(timeout)
            self.future = None
            if same_snapshot:
                return cast(T, answer)
        return self.task(self.index)  # on the caller's snapshot, as without a sidecar

    def wait(self) -> None:
        """Let a started task finish (after an error on the caller's side)."""
        if self.future is not None:
            self.future.exception()


def wal_empty(path: str) -> bool:
    """Whether the index's WAL holds no frames (no file: nothing was written since the last
    connection closed, or the file is not in WAL mode, where readers block commits)."""
    try:
        return os.stat(path + "-wal").st_size == 0
    except FileNotFoundError:
        return True


def of(index: Any) -> Sidecar | None:
    """The sidecar of the `Index` behind `index` (an engine), or None: PostgreSQL, or an
    index opened without `parallel_search`."""
    if not isinstance(index, engines.SqliteEngine):
        return None
    sidecar = getattr(index.index, "search_sidecar", None)
    return sidecar if isinstance(sidecar, Sidecar) else None
