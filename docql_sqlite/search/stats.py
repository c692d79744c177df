"""Index statistics that searches need on every query, cached per version of the index.

Counting a common word's chunks or the stale vectors takes milliseconds each; a search
should not pay that again while the index is unchanged. The cache key is the engine's
name for the index and its version stamp (`Engine.stamp`: the modification times of the
file and its WAL; PostgreSQL's WAL position), which every write changes.
"""

from __future__ import annotations

import math
import threading
from typing import Any

from ..sqlparams import Params
from . import engine as engines
from . import terms as search_terms
from . import vectors

# A term in more than this share of the chunks does not select OR candidates.
COMMON_SHARE = 0.05
MIN_CHUNKS = 2000
_cache: dict[tuple[Any, ...], Any] = {}
_lock = threading.Lock()
_MAX = 10_000


def cached(index: Any, key: tuple[Any, ...], compute: Any) -> Any:
    """`compute()`, remembered for this version of the index (`index`: an Engine or Index)."""
    engine = engines.of(index)
    full = (engine.path, *engine.stamp(), *key)
    with _lock:
        if full in _cache:
            return _cache[full]
    value = compute()
    with _lock:
        if len(_cache) >= _MAX:
            _cache.clear()
        _cache[full] = value
    return value


def chunk_count(index: Any) -> int:
    engine = engines.of(index)
    return cached(engine, ("chunks",), lambda: engine.scalar("SELECT count(*) FROM chunks"))


def matching(index: Any, query: str) -> int:
    """Chunks matching the full-text `query` (in the engine's own syntax)."""
    engine = engines.of(index)
    params = Params(engine.dialect)
    sql = engine.dialect.count_matching(params.add(query))
    return cached(engine, ("df", query), lambda: int(engine.scalar(sql, params.values)))


def term_count(index: Any, term: search_terms.Term) -> int:
    """Chunks holding `term` (its document frequency)."""
    engine = engines.of(index)
    return matching(engine, engine.dialect.term(term))


def common_terms(index: Any, terms: list[search_terms.Term]) -> frozenset[str]:
    """FTS strings of the positive terms in more than COMMON_SHARE of the chunks.

    Empty for one-term queries, small indexes, and when no selective term occurs at all
    (then every term selects, as plain OR).
    """
    positive = search_terms.positives(terms)
    if len(positive) < 2:
        return frozenset()
    total = chunk_count(index)
    if total < MIN_CHUNKS:
        return frozenset()  # small indexes are fast anyway; keep the exact semantics
    counts = {t.fts: term_count(index, t) for t in positive}
    common = frozenset(f for f, n in counts.items() if n > COMMON_SHARE * total)
    # Prune only when a selective term that occurs at all is left to select candidates.
    selective = [f for f, n in counts.items() if f not in common and n > 0]
    return common if selective else frozenset()


def reduce_terms(
    index: Any, terms: list[search_terms.Term]
) -> tuple[list[search_terms.Term], str | None]:
    """`terms.reduce_terms` with document frequencies from this index (cached)."""
    return search_terms.reduce_terms(terms, lambda t: term_count(index, t))


def stale_vectors(index: Any) -> int:
    engine = engines.of(index)
    return cached(engine, ("stale",), lambda: int(engine.scalar(vectors.STALE_SQL)))


def vector_count(index: Any) -> int:
    """Vectors stored (current or stale)."""
    engine = engines.of(index)
    sql = "SELECT count(*) FROM chunk_vectors"
    return cached(engine, ("vectors",), lambda: int(engine.scalar(sql)))


class TermStats:
    """What BM25 needs beyond the row itself, for engines that compute it in SQL: the row
    count, the average row length in tokens, and each phrase's document frequency."""

    def __init__(self, index: Any) -> None:
        self.engine = engines.of(index)

    def corpus(self) -> tuple[int, float]:
        """(rows, average tokens per row) of the full-text table."""

        def compute() -> tuple[int, float]:
            rows, tokens = self.engine.rows(self.engine.dialect.corpus_sql())[0].values()
            rows, tokens = int(rows or 0), int(tokens or 0)
            return rows, (float(tokens) / float(rows) if rows else 0.0)

        return cached(self.engine, ("corpus",), compute)

    def idf(self, query: str) -> float:
        """FTS5's idf of a phrase: ln((N − n + 0.5) / (n + 0.5)), 1e-6 when not positive."""
        total = self.corpus()[0]
        hits = matching(self.engine, query)
        value = math.log((total - hits + 0.5) / (hits + 0.5))
        return value if value > 0.0 else 1e-6
