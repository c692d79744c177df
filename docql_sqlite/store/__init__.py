"""Where an index lives: the SQLite file (`store/sqlite`) or a PostgreSQL database
(`store/postgres`), behind one `Store` interface (`store/base.py`).

`open_store` is the one place that chooses the engine. This package's `__init__` stays
light (no driver is imported until a store opens): every client imports `is_url`, and
the SQLite path must never load psycopg.
"""

from __future__ import annotations

from .base import URL_PREFIXES, Store, is_url


def open_store(location: object, *, readonly: bool = True, create: bool = True) -> Store:
    """The store of the index at `location`: a postgresql:// URL opens PostgreSQL (the
    `postgres` extra), anything else the SQLite file. The one place that chooses.
    A writable store is created when missing unless `create` is False (`embed`: there
    must be an index to embed)."""
    if is_url(location):
        try:
            from .postgres.engine import PostgresStore
        except ImportError as exc:
            from ..errors import UsageError

            raise UsageError(
                f"PostgreSQL support needs psycopg: pip install 'docql-sqlite[postgres]' ({exc})"
            ) from None
        return PostgresStore(str(location), readonly=readonly, create=create)
    from .sqlite.engine import SqliteStore

    return SqliteStore(str(location), readonly=readonly, create=create)


__all__ = ["URL_PREFIXES", "Store", "is_url", "open_store"]
