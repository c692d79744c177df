"""PostgreSQL (+ pgvector) as a second engine for an index (DESIGN D12, docs/scale-out.md).

The only package that imports psycopg, as `db.py` is the only module that imports apsw;
nothing on the SQLite path imports it, so the file engine keeps its start-up time.
"""

from __future__ import annotations

URL_PREFIXES = ("postgresql://", "postgres://")


def is_url(target: str) -> bool:
    """True when `target` names a PostgreSQL database rather than an index file."""
    return str(target).startswith(URL_PREFIXES)
