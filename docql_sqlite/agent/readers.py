"""A pool of read-only `Index` connections, each lent to one thread at a time, that
notices when the index file is replaced or deleted.

Why a pool: one connection serialised every call, so one slow call (a catastrophic regex
stopped at its deadline) made every other client wait (issue 20 §5). SQLite readers in
WAL mode do not block each other, and apsw releases the GIL inside `sqlite3_step`, so
several connections answer in parallel.

Why the file check: a server holds its connections open for days. When the index is
rebuilt elsewhere and renamed over the old path (or deleted), an open connection keeps
reading the old inode — it would serve the old documents for ever (issue 20 §9). Each
loan compares the path's (device, inode) with the one the connection was opened on: one
`stat` a call. A changed file gets fresh connections; a missing one an error that says so.
A write into the same file (`index`, `--watch`) needs nothing: SQLite sees it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Callable, Iterator

from .. import DatabaseError, Index, is_url

FileId = tuple[int, int] | None


def file_id(path: str) -> FileId:
    """(device, inode) of the index file; None for a PostgreSQL URL. Raises when gone."""
    if is_url(path):
        return None
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise DatabaseError(
            f"the index file '{path}' was deleted while the server ran; rebuild it with "
            f"docql-sqlite index {path} PATH (the server opens the new file at the next call)"
        ) from None
    return info.st_dev, info.st_ino


class Reader:
    """One connection and what it was opened on."""

    __slots__ = ("index", "file", "generation")

    def __init__(self, index: Index, file: FileId, generation: int) -> None:
        self.index = index
        self.file = file
        self.generation = generation


class ReaderPool:
    """`size` connections made by `factory`, lent with `borrow()`. The pool is sized to
    the worker threads that use it, so a borrower never waits long for one."""

    def __init__(self, path: str, size: int, factory: Callable[[], Index]) -> None:
        self.path = path
        self.size = size
        self.factory = factory
        self.generation = 0  # bumped by `reopen()`: the writer committed (watch mode)
        self._idle: queue.LifoQueue[Reader | None] = queue.LifoQueue()
        self._lock = threading.Lock()
        self._closed = False
        # Every connection now: a bad file fails at start, and no call pays for opening
        # one (a heavy connection starts a sidecar thread; under load that took seconds).
        for _ in range(size):
            self._idle.put(self._open())

    def _open(self) -> Reader:
        file = file_id(self.path)
        return Reader(self.factory(), file, self.generation)

    @contextlib.contextmanager
    def borrow(self) -> Iterator[Index]:
        reader = self._idle.get()
        try:
            current = file_id(self.path)  # raises when the file is gone
            if reader is not None and (
                reader.file != current or reader.generation != self.generation
            ):
                reader.index.close()
                reader = None
            if reader is None:
                reader = self._open()
            yield reader.index
        finally:
            with self._lock:
                if self._closed and reader is not None:
                    reader.index.close()
                    reader = None
            self._idle.put(reader)

    def reopen(self) -> None:
        """Every connection is reopened at its next loan (it sees a new vector table)."""
        self.generation += 1

    def close(self) -> None:
        with self._lock:
            self._closed = True
        while True:
            try:
                reader = self._idle.get_nowait()
            except queue.Empty:
                return
            if reader is not None:
                reader.index.close()
