-- docql-sqlite schema, version 11: what references cost, smaller (issue 23's goal: at
-- most +25 % of index time and size).
--
-- * `kind` and `resolution` are small integers, their position in
--   model.REFERENCE_KINDS (0 call, 1 type, 2 inherit, 3 import) and model.RESOLUTIONS
--   (0 unresolved, 1 local, 2 import, 3 unique, 4 ambiguous): 0 and 1 take no byte of a
--   record. The compiled DocQL SQL names them again (docs/schema.md).
-- * `end_line` is NULL when it is `line` (every identifier; only an import statement's
--   references can span lines).
-- * `refs_name` is on `name` alone: no query plan used its `kind`.
-- * A code file's references are held in `refs_staged` until the run's resolution pass,
--   which inserts them into `refs` resolved and deletes them there: each row is written
--   once into `refs` and its index, not inserted and then rewritten. `refs_staged`
--   replaces `refs_pending_docs` (the references of the files queued there move to it).
CREATE TABLE refs_v11 (
  doc_id      INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord         INTEGER NOT NULL,
  name        TEXT NOT NULL,
  kind        INTEGER NOT NULL,     -- 0 call | 1 type | 2 inherit | 3 import
  caller_ord  INTEGER,              -- symbols.ord (same doc_id) of the innermost enclosing symbol; NULL at top level
  line        INTEGER NOT NULL,
  end_line    INTEGER,              -- NULL: the same as line
  col         INTEGER NOT NULL,
  target_id   INTEGER,              -- symbols.id of the definition, when resolved
  resolution  INTEGER NOT NULL,     -- 0 unresolved | 1 local | 2 import | 3 unique | 4 ambiguous
  candidates  INTEGER NOT NULL,     -- definitions of that name (and a fitting kind) in the index
  PRIMARY KEY (doc_id, ord)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS refs_staged (
  doc_id      INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord         INTEGER NOT NULL,
  name        TEXT NOT NULL,
  kind        INTEGER NOT NULL,
  caller_ord  INTEGER,
  line        INTEGER NOT NULL,
  end_line    INTEGER,
  col         INTEGER NOT NULL,
  PRIMARY KEY (doc_id, ord)
) WITHOUT ROWID;
INSERT INTO refs_v11
  SELECT doc_id, ord, name,
    CASE kind WHEN 'call' THEN 0 WHEN 'type' THEN 1 WHEN 'inherit' THEN 2 ELSE 3 END,
    caller_ord, line, CASE WHEN end_line = line THEN NULL ELSE end_line END, col, target_id,
    CASE resolution WHEN 'local' THEN 1 WHEN 'import' THEN 2 WHEN 'unique' THEN 3
      WHEN 'ambiguous' THEN 4 ELSE 0 END,
    coalesce(candidates, 0)
  FROM refs WHERE doc_id NOT IN (SELECT doc_id FROM refs_pending_docs) ORDER BY doc_id, ord;
INSERT INTO refs_staged
  SELECT doc_id, ord, name,
    CASE kind WHEN 'call' THEN 0 WHEN 'type' THEN 1 WHEN 'inherit' THEN 2 ELSE 3 END,
    caller_ord, line, CASE WHEN end_line = line THEN NULL ELSE end_line END, col
  FROM refs WHERE doc_id IN (SELECT doc_id FROM refs_pending_docs) ORDER BY doc_id, ord;
DROP TABLE refs;
DROP TABLE refs_pending_docs;
ALTER TABLE refs_v11 RENAME TO refs;
CREATE INDEX refs_name ON refs(name);
