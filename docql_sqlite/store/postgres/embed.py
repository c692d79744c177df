"""`embed` on a PostgreSQL index: vectors into pgvector, as `ingest/embed.py` does into vec0.

The same rules as on a file: a chunk needs a vector when `chunk_vectors` has no row for
it or its content hash or document changed; a text already embedded (by hash) is reused,
never embedded twice; each batch commits on its own; vectors of chunks that are gone are
dropped at the end; another model is refused unless `replace`, and must first embed a
probe. What concurrency adds: the vector table and the model's `meta` rows are created
under an advisory lock, and vector rows are upserts, so two writers that embed the same
chunk at once leave one row.
"""

from __future__ import annotations

import struct
import time
from typing import Any

import psycopg

from ...embedders import (
    META_DIMENSIONS,
    META_FINGERPRINT,
    META_MODEL,
    EmbeddingModel,
    encode,
    ensure_compatible,
)
from ...errors import EmbeddingError
from ...options import EmbedOptions
from ...search import vectors
from . import connect as pg

VEC_LOCK = 0x646F6303  # pg_advisory_xact_lock(int, int) key space: the vector table
_STALE = """FROM chunks c LEFT JOIN chunk_vectors cv ON cv.chunk_id = c.id
           WHERE cv.chunk_id IS NULL OR cv.content_hash != c.content_hash
              OR cv.doc_id != c.doc_id"""


def pending(url: str) -> tuple[str | None, int]:
    """(the index's embedding model or None, chunks without a current vector)."""
    conn = pg.connect(url, readonly=True)
    try:
        model = pg.get_meta(conn, vectors.KEY_MODEL)
        return model, (int(pg.scalar(conn, f"SELECT count(*) {_STALE}")) if model else 0)
    finally:
        conn.close()


def embed_index(url: str, options: EmbedOptions) -> dict[str, Any]:
    """Embed the new or changed chunks of the PostgreSQL index at `url`; a report."""
    started = time.monotonic()
    conn = pg.connect(url, create=False)
    conn.autocommit = True
    try:
        meta = _stored_meta(conn)
        # No model named and none in the index yet: the default offline model.
        name = options.model or meta.get(vectors.KEY_MODEL) or vectors.DEFAULT_MODEL
        model = vectors.load_model(name)
        removed = _prepare(conn, model, meta, options.replace)
        report = _embed_missing(conn, model, options)
        report["removed"] += removed
        report.update(
            model=model.model_id,
            dimensions=model.dimensions,
            seconds=round(time.monotonic() - started, 3),
        )
        return report
    except psycopg.Error as exc:
        raise EmbeddingError(f"embedding into {pg.safe_url(url)} failed: {pg.first_line(exc)}")
    finally:
        conn.close()


def _stored_meta(conn: psycopg.Connection) -> dict[str, str]:
    keys = (vectors.KEY_MODEL, vectors.KEY_DIMENSIONS, vectors.KEY_FINGERPRINT)
    return {k: v for k in keys if (v := pg.get_meta(conn, k)) is not None}


def _check(meta: dict[str, str], model: EmbeddingModel) -> None:
    ensure_compatible(
        {
            META_MODEL: meta.get(vectors.KEY_MODEL, ""),
            META_DIMENSIONS: meta.get(vectors.KEY_DIMENSIONS, "?"),
            META_FINGERPRINT: meta.get(vectors.KEY_FINGERPRINT, "?"),
        },
        model,
    )


