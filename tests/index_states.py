"""Canonical states of an index, compared between interrupted and uninterrupted runs.

Shared by the crash and failure tests (tests/test_ingest_incremental.py,
tests/test_embed_crash.py, tests/test_write_failures.py, tests/test_file_changes.py):

- `document_states`: uri -> a digest of every row the index holds for that document
  (without row ids and times), plus the recorded problems;
- `check_after_crash_states`: integrity_check, FTS integrity-check, and every document
  in its old or its new state (never a mix, none that is in both versions lost);
- `vector_state` / `check_vectors`: the vectors an index holds, and that each one stored
  for a chunk's current text is exactly the embedder's vector of that text.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import apsw
import numpy as np

from docql_sqlite.embedders import encode
from docql_sqlite.search import vectors
from docql_sqlite.store.sqlite import db as dbmod

SECTIONS_STATE = (
    "SELECT s.ord, s.level, s.depth, s.title, s.number, s.anchor, p.ord, s.line, s.end_line, "
    "s.own_end_line FROM sections s LEFT JOIN sections p ON p.id = s.parent_id "
    "WHERE s.doc_id = ? ORDER BY s.ord"
)
CHUNKS_STATE = (
    "SELECT c.chunk_index, c.line, c.end_line, c.start_offset, c.content, s.ord FROM chunks c "
    "LEFT JOIN sections s ON s.id = c.section_id WHERE c.doc_id = ? ORDER BY c.chunk_index"
)


def document_states(db: Path) -> dict[str, str]:
    """uri -> a digest of everything the index holds for that document except row ids and
    times: the canonical dump compared between interrupted and uninterrupted runs."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        extra = {}
        for table in ("codeblocks", "tables", "entities", "symbols"):
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            kept = ", ".join(c for c in columns if c not in ("id", "doc_id"))
            extra[table] = f"SELECT {kept} FROM {table} WHERE doc_id = ? ORDER BY ord"
        states = {}
        docs = conn.execute(
            "SELECT id, uri, path, sha256, size, lines, format, title, header_text, body_line, "
            "chunk_chars FROM documents"
        ).fetchall()
        for doc_id, uri, *fields in docs:
            parts = [repr(fields)]
            for sql in (SECTIONS_STATE, CHUNKS_STATE, *extra.values()):
                parts.append(repr(conn.execute(sql, (doc_id,)).fetchall()))
            digest = hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass"))
            states[uri] = digest.hexdigest()
        errors = conn.execute("SELECT uri, severity, reason FROM ingest_errors ORDER BY 1, 2, 3")
        states["(ingest_errors)"] = repr(errors.fetchall())
        return states
    finally:
        conn.close()


def check_after_crash_states(db: Path, state_a: dict[str, str], state_b: dict[str, str]) -> None:
    """A consistent file, and every document in its version-A or version-B state."""
    check_integrity(db)
    now = document_states(db)
    now.pop("(ingest_errors)")
    for uri, digest in now.items():
        assert digest in (state_a.get(uri), state_b.get(uri)), f"{uri} is in neither state"
    for uri in state_a.keys() & state_b.keys():
        if uri != "(ingest_errors)":
            assert uri in now, f"{uri} vanished though it is in both versions"


def check_integrity(db: Path) -> None:
    """integrity_check, the FTS5 integrity-check, one FTS row per chunk (a read-write
    connection: it replays the WAL as the next user would)."""
    conn = apsw.Connection(str(db))
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES('integrity-check')")
        assert (
            conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
            == conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        )
    finally:
        conn.close()


def vector_state(db: Path) -> dict[str, object]:
    """Everything the index holds about vectors: the model rows of meta, and per chunk id
    (doc_id, content_hash, vec0 doc_id, embedding bytes); {} rows when there is no table."""
    conn = dbmod.connect(db, readonly=True)
    try:
        meta = vectors.stored_meta(conn)
        rows: dict[int, tuple[object, ...]] = {}
        if vectors.vec_table_exists(conn):
            vec = {
                int(r[0]): (r[1], bytes(r[2]))
                for r in conn.execute(f"SELECT rowid, doc_id, embedding FROM {vectors.VEC_TABLE}")
            }
            listed = conn.execute("SELECT chunk_id, doc_id, content_hash FROM chunk_vectors")
            for chunk_id, doc_id, content_hash in listed.fetchall():
                vec_doc, blob = vec.pop(int(chunk_id), (None, b""))
                rows[int(chunk_id)] = (doc_id, content_hash, vec_doc, blob)
            assert not vec, f"vec0 rows without a chunk_vectors row: {sorted(vec)[:5]}"
        else:
            assert dbmod.scalar(conn, "SELECT count(*) FROM chunk_vectors") == 0
        return {"meta": meta, "rows": rows}
    finally:
        conn.close()


