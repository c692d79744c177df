-- docql-sqlite schema for PostgreSQL, version 3 (as sql/003_document_settings.sql):
-- per-document chunk settings and lossless file names.
ALTER TABLE documents ADD COLUMN IF NOT EXISTS chunk_chars bigint;
ALTER TABLE documents ADD COLUMN IF NOT EXISTS uri_bytes bytea;
