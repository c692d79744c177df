"""Index statistics that searches need on every query, cached per version of the index file.

Counting a common word's chunks or the stale vectors takes milliseconds each; a search
should not pay that again while the file is unchanged. The cache key is the file's
path and the modification times of the file and its WAL (a write changes one of them).
"""

from __future__ import annotations

import os
import threading
from typing import Any

from .. import db
from . import terms as search_terms
from . import vectors

# A term in more than this share of the chunks does not select OR candidates.
COMMON_SHARE = 0.05
MIN_CHUNKS = 2000
_cache: dict[tuple[Any, ...], Any] = {}
_lock = threading.Lock()
_MAX = 10_000


def stamp(path: str) -> tuple[int, int]:
    def mtime(p: str) -> int:
        try:
            return os.stat(p).st_mtime_ns
        except OSError:
            return 0

    return mtime(path), mtime(path + "-wal")


def cached(path: str, key: tuple[Any, ...], compute: Any) -> Any:
    full = (str(path), *stamp(str(path)), *key)
    with _lock:
        if full in _cache:
            return _cache[full]
    value = compute()
    with _lock:
        if len(_cache) >= _MAX:
            _cache.clear()
        _cache[full] = value
    return value


def chunk_count(conn: Any, path: str) -> int:
    return cached(path, ("chunks",), lambda: db.scalar(conn, "SELECT count(*) FROM chunks"))


def term_count(conn: Any, path: str, fts: str) -> int:
    sql = "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?"
    return cached(path, ("df", fts), lambda: db.scalar(conn, sql, (fts,)))


def common_terms(conn: Any, path: str, terms: list[search_terms.Term]) -> frozenset[str]:
    """FTS strings of the positive terms in more than COMMON_SHARE of the chunks.

    Empty for one-term queries, small indexes, and when no selective term occurs at all
    (then every term selects, as plain OR).
    """
    positive = search_terms.positives(terms)
    if len(positive) < 2:
        return frozenset()
    total = chunk_count(conn, path)
    if total < MIN_CHUNKS:
        return frozenset()  # small indexes are fast anyway; keep the exact semantics
    counts = {t.fts: term_count(conn, path, t.fts) for t in positive}
    common = frozenset(f for f, n in counts.items() if n > COMMON_SHARE * total)
    # Prune only when a selective term that occurs at all is left to select candidates.
    selective = [f for f, n in counts.items() if f not in common and n > 0]
    return common if selective else frozenset()


def reduce_terms(
    conn: Any, path: str, terms: list[search_terms.Term]
) -> tuple[list[search_terms.Term], str | None]:
    """`terms.reduce_terms` with document frequencies from this index (cached)."""
    return search_terms.reduce_terms(terms, lambda t: term_count(conn, path, t.fts))


def stale_vectors(conn: Any, path: str) -> int:
    return cached(path, ("stale",), lambda: vectors.stale_vectors(conn))