def check_vectors(
    db: Path, expected: dict[str, bytes] | None = None, min_cosine: float | None = None
) -> dict[str, object]:
    """Every stored vector is whole and right: one vec0 row per chunk_vectors row, with the
    same doc_id, and for each chunk whose current text it was made from, exactly the
    embedder's vector of that text (`expected`: "model hash" -> bytes, filled as needed;
    shared between calls and between models: a --replace test sees both).

    `min_cosine`: for a model whose vectors depend on the batch a text is embedded in
    (use-multilingual: its quantized graph scales activations over the whole batch, so a
    text alone and the same text among 255 others differ in the last bits, cosine about
    0.998), each stored vector must instead be within that cosine of the text's vector,
    and no nearer to any other text's vector than to its own (a vector stored for the
    wrong chunk fails that unless the two texts embed alike).
    Returns the `vector_state`."""
    state = vector_state(db)
    rows: dict[int, tuple[object, ...]] = state["rows"]  # type: ignore[assignment]
    meta: dict[str, str] = state["meta"]  # type: ignore[assignment]
    if not rows:
        return state
    assert meta.get(vectors.KEY_MODEL), "vectors stored but no model recorded"
    model = vectors.load_model(meta[vectors.KEY_MODEL])
    expected = {} if expected is None else expected
    conn = dbmod.connect(db, readonly=True)
    try:
        chunks = {
            int(r[0]): (r[1], r[2], r[3])
            for r in conn.execute("SELECT id, doc_id, content_hash, content FROM chunks")
        }
    finally:
        conn.close()
    current_rows = {}
    for chunk_id, (doc_id, content_hash, vec_doc, blob) in rows.items():
        assert vec_doc == doc_id, f"chunk {chunk_id}: vec0 doc_id {vec_doc} != {doc_id}"
        current = chunks.get(chunk_id)
        if current is None or current[1] != content_hash or current[0] != doc_id:
            continue  # a stale vector (its chunk changed since): the next embed replaces it
        key = f"{model.model_id} {content_hash}"
        if key not in expected:
            expected[key] = encode(model.embed([current[2]], kind="passage")[0])
        current_rows[chunk_id] = (blob, expected[key])
    if min_cosine is None:
        for chunk_id, (blob, want) in current_rows.items():
            assert blob == want, f"chunk {chunk_id}: not the vector of its text"
    else:
        _check_near(current_rows, min_cosine)
    return state


def _check_near(current_rows: dict[int, tuple[bytes, bytes]], min_cosine: float) -> None:
    ids = sorted(current_rows)
    stored = np.stack([np.frombuffer(current_rows[i][0], dtype=np.float32) for i in ids])
    wanted = np.stack([np.frombuffer(current_rows[i][1], dtype=np.float32) for i in ids])
    stored = stored / np.linalg.norm(stored, axis=1, keepdims=True)
    wanted = wanted / np.linalg.norm(wanted, axis=1, keepdims=True)
    similarity = stored @ wanted.T  # [stored i, text j]
    own = np.diag(similarity)
    for k, chunk_id in enumerate(ids):
        assert own[k] >= min_cosine, (
            f"chunk {chunk_id}: not the vector of its text (cosine {own[k]:.4f} < {min_cosine})"
        )
        nearest = int(similarity[k].argmax())
        assert similarity[k, nearest] <= own[k] + 1e-6, (
            f"chunk {chunk_id}: not the vector of its text (nearer to chunk {ids[nearest]}'s)"
        )


def check_whole_batches(state: dict[str, object], ids: list[int], batch: int) -> int:
    """The vectors of a fresh embed that stopped part-way are its finished batches: the
    first k batches of the chunks by id (`ids`), nothing of an unfinished one. Returns k."""
    stored = sorted(state["rows"])  # type: ignore[call-overload]
    assert stored == ids[: len(stored)], "stored vectors are not the first batches"
    assert len(stored) % batch == 0 or len(stored) == len(ids), f"{len(stored)} of a batch"
    return len(stored) // batch
