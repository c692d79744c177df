"""Where an index lives: the SQLite file (`store/sqlite`) or a PostgreSQL database
(`store/postgres`), behind one `Store` interface (`store/base.py`).

`open_store` is the one place that chooses the engine. This package's `__init__` stays
light (no driver is imported until a store opens): every client imports `is_url`, and
the SQLite path must never load psycopg.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .base import URL_PREFIXES, Store, is_url

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (tests/test_cli_startup.py)
if TYPE_CHECKING:
    from typing import Any


def open_store(
    location: object, *, readonly: bool = True, create: bool = True, checked: Any = None
) -> Store:
    """The store of the index at `location`: a postgresql:// URL opens PostgreSQL (the
    `postgres` extra), anything else the SQLite file. The one place that chooses.
    A writable store is created when missing unless `create` is False (`embed`: there
    must be an index to embed); `checked` is `start_check`'s handle for this location."""
    if is_url(location):
        with _needs_psycopg():
            from .postgres.engine import PostgresStore
        return PostgresStore(str(location), readonly=readonly, create=create)
    from .sqlite.engine import SqliteStore

    return SqliteStore(str(location), readonly=readonly, create=create, checked=checked)


def start_check(location: object) -> Any:
    """Start the structure check a writer of `location` runs before its first write, in
    the background, for a caller with other work to do first (an index run's walk); pass
    the handle to `open_store`, or call its `stop()` when no store will be opened. None:
    nothing to start (PostgreSQL, a new file, checks off)."""
    if is_url(location):
        return None
    from .sqlite.db import start_check as start_file_check

    return start_file_check(str(location))


def copy_index(source: str, dest: str) -> dict[str, Any]:
    """Copy the index at `source` to `dest` between engines (a file path ↔ a postgresql://
    URL), every table verified by row count and checksum before the copy commits: the
    per-table report. The copy is PostgreSQL's module (it needs the `postgres` extra)."""
    with _needs_psycopg():
        from .postgres.copy import copy_index as copy_between

    return copy_between(source, dest).to_dict()


@contextmanager
def _needs_psycopg() -> Iterator[None]:
    """Around an import of the PostgreSQL store (imported only for a URL: the SQLite path
    never loads psycopg): a missing driver is one clear line."""
    try:
        yield
    except ImportError as exc:
        from ..errors import UsageError

        raise UsageError(
            f"PostgreSQL support needs psycopg: pip install 'docql-sqlite[postgres]' ({exc})"
        ) from None


__all__ = ["URL_PREFIXES", "Store", "copy_index", "is_url", "open_store"]