def _prepare(
    conn: psycopg.Connection, model: EmbeddingModel, meta: dict[str, str], replace: bool
) -> int:
    """Check or (re)create the vector table and the meta rows; returns vectors dropped."""
    removed = 0
    if meta.get(vectors.KEY_MODEL):
        try:
            _check(meta, model)
        except EmbeddingError as err:
            if not replace:
                raise EmbeddingError(
                    f"{err.message}; to replace the vectors run: docql-sqlite embed DB "
                    f"--model {model.model_id} --replace"
                ) from None
            model.embed(["probe"], kind="passage")  # the new model runs, or nothing goes
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (VEC_LOCK,))
                removed = int(pg.scalar(conn, "SELECT count(*) FROM chunk_vectors"))
                conn.execute(f"DROP TABLE IF EXISTS {vectors.VEC_TABLE}".encode())
                conn.execute("DELETE FROM chunk_vectors")
                conn.execute(
                    "DELETE FROM meta WHERE key IN (%s, %s, %s)",
                    (vectors.KEY_MODEL, vectors.KEY_DIMENSIONS, vectors.KEY_FINGERPRINT),
                )
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (VEC_LOCK,))
        if not pg.table_exists(conn, vectors.VEC_TABLE):
            pg.create_vec_table(conn, model.dimensions)
            conn.execute("DELETE FROM chunk_vectors")  # rows without vectors are meaningless
            pg.set_meta(conn, vectors.KEY_MODEL, model.model_id)
            pg.set_meta(conn, vectors.KEY_DIMENSIONS, str(model.dimensions))
            pg.set_meta(conn, vectors.KEY_FINGERPRINT, model.fingerprint())
        else:  # another writer created it meanwhile: it must be the same model
            _check(_stored_meta(conn), model)
    return removed


def vector_literal(blob: bytes) -> str:
    """A float32 blob as pgvector text: the exact double of each float32 reads back as it."""
    values = struct.unpack(f"<{len(blob) // 4}f", blob)
    return "[" + ",".join(map(repr, values)) + "]"


def _embed_missing(
    conn: psycopg.Connection, model: EmbeddingModel, options: EmbedOptions
) -> dict[str, Any]:
    needed = [
        (int(a), int(b), str(c), str(d))
        for a, b, c, d in conn.execute(
            f"SELECT c.id, c.doc_id, c.content_hash, c.content {_STALE} ORDER BY c.id".encode()
        ).fetchall()
    ]
    total_chunks = int(pg.scalar(conn, "SELECT count(*) FROM chunks"))
    wanted = sorted({h for _, _, h, _ in needed})
    cached: dict[str, str] = dict(
        conn.execute(
            "SELECT DISTINCT ON (cv.content_hash) cv.content_hash, v.embedding::text "
            f"FROM chunk_vectors cv JOIN {vectors.VEC_TABLE} v ON v.rowid = cv.chunk_id "
            "WHERE cv.content_hash = ANY(%s)".encode(),
            (wanted,),
        ).fetchall()
    )
    texts = {h: text for _, _, h, text in needed if h not in cached}
    reused = len(needed) - sum(1 for _, _, h, _ in needed if h in texts)
    computed = 0
    if options.progress:
        options.progress(0, len(texts))
    for start in range(0, len(needed), options.batch):
        rows = needed[start : start + options.batch]
        fresh = list(dict.fromkeys(h for _, _, h, _ in rows if h not in cached))
        if fresh:
            for h, vector in zip(fresh, model.embed([texts[h] for h in fresh], kind="passage")):
                cached[h] = vector_literal(encode(vector))
        with conn.transaction(), conn.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {vectors.VEC_TABLE}(rowid, embedding, doc_id) VALUES (%s, %s, %s) "
                "ON CONFLICT (rowid) DO UPDATE SET embedding = excluded.embedding, "
                "doc_id = excluded.doc_id".encode(),
                [(chunk_id, cached[h], doc_id) for chunk_id, doc_id, h, _ in rows],
            )
            cursor.executemany(
                "INSERT INTO chunk_vectors(chunk_id, doc_id, content_hash) VALUES (%s, %s, %s) "
                "ON CONFLICT (chunk_id) DO UPDATE SET doc_id = excluded.doc_id, "
                "content_hash = excluded.content_hash",
                [(chunk_id, doc_id, h) for chunk_id, doc_id, h, _ in rows],
            )
        computed += len(fresh)
        if options.progress and fresh:
            options.progress(computed, len(texts))
    with conn.transaction():
        removed = int(
            pg.scalar(
                conn,
                f"WITH gone AS (DELETE FROM {vectors.VEC_TABLE} WHERE rowid NOT IN "
                "(SELECT id FROM chunks) RETURNING 1) SELECT count(*) FROM gone",
            )
        )
        conn.execute("DELETE FROM chunk_vectors WHERE chunk_id NOT IN (SELECT id FROM chunks)")
    return {
        "chunks": total_chunks,
        "embedded": computed,
        "reused": reused,
        "unchanged": total_chunks - len(needed),
        "removed": removed,
    }
