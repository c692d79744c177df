-- docql-sqlite schema, version 2: embeddings.
-- The vectors themselves live in the sqlite-vec table `chunks_vec` (rowid = chunks.id),
-- created by code from sql/vec.sql once the model's dimension is known. This plain table,
-- readable without sqlite-vec, says which chunk text each vector was computed from.
-- It has no foreign key on purpose: when a document is re-indexed its chunks get new
-- ids, and the rows of the old ones are the embedding cache (same content_hash, same
-- model → same vector) until the next `docql-sqlite embed` reuses and then drops them.
-- A vector is current only while content_hash and doc_id equal the chunk's (ids of deleted
-- chunks can be reused by new ones).
-- meta keys: embedding_model, embedding_dimensions, embedding_fingerprint.

CREATE TABLE IF NOT EXISTS chunk_vectors (
  chunk_id     INTEGER PRIMARY KEY,   -- = chunks.id = chunks_vec.rowid
  doc_id       INTEGER NOT NULL,      -- chunks.doc_id (also the vec0 metadata column)
  content_hash TEXT NOT NULL          -- chunks.content_hash when the vector was computed
);
CREATE INDEX IF NOT EXISTS chunk_vectors_hash ON chunk_vectors(content_hash);
