"""A second read connection and one worker thread, so that one search runs two of its
lists at the same time (`Index(parallel_search=True)`: the MCP server).

Smart search runs several lists one after the other: BM25 and the name lists (SQLite's
C code, which apsw runs without the GIL), the query embedding (ONNX, also without the
GIL), the nearest vectors (BLAS) and the code-word and document lists (Python). On one
connection SQLite serialises every statement; with a second one the worker computes the
lexical lists while the calling thread embeds the query and finds the nearest vectors,
then takes the lexical lists the worker has not started (`Shared`): with a cheap
embedding the two threads split them, with e5-small's (~23 ms of CPU a query) the worker
computes them all. A search uses both cores of a small machine. The answer is the same:
each list is computed exactly as before, and they are fused in the same order.

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

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar, cast

from .. import deadline
from ..store import Store, open_store

T = TypeVar("T")


class Sidecar:
    """One extra read connection on the index file, used by one worker thread."""

    def __init__(self, location: str) -> None:
        self.path = location
        self._store: Store | None = None
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="docql-search"
        )

    def submit(self, store: Store, task: Callable[[Store], T]) -> Pending[T]:
        """Start `task(other)` on the worker, `other` being the index of `store` read
        through the second connection, under the caller's time limit. `Pending.result()`
        is its answer, or `task(store)` run on the caller's thread when the worker could
        not read the caller's snapshot (a commit came between them, or the engine cannot
        tell: `Store.quiescent`; see the module docstring)."""
        left = deadline.remaining()  # raises when the caller is already out of time
        pool = self._pool
        if pool is None:
            raise RuntimeError("the search sidecar is closed")
        store.scalar("SELECT 1 FROM meta LIMIT 1")  # pin the caller's snapshot first
        if not store.quiescent():
            return Pending(store, task, None)

        def run() -> tuple[bool, T | None]:
            with deadline.limit(left):
                other = self._other(store)
                with other.snapshot():
                    other.scalar("SELECT 1 FROM meta LIMIT 1")  # its snapshot
                    if not other.quiescent():
                        return False, None
                    return True, task(other)

        return Pending(store, task, pool.submit(run))

    def _other(self, store: Store) -> Store:
        """The worker's store (opened on first use), sharing the caller's caches."""
        with self._lock:
            if self._store is None:
                self._store = open_store(self.path, readonly=True)
                if store.held_pages:  # a long-lived reader's cache (`Store.hold_pages`)
                    self._store.hold_pages(store.held_pages)
            other = self._store
        other.vector_cache, other.stats_cache = store.vector_cache, store.stats_cache
        return other

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None


class Pending(Generic[T]):
    """A task started on the worker (or not: `future` None), answered by `result()`."""

    def __init__(
        self,
        store: Store,
        task: Callable[[Store], T],
        future: Future[tuple[bool, T | None]] | None,
    ) -> None:
        self.store, self.task, self.future = store, task, future

    def result(self, timeout: float | None = None) -> T:
        """The worker's answer (waiting up to `timeout` seconds for it), or the task run
        here when the worker's snapshot was not the caller's."""
        if self.future is not None:
            same_snapshot, answer = self.future.result(timeout)
            self.future = None
            if same_snapshot:
                return cast(T, answer)
        return self.task(self.store)  # on the caller's snapshot, as without a sidecar

    def drop_unstarted(self) -> bool:
        """True when the worker had not started the task, which now never runs: for a task
        whose work the caller has done meanwhile (`Shared`, every list taken), so the
        caller does not wait for a busy machine to give the worker a core for nothing."""
        if self.future is not None and self.future.cancel():
            self.future = None
            return True
        return False

    def wait(self) -> None:
        """Let a started task finish (after an error on the caller's side)."""
        if self.future is not None:
            self.future.exception()


class Shared:
    """Lists that two threads compute, each list once, taken in order: the worker takes
    them from its start, the caller once its own list (the query's vector) is done, so
    neither waits while the other has several left — whatever the embedding costs (the
    hash model ~0.4 ms, e5-small ~23 ms). Each answer is kept at its list's place: the
    order of the fusion does not depend on which thread computed what."""

    def __init__(self, tasks: list[Callable[[Store], object]]) -> None:
        self.tasks = tasks
        self.results: list[object] = [None] * len(tasks)
        self._next = 0
        self._lock = threading.Lock()

    def _take(self) -> int | None:
        with self._lock:
            if self._next >= len(self.tasks):
                return None
            self._next += 1
            return self._next - 1

    def run(self, store: Store) -> None:
        """Compute the lists nobody has taken yet, on `store` (this thread's connection)."""
        while (i := self._take()) is not None:
            self.results[i] = self.tasks[i](store)


def of(store: Store) -> Sidecar | None:
    """The sidecar of the index behind `store`, or None (opened without `parallel_search`)."""
    sidecar = store.sidecar
    return sidecar if isinstance(sidecar, Sidecar) else None
