"""Vectors in the index: which model made them, the vec0 table, and query vectors.

The vec0 table is created by code from `sql/vec.sql` (its dimension is the model's);
`meta` records `embedding_model`, `embedding_dimensions` and `embedding_fingerprint`,
and a query with any other model is refused (`ensure_compatible`). Writing vectors is
`embedder.py`; this module is what searches need.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from .. import db
from ..errors import EmbeddingError

if TYPE_CHECKING:  # the embed package imports numpy: BM25-only searches never load it
    from ..embedders import EmbeddingModel

VEC_TABLE = "chunks_vec"
# The `meta` keys this index format uses (the embed package's `model_meta` names differ;
# these are the documented ones, see docs/search.md).
KEY_MODEL = "embedding_model"
KEY_DIMENSIONS = "embedding_dimensions"
KEY_FINGERPRINT = "embedding_fingerprint"

# One loaded model per name per process: loading a real model takes a second, and its
# fingerprint (checked on every query) is computed once per instance.
_models: dict[str, "EmbeddingModel"] = {}
_lock = threading.Lock()


def load_model(name: str) -> EmbeddingModel:
    from ..embedders import get_model

    with _lock:
        model = _models.get(name)
        if model is None:
            model = _models[name] = get_model(name)
        return model


def start_loading(name: str) -> threading.Thread:
    """Load model `name` on a daemon thread (`EmbeddingModel.warm_up`), so that a one-off
    search overlaps the model load (a session for a real model: ~0.5 s) with its own
    SQL; the query's `load_model(name)` then gets the same instance, and waits for the
    load if it is not done. A failure is left for that call to report."""

    def run() -> None:
        try:
            load_model(name).warm_up()
        except Exception:  # noqa: BLE001 - the query's own load raises it, with context
            pass

    thread = threading.Thread(target=run, name="docql-model-load", daemon=True)
    thread.start()
    return thread


def stored_meta(conn: db.Connection) -> dict[str, str]:
    """The embedding rows of `meta` ({} when the index has no vectors)."""
    keys = (KEY_MODEL, KEY_DIMENSIONS, KEY_FINGERPRINT)
    found = {k: v for k in keys if (v := db.get_meta(conn, k)) is not None}
    return found


def vec_table_exists(conn: db.Connection) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (VEC_TABLE,)).fetchone()
    return row is not None


def has_embeddings(conn: db.Connection) -> bool:
    """True when the index holds vectors (whether or not sqlite-vec can read them here)."""
    return bool(stored_meta(conn).get(KEY_MODEL)) and vec_table_exists(conn)


def check_model(conn: db.Connection, model: EmbeddingModel) -> None:
    """Refuse `model` when the index's vectors came from a different one."""
    from ..embedders import META_DIMENSIONS, META_FINGERPRINT, META_MODEL, ensure_compatible

    meta = stored_meta(conn)
    ensure_compatible(
        {
            META_MODEL: meta.get(KEY_MODEL, ""),
            META_DIMENSIONS: meta.get(KEY_DIMENSIONS, "?"),
            META_FINGERPRINT: meta.get(KEY_FINGERPRINT, "?"),
        },
        model,
    )


def query_model(conn: db.Connection, name: str | None = None) -> EmbeddingModel:
    """The model to embed queries with: `name`, else the index's own; checked against the index."""
    meta = stored_meta(conn)
    if not has_embeddings(conn):
        raise EmbeddingError(
            "this index has no embeddings; create them with: docql-sqlite embed DB --model MODEL "
            "(e.g. --model use-multilingual, or --model hash for a lexical test model)"
        )
    if not db.has_vec(conn):
        raise EmbeddingError(
            "this index has embeddings but sqlite-vec cannot be loaded here; "
            "install it with: pip install sqlite-vec"
        )
    model = load_model(name or meta[KEY_MODEL])
    check_model(conn, model)
    return model


def vector_json(model: EmbeddingModel, text: str, kind: str = "query") -> str:
    """A query vector as JSON text: sqlite-vec reads it, and it prints as a plain SQL literal."""
    vector = model.embed_one(text, kind=kind)  # type: ignore[arg-type]
    return json.dumps([round(float(x), 7) for x in vector])


def stale_vectors(conn: db.Connection) -> int:
    """Vectors whose chunk is gone or changed since they were computed (dropped by searches)."""
    sql = """SELECT count(*) FROM chunk_vectors cv LEFT JOIN chunks c ON c.id = cv.chunk_id
             WHERE c.id IS NULL OR c.content_hash != cv.content_hash OR c.doc_id != cv.doc_id"""
    return int(db.scalar(conn, sql))


def status(conn: db.Connection) -> dict[str, Any]:
    meta = stored_meta(conn)
    vectors = db.scalar(conn, "SELECT count(*) FROM chunk_vectors") if meta else 0
    return {
        "model": meta.get(KEY_MODEL),
        "dimensions": int(meta[KEY_DIMENSIONS]) if KEY_DIMENSIONS in meta else None,
        "fingerprint": meta.get(KEY_FINGERPRINT),
        "vectors": vectors,
    }
