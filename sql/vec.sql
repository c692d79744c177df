-- The sqlite-vec table of chunk embeddings, created by `docql-sqlite embed` with the
-- model's dimension. rowid = chunks.id. `doc_id` is a metadata column so that path and
-- file filters are applied inside the KNN search (no starving of filtered searches).
-- Cosine distance: 0 = same direction, 2 = opposite. Query it with `k = ?` (not LIMIT)
-- so that a SQLite 3.40 shell with `.load vec0` runs the same SQL.
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vec USING vec0(
  embedding float[{dimensions}] distance_metric=cosine,
  doc_id integer
);
