"""What the plugin keeps per Datasette instance: an open `Index` per served database, and
whether sqlite-vec loaded into Datasette's own connections.

Datasette serves pages from an asyncio loop; an `Index` holds one apsw connection, which
must not be used from two threads at once. So every call on an index runs in a worker
thread under that index's lock (`IndexHandle.call`), and the loop never blocks on SQLite.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..dbapi import VecStatus
from ..errors import DatabaseError
from ..index import Index
from ..index import open as open_index

T = TypeVar("T")


@dataclass
class IndexHandle:
    """An `Index` opened read-only on a served database file, and the lock that guards it."""

    name: str
    index: Index
    lock: threading.Lock = field(default_factory=threading.Lock)

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


_STATES: weakref.WeakKeyDictionary[Any, PluginState] = weakref.WeakKeyDictionary()


def state_of(datasette: Any) -> PluginState:
    state = _STATES.get(datasette)
    if state is None:
        state = _STATES[datasette] = PluginState()
    return state


class NotAnIndex(DatabaseError):
    """A served database that is not a docql-sqlite index (or not a file)."""


async def handle_for(datasette: Any, database: Any) -> IndexHandle:
    """The cached read-only `Index` of a Datasette `Database`; `NotAnIndex` says why not."""
    state = state_of(datasette)
    handle = state.handles.get(database.name)
    if handle is not None and handle.index.path == database.path:
        return handle
    if database.is_memory or not database.path:
        raise NotAnIndex(f"database '{database.name}' is in memory, not a docql-sqlite index")

    def open_once() -> IndexHandle:
        with state.opening:
            found = state.handles.get(database.name)
            if found is not None and found.index.path == database.path:
                return found
            try:
                index = open_index(database.path)
            except DatabaseError as exc:
                raise NotAnIndex(exc.message) from exc
            made = IndexHandle(database.name, index)
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
