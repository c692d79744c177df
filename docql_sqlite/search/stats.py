"""Index statistics that searches need on every query, cached per version of the index.

Counting a common word's chunks or the stale vectors takes milliseconds each; a search
should not pay that again while the index is unchanged. The cache is the store's
(`Store.stats_cache`, a `StatsCache`: made on first use, bounded, gone with the store
that the `Index` closes; a search sidecar's store shares its caller's), keyed by the
index's version stamp (`Store.stamp`: the modification times of the file and its WAL;
PostgreSQL's WAL position), which every write changes.
"""

from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING, Any, cast

from ..sqlparams import Params
from . import terms as search_terms
from . import vectors

if TYPE_CHECKING:
    from ..store import Store

# A term in more than this share of the chunks does not select OR candidates.
COMMON_SHARE = 0.05
MIN_CHUNKS = 2000


class StatsCache:
    """Figures of one index by its version stamp: at most `size` entries (then forgotten
    all at once), shared by the threads of one process (a search sidecar's included)."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self._values: dict[tuple[Any, ...], Any] = {}
        self._parts: dict[str, Any] = {}
        self._lock = threading.Lock()

    def part(self, name: str, make: Any) -> Any:
        """A cache of its own kept beside these figures (bounded by whoever `make`s it,
        e.g. the document channel's postings): made once, dropped with this one."""
        with self._lock:
            found = self._parts.get(name)
            if found is None:
                found = self._parts[name] = make()
            return found

    def get(self, key: tuple[Any, ...], compute: Any) -> Any:
        with self._lock:
            if key in self._values:
                return self._values[key]
        value = compute()
        with self._lock:
            if len(self._values) >= self.size:
                self._values.clear()
            self._values[key] = value
        return value

    def __len__(self) -> int:
        return len(self._values)


class Recent:
    """The last `size` values asked for by key (least recently used forgotten first),
    for any thread: a part of the store's cache (`StatsCache.part`)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: dict[Any, Any] = {}  # in order of use: the first is the oldest
        self._lock = threading.Lock()

    def get(self, key: Any, compute: Any) -> Any:
        with self._lock:
            if key in self._values:
                value = self._values.pop(key)
                self._values[key] = value
                return value
        value = compute()  # outside the lock: two threads may compute the same value
        with self._lock:
            self._values[key] = value
            while len(self._values) > self.size:
                del self._values[next(iter(self._values))]
        return value

    def __len__(self) -> int:
        return len(self._values)


_made = threading.Lock()  # one cache per store, however many threads ask first


def of(store: Store) -> StatsCache:
    """The store's cache (made on first use: the `Index` that opened the store drops it)."""
    cache = store.stats_cache
    if cache is None:
        with _made:
            cache = store.stats_cache
            if cache is None:
                cache = store.stats_cache = StatsCache()
    return cast(StatsCache, cache)


def cached(store: Store, key: tuple[Any, ...], compute: Any) -> Any:
    """`compute()`, remembered for this version of the index."""
    return of(store).get((*store.stamp(), *key), compute)


def columns(
    store: Store, exprs: list[str], rows: str, order: str, *, any_order: bool = False
) -> list[list[str]]:
    """The values of each expression in `exprs` over `rows` (a `FROM …`), in `order`, as
    one list of texts per expression (a number as its decimal text).

    One statement that returns one string per column: a whole table read as a dict per
    row costs ~2 µs a row in Python, which was most of a one-off search on a large index
    (239k symbols, 90k prose chunks at 279 MB). The values are joined by newlines; when
    one holds a newline (the lists come out longer than the rows), the rows are read
    one by one instead, so the values are always exact.

    `any_order`: the caller needs the lists aligned, not sorted. Where the engine keeps
    unordered aggregates aligned (SQLite) the statement then has no ORDER BY, and the
    engine may read a covering index instead of the table: the chunk → document map of a
    279 MB index reads `chunks_doc` (9 MB) instead of the chunks' pages (229 MB)."""
    dialect = store.dialect
    newline = dialect.newline()
    inner = ", ".join(f"{e} AS c{i}" for i, e in enumerate(exprs))
    if any_order and dialect.ALIGNED_UNORDERED_CONCAT:
        concat = [
            dialect.concat_rows(f"{dialect.text(f'c{i}')} || {newline}") for i in range(len(exprs))
        ]
        source, slow_order = f"(SELECT {inner} {rows}) s", ""
    else:
        concat = [
            dialect.concat_rows(f"{dialect.text(f'c{i}')} || {newline}", "o")
            for i in range(len(exprs))
        ]
        source = f"(SELECT {inner}, {order} AS o {rows} ORDER BY o) s"
        slow_order = f" ORDER BY {order}"
    outer = ", ".join(f"{c} AS c{i}" for i, c in enumerate(concat))
    found = store.rows(f"SELECT count(*) AS n, {outer} FROM {source}")
    values: dict[str, Any] = found[0] if found else {"n": 0}
    lists = [(values.get(f"c{i}") or "").split("\n")[:-1] for i in range(len(exprs))]
    if all(len(values_) == values["n"] for values_ in lists):
        return lists
    slow = store.rows(f"SELECT {inner} {rows}{slow_order}")
    return [[str(row[f"c{i}"]) for row in slow] for i in range(len(exprs))]


def chunk_count(store: Store) -> int:
    return cached(store, ("chunks",), lambda: store.scalar("SELECT count(*) FROM chunks"))


def matching(store: Store, query: str) -> int:
    """Chunks matching the full-text `query` (in the engine's own syntax)."""
    params = Params(store.dialect)
    sql = store.dialect.count_matching(params.add(query))
    return cached(store, ("df", query), lambda: int(store.scalar(sql, params.values)))


def term_count(store: Store, term: search_terms.Term) -> int:
    """Chunks holding `term` (its document frequency)."""
    return matching(store, store.dialect.term(term))


def common_terms(store: Store, terms: list[search_terms.Term]) -> frozenset[str]:
    """FTS strings of the positive terms in more than COMMON_SHARE of the chunks.

    Empty for one-term queries, small indexes, and when no selective term occurs at all
    (then every term selects, as plain OR).
    """
    positive = search_terms.positives(terms)
    if len(positive) < 2:
        return frozenset()
    total = chunk_count(store)
    if total < MIN_CHUNKS:
        return frozenset()  # small indexes are fast anyway; keep the exact semantics
    counts = {t.fts: term_count(store, t) for t in positive}
    common = frozenset(f for f, n in counts.items() if n > COMMON_SHARE * total)
    # Prune only when a selective term that occurs at all is left to select candidates.
    selective = [f for f, n in counts.items() if f not in common and n > 0]
    return common if selective else frozenset()


def reduce_terms(
    store: Store, terms: list[search_terms.Term]
) -> tuple[list[search_terms.Term], str | None]:
    """`terms.reduce_terms` with document frequencies from this index (cached)."""
    return search_terms.reduce_terms(terms, lambda t: term_count(store, t))


def stale_vectors(store: Store) -> int:
    return cached(store, ("stale",), lambda: int(store.scalar(vectors.STALE_SQL)))


def vector_count(store: Store) -> int:
    """Vectors stored (current or stale)."""
    sql = "SELECT count(*) FROM chunk_vectors"
    return cached(store, ("vectors",), lambda: int(store.scalar(sql)))


class TermStats:
    """What BM25 needs beyond the row itself, for engines that compute it in SQL: the row
    count, the average row length in tokens, and each phrase's document frequency."""

    def __init__(self, store: Store) -> None:
        self.engine = store

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
