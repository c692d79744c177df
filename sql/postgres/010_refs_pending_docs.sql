-- docql-sqlite schema for PostgreSQL, version 10 (as sql/010_refs_pending_docs.sql): the
-- documents whose references wait for the resolution pass, by id.
CREATE TABLE IF NOT EXISTS refs_pending_docs (
  doc_id bigint PRIMARY KEY
);
INSERT INTO refs_pending_docs(doc_id)
  SELECT DISTINCT doc_id FROM refs WHERE resolution IS NULL ON CONFLICT DO NOTHING;
UPDATE refs SET resolution = 'unresolved', candidates = 0 WHERE resolution IS NULL;
DROP INDEX IF EXISTS refs_unresolved;
