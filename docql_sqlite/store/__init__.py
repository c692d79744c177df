"""Where an index lives: the SQLite file (`store/sqlite`) or a PostgreSQL database
(`store/postgres`), behind one `Store` interface (`store/base.py`).

`open_store` is the one place that chooses the engine. This package's `__init__` stays
light (no driver is imported until a store opens): every client imports `is_url`, and
the SQLite path must never load psycopg.
"""

from __future__ import annotations

from .base import URL_PREFIXES, Store, is_url

__all__ = ["URL_PREFIXES", "Store", "is_url"]
