-- docql-sqlite schema for PostgreSQL, version 11 (as sql/011_refs_compact.sql): `kind` and
-- `resolution` as small integers, `end_line` NULL when it is `line`, `refs_name` on the
-- name alone, and `refs_staged` (the references waiting for the resolution pass) in place
-- of `refs_pending_docs`, one row per file. Unlike SQLite's, `refs_staged` has no foreign key: a writer
-- deleting a document must not wait on the staged rows a resolution pass is taking while
-- the pass waits on that document's row (a deadlock). A writer replacing a document
-- (same id) deletes its staged rows itself; the pass drops those of documents that are
-- gone, whose ids PostgreSQL's sequence never gives again.
CREATE TABLE IF NOT EXISTS refs_staged (
  doc_id  bigint PRIMARY KEY,
  refs    text NOT NULL
);
INSERT INTO refs_staged(doc_id, refs)
  SELECT doc_id, json_agg(json_build_array(name,
    CASE kind WHEN 'call' THEN 0 WHEN 'type' THEN 1 WHEN 'inherit' THEN 2 ELSE 3 END,
    caller_ord, line, CASE WHEN end_line = line THEN NULL ELSE end_line END, col) ORDER BY ord)::text
  FROM refs WHERE doc_id IN (SELECT doc_id FROM refs_pending_docs) GROUP BY doc_id;
DELETE FROM refs WHERE doc_id IN (SELECT doc_id FROM refs_pending_docs);
DROP TABLE refs_pending_docs;
DROP INDEX IF EXISTS refs_name;  -- (name, kind): rebuilt on the name alone below
ALTER TABLE refs ALTER COLUMN kind TYPE smallint USING
  CASE kind WHEN 'call' THEN 0 WHEN 'type' THEN 1 WHEN 'inherit' THEN 2 ELSE 3 END;
ALTER TABLE refs ALTER COLUMN resolution TYPE smallint USING
  CASE resolution WHEN 'local' THEN 1 WHEN 'import' THEN 2 WHEN 'unique' THEN 3
    WHEN 'ambiguous' THEN 4 ELSE 0 END;
ALTER TABLE refs ALTER COLUMN end_line DROP NOT NULL;
UPDATE refs SET end_line = NULL WHERE end_line = line;
UPDATE refs SET candidates = 0 WHERE candidates IS NULL;
ALTER TABLE refs ALTER COLUMN resolution SET NOT NULL;
ALTER TABLE refs ALTER COLUMN candidates SET NOT NULL;
CREATE INDEX refs_name ON refs(name);
