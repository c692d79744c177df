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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import db
from ..embedders import EmbeddingModel, encode
from ..errors import EmbeddingError
from . import vectors as V

Progress = Callable[[int, int], None]  # (texts done, texts to embed)
BATCH = 256  # chunks per transaction (the model batches further inside)


def embed(
    db_path: str | Path,
    model_name: str | None = None,
    *,
    progress: Progress | None = None,
    replace: bool = False,
    batch: int = BATCH,
) -> dict[str, Any]:
    """Embed the new or changed chunks of the index at `db_path`; returns a report.

    `model_name` defaults to the model the index was embedded with. A different model is
    refused unless `replace=True`, which drops every stored vector first.
    """
    started = time.monotonic()
    conn = db.connect(db_path)
    try:
        if not db.has_vec(conn):
            raise EmbeddingError(
                "sqlite-vec cannot be loaded here, so vectors cannot be stored; pip install "
                "sqlite-vec"
            )
        meta = V.stored_meta(conn)
        name = model_name or meta.get(V.KEY_MODEL)
        if not name:
            raise EmbeddingError(
                "no embedding model given and the index has none yet; "
                "use --model MODEL (e.g. use-multilingual, or hash for tests)"
            )
        model = V.load_model(name)
        removed = _prepare(conn, model, meta, replace)
        report = _embed_missing(conn, model, progress, batch)
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
        model = V.stored_meta(conn).get(V.KEY_MODEL)
        return model, (conn.execute(f"SELECT count(*) {_STALE}").fetchone()[0] if model else 0)
    finally:
        conn.close()


def _prepare(
    conn: db.Connection, model: EmbeddingModel, meta: dict[str, str], replace: bool
) -> int:
    """Check or (re)create the vec0 table and the meta rows; returns vectors dropped."""
    removed = 0
    if meta.get(V.KEY_MODEL):
        try:
            V.check_model(conn, model)
        except EmbeddingError as err:
            if not replace:
                raise EmbeddingError(
                    f"{err.message}; to replace the vectors run: docql-sqlite embed DB "
                    f"--model {model.model_id} --replace"
                ) from None
            removed = conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]
            with conn:
                conn.execute(f"DROP TABLE IF EXISTS {V.VEC_TABLE}")
                conn.execute("DELETE FROM chunk_vectors")
                conn.execute(
                    "DELETE FROM meta WHERE key IN (?, ?, ?)",
                    (V.KEY_MODEL, V.KEY_DIMENSIONS, V.KEY_FINGERPRINT),
                )
    if not V.vec_table_exists(conn):
        template = (db.sql_dir() / "vec.sql").read_text(encoding="utf-8")
        with conn:
            conn.execute(template.replace("{dimensions}", str(int(model.dimensions))))
            conn.execute("DELETE FROM chunk_vectors")  # rows without vectors are meaningless
            db.set_meta(conn, V.KEY_MODEL, model.model_id)
            db.set_meta(conn, V.KEY_DIMENSIONS, str(model.dimensions))
            db.set_meta(conn, V.KEY_FINGERPRINT, model.fingerprint())
    return removed


def _embed_missing(
    conn: db.Connection, model: EmbeddingModel, progress: Progress | None, batch: int
) -> dict[str, Any]:
    needed = conn.execute(
        f"SELECT c.id, c.doc_id, c.content_hash, c.content {_STALE} ORDER BY c.id"
    ).fetchall()
    total_chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    # The cache: every stored vector whose text (by hash) is needed again, read before
    # any row is overwritten (a reused chunk id may hold a vector another chunk needs).
    wanted = {h for _, _, h, _ in needed}
    cached: dict[str, bytes] = {}
    for chunk_id, content_hash in conn.execute("SELECT chunk_id, content_hash FROM chunk_vectors"):
        if content_hash in wanted and content_hash not in cached:
            row = conn.execute(
                f"SELECT embedding FROM {V.VEC_TABLE} WHERE rowid = ?", (chunk_id,)
            ).fetchone()
            if row is not None:
                cached[content_hash] = row[0]
    texts = {h: text for _, _, h, text in needed if h not in cached}
    todo = list(texts)
    computed = 0
    if progress:
        progress(0, len(todo))
    for start in range(0, len(todo), batch):
        hashes = todo[start : start + batch]
        for h, vector in zip(hashes, model.embed([texts[h] for h in hashes], kind="passage")):
            cached[h] = encode(vector)
        computed += len(hashes)
        if progress:
            progress(computed, len(todo))
    reused = sum(1 for _, _, h, _ in needed if h not in texts)
    for start in range(0, len(needed), batch):
        with conn:
            for chunk_id, doc_id, h, _ in needed[start : start + batch]:
                conn.execute(f"DELETE FROM {V.VEC_TABLE} WHERE rowid = ?", (chunk_id,))
                conn.execute(
                    f"INSERT INTO {V.VEC_TABLE}(rowid, embedding, doc_id) VALUES (?, ?, ?)",
                    (chunk_id, cached[h], doc_id),
                )
                conn.execute(
                    "INSERT OR REPLACE INTO chunk_vectors(chunk_id, doc_id, content_hash) VALUES "
                    "(?, ?, ?)",
                    (chunk_id, doc_id, h),
                )
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
            conn.execute(f"DELETE FROM {V.VEC_TABLE} WHERE rowid = ?", (chunk_id,))
        conn.execute("DELETE FROM chunk_vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)")
    return len(orphans)
