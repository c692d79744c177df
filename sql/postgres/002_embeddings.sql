-- docql-sqlite schema for PostgreSQL, version 2: embeddings (as sql/002_embeddings.sql).
-- The vectors live in `chunks_vec` (pgvector), created from sql/postgres/vec.sql once the
-- model's dimension is known. pgvector is enabled here so that a missing extension is
-- reported when the index is created, not when the first vector arrives.

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE IF NOT EXISTS chunk_vectors (
  chunk_id     bigint PRIMARY KEY,
  doc_id       bigint NOT NULL,
  content_hash text NOT NULL
);
CREATE INDEX IF NOT EXISTS chunk_vectors_hash ON chunk_vectors(content_hash);
