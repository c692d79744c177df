-- The pgvector table of chunk embeddings (SQLite: the vec0 table of sql/vec.sql).
-- rowid = chunks.id; doc_id as in vec0's metadata column. HNSW over cosine distance
-- (`<=>`: 0 = same direction, 2 = opposite), the same distance sqlite-vec reports.
CREATE TABLE IF NOT EXISTS chunks_vec (
  rowid     bigint PRIMARY KEY,
  embedding vector({dimensions}) NOT NULL,
  doc_id    bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_vec_hnsw ON chunks_vec USING hnsw (embedding vector_cosine_ops);
