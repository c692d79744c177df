"""PostgreSQL (+ pgvector) as the second engine of an index (DESIGN D12, docs/scale-out.md).

The only package that imports psycopg, as `store/sqlite` is the only one that imports
apsw; nothing on the SQLite path imports it, so the file engine keeps its start-up time.
"""

from __future__ import annotations

from ..base import URL_PREFIXES, is_url

__all__ = ["URL_PREFIXES", "is_url"]
