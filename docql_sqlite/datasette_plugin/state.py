"""What the plugin keeps per Datasette instance: an open `Index` per served database, and
whether sqlite-vec loaded into Datasette's own connections.

Datasette serves pages from an asyncio loop; an `Index` holds one apsw connection, which
must not be used from two threads at once. So every call on an index runs in a worker
thread under that index's lock (`IndexHandle.call`), and the loop never blocks on SQLite.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .. import Index
from .. import open as open_index
from ..dbapi import VecStatus
from ..errors import DatabaseError

T = TypeVar("T")


def file_stamp(path: str) -> tuple[int, ...]:
    """Changes when the database is written (its file or its WAL)."""
    stamp: list[int] = []
    for name in (path, path + "-wal"):
        try:
            info = os.stat(name)
            stamp += [info.st_mtime_ns, info.st_size, info.st_ino]
        except OSError:
            stamp += [0, 0, 0]
    return tuple(stamp)


@dataclass
class IndexHandle:
    """An `Index` opened read-only on a served database file, and the lock that guards it.
    `stamp` is the file's `file_stamp` when it was opened: an index written since (an
    `index` or `embed` run beside the server, or a new file under the same name) is opened
    again, so what it read once at open (whether it has vectors) stays true."""

    name: str
    index: Index
    stamp: tuple[int, ...] = ()
    lock: threading.Lock = field(default_factory=threading.Lock)

    def current(self, path: str) -> bool:
        return self.index.path == path and self.stamp == file_stamp(path)

    async def call(self, func: Callable[[Index], T]) -> T:
        """`func(index)` in a worker thread, one call at a time per index."""

        def locked() -> T:
            with self.lock:
                return func(self.index)

        return await asyncio.to_thread(locked)


@dataclass
class PluginState:
    # Database name -> sqlite-vec status of its Datasette connections (the last one prepared).
    vec: dict[str, VecStatus] = field(default_factory=dict)
    handles: dict[str, IndexHandle] = field(default_factory=dict)
    opening: threading.Lock = field(default_factory=threading.Lock)


STATE_ATTRIBUTE = "_docql_sqlite_state"


def state_of(datasette: Any) -> PluginState:
    """The plugin's state for one Datasette instance, kept on that instance (so it goes
    with it, and two instances in one process never share an index handle)."""
    state = getattr(datasette, STATE_ATTRIBUTE, None)
    if state is None:
        state = PluginState()
        setattr(datasette, STATE_ATTRIBUTE, state)
    return state


class NotAnIndex(DatabaseError):
    """A served database that is not a docql-sqlite index (or not a file)."""


async def handle_for(datasette: Any, database: Any) -> IndexHandle:
    """The cached read-only `Index` of a Datasette `Database`; `NotAnIndex` says why not."""
    state = state_of(datasette)
    handle = state.handles.get(database.name)
    if handle is not None and handle.current(database.path):
        return handle
    if database.is_memory or not database.path:
        raise NotAnIndex(f"database '{database.name}' is in memory, not a docql-sqlite index")

    def open_once() -> IndexHandle:
        with state.opening:
            found = state.handles.get(database.name)
            if found is not None and found.current(database.path):
                return found
            stamp = file_stamp(database.path)
            try:
                index = open_index(database.path)
            except DatabaseError as exc:
                raise NotAnIndex(exc.message) from exc
            made = IndexHandle(database.name, index, stamp)
            # The old handle is not closed here: a request may still hold it; its
            # connection closes when the last reference goes.
            state.handles[database.name] = made
            return made

    return await asyncio.to_thread(open_once)


async def index_databases(datasette: Any) -> list[Any]:
    """The served databases that are docql-sqlite indexes, in Datasette's order."""
    found = []
    for database in datasette.databases.values():
        if database.name == "_internal" or database.is_memory:
            continue
        try:
            await handle_for(datasette, database)
        except NotAnIndex:
            continue
        found.append(database)
    return found
