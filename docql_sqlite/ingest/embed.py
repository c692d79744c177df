"""`docql-sqlite embed`: give every new or changed chunk a vector, never embedding a text twice.

A chunk needs a vector when `chunk_vectors` has no row for it, or the row's content
hash or document differ (re-indexing gives chunks new ids and may reuse old ones).
Before anything is computed, every needed text is looked up by content hash among the
vectors already stored — including those of chunks deleted by re-indexing, which stay
until this run ends — so unchanged text in an edited file costs nothing. The rest is
embedded in batches, unique texts once, each batch committed in its own transaction
(an interrupted run keeps its finished batches). Finally vectors of chunks that no
longer exist are dropped.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..embedders import EmbeddingModel, encode
from ..errors import EmbeddingError
from ..options import EmbedOptions, EmbedProgress
from ..search import vectors
from ..store.sqlite import db


def embed_index(db_path: str | Path, options: EmbedOptions) -> dict[str, Any]:
    """Embed the new or changed chunks of the index at `db_path`; returns a report.

    `options.model` defaults to the model the index was embedded with. A different model
    is refused unless `options.replace`; then the new model must first embed a probe text,
    so a model that cannot run (a server that is down) never costs the existing vectors.
    """
    started = time.monotonic()
    conn = db.connect(db_path, create=False)
    try:
        if not db.has_vec(conn):
            raise EmbeddingError(
                "sqlite-vec cannot be loaded here, so vectors cannot be stored; "
                "pip install sqlite-vec"
            )
        meta = vectors.stored_meta(conn)
        # No model named and none in the index yet: the default offline model.
        name = options.model or meta.get(vectors.KEY_MODEL) or vectors.DEFAULT_MODEL
        model = vectors.load_model(name)
        removed = _prepare(conn, model, meta, options.replace)
        report = _embed_missing(conn, model, options.progress, options.batch)
        report["removed"] += removed
        report.update(
            model=model.model_id,
            dimensions=model.dimensions,
            seconds=round(time.monotonic() - started, 3),
        )
        return report
    finally:
        conn.close()


_STALE = """FROM chunks c LEFT JOIN chunk_vectors cv ON cv.chunk_id = c.id
           WHERE cv.chunk_id IS NULL OR cv.content_hash != c.content_hash OR cv.doc_id !=
           c.doc_id"""


def pending(db_path: str | Path) -> tuple[str | None, int]:
    """(the index's embedding model or None, chunks without a current vector)."""
    conn = db.connect(db_path, readonly=True)
    try:
        model = vectors.stored_meta(conn).get(vectors.KEY_MODEL)
        return model, (db.scalar(conn, f"SELECT count(*) {_STALE}") if model else 0)
    finally:
        conn.close()


def _prepare(
    conn: db.Connection, model: EmbeddingModel, meta: dict[str, str], replace: bool
) -> int:
    """Check or (re)create the vec0 table and the meta rows; returns vectors dropped."""
    drop = False
    if meta.get(vectors.KEY_MODEL):
        try:
            vectors.check_model(conn, model)
        except EmbeddingError as err:
            if not replace:
                raise EmbeddingError(
                    f"{err.message}; to replace the vectors run: docql-sqlite embed DB "
                    f"--model {model.model_id} --replace"
                ) from None
            # Prove the new model runs before the old vectors go (a server that is down
            # must not cost the index its vectors).
            model.embed(["probe"], kind="passage")
            drop = True
    if not drop and vectors.vec_table_exists(conn):
        return 0
    removed = db.scalar(conn, "SELECT count(*) FROM chunk_vectors") if drop else 0
    template = (db.sql_dir() / "vec.sql").read_text(encoding="utf-8")
    # One transaction: the old model's vectors go and the new model's empty table comes
    # together, so a run killed here leaves one model or the other, never an index with
    # no model recorded (where a plain restarted `embed` would not know what to run).
    with conn:
        if drop:
            conn.execute(f"DROP TABLE IF EXISTS {vectors.VEC_TABLE}")
            conn.execute(
                "DELETE FROM meta WHERE key IN (?, ?, ?)",
                (vectors.KEY_MODEL, vectors.KEY_DIMENSIONS, vectors.KEY_FINGERPRINT),
            )
        conn.execute(template.replace("{dimensions}", str(int(model.dimensions))))
        conn.execute("DELETE FROM chunk_vectors")  # rows without vectors are meaningless
        db.set_meta(conn, vectors.KEY_MODEL, model.model_id)
        db.set_meta(conn, vectors.KEY_DIMENSIONS, str(model.dimensions))
        db.set_meta(conn, vectors.KEY_FINGERPRINT, model.fingerprint())
    return removed


def _embed_missing(
    conn: db.Connection, model: EmbeddingModel, progress: EmbedProgress | None, batch: int
) -> dict[str, Any]:
    needed: list[tuple[int, int, str, str]] = [
        (int(a), int(b), str(c), str(d))
        for a, b, c, d in conn.execute(
            f"SELECT c.id, c.doc_id, c.content_hash, c.content {_STALE} ORDER BY c.id"
        )
    ]
    total_chunks = db.scalar(conn, "SELECT count(*) FROM chunks")
    # The cache: every stored vector whose text (by hash) is needed again, read before
    # any row is overwritten (a reused chunk id may hold a vector another chunk needs).
    wanted = {h for _, _, h, _ in needed}
    cached: dict[str, bytes] = {}
    for chunk_id, content_hash in conn.execute("SELECT chunk_id, content_hash FROM chunk_vectors"):
        if content_hash in wanted and content_hash not in cached:
            row = conn.execute(
                f"SELECT embedding FROM {vectors.VEC_TABLE} WHERE rowid = ?", (chunk_id,)
            ).fetchone()
            if row is not None:
                cached[content_hash] = row[0]
    texts = {h: text for _, _, h, text in needed if h not in cached}
    reused = len(needed) - sum(1 for _, _, h, _ in needed if h in texts)
    computed = 0
    if progress:
        progress(0, len(texts))
    # One transaction per batch, written as soon as it is computed: a run that is killed
    # keeps its finished batches, and the next run starts where it stopped.
    for start in range(0, len(needed), batch):
        rows = needed[start : start + batch]
        fresh = list(dict.fromkeys(h for _, _, h, _ in rows if h not in cached))
        if fresh:
            for h, vector in zip(fresh, model.embed([texts[h] for h in fresh], kind="passage")):
                cached[h] = encode(vector)
        with conn:
            for chunk_id, doc_id, h, _ in rows:
                conn.execute(f"DELETE FROM {vectors.VEC_TABLE} WHERE rowid = ?", (chunk_id,))
                conn.execute(
                    f"INSERT INTO {vectors.VEC_TABLE}(rowid, embedding, doc_id) VALUES (?, ?, ?)",
                    (chunk_id, cached[h], doc_id),
                )
                conn.execute(
                    "INSERT OR REPLACE INTO chunk_vectors(chunk_id, doc_id, content_hash) "
                    "VALUES (?, ?, ?)",
                    (chunk_id, doc_id, h),
                )
        computed += len(fresh)
        if progress and fresh:
            progress(computed, len(texts))
    removed = _drop_orphans(conn)
    return {
        "chunks": total_chunks,
        "embedded": computed,
        "reused": reused,
        "unchanged": total_chunks - len(needed),
        "removed": removed,
    }


def _drop_orphans(conn: db.Connection) -> int:
    orphans = [
        r[0]
        for r in conn.execute(
            "SELECT chunk_id FROM chunk_vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)"
        )
    ]
    with conn:
        for chunk_id in orphans:
            conn.execute(f"DELETE FROM {vectors.VEC_TABLE} WHERE rowid = ?", (chunk_id,))
        conn.execute("DELETE FROM chunk_vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)")
    return len(orphans)
