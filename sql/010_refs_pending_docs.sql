-- docql-sqlite schema, version 10: the documents whose references wait for the
-- resolution pass are queued by id, not found through a partial index on
-- `resolution IS NULL` (issue 23, the cost of references). A reference is written
-- `unresolved` (no candidates) and the pass updates only the rows whose link differs:
-- most references (to built-ins, the standard library, dependencies) are written once,
-- not inserted and then rewritten.
CREATE TABLE IF NOT EXISTS refs_pending_docs (
  doc_id INTEGER PRIMARY KEY  -- documents.id; a deleted document's id is simply passed over
);
INSERT OR IGNORE INTO refs_pending_docs(doc_id)
  SELECT DISTINCT doc_id FROM refs WHERE resolution IS NULL;
UPDATE refs SET resolution = 'unresolved', candidates = 0 WHERE resolution IS NULL;
DROP INDEX IF EXISTS refs_unresolved;
