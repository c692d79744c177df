-- docql-sqlite schema, version 11: what references cost, smaller (issue 23's goal: at
-- most +25 % of index time and size).
--
-- * `kind` and `resolution` are small integers, their position in
--   ref_codes.REFERENCE_KINDS (0 call, 1 type, 2 inherit, 3 import) and ref_codes.RESOLUTIONS
--   (0 unresolved, 1 local, 2 import, 3 unique, 4 ambiguous): 0 and 1 take no byte of a
--   record. The compiled DocQL SQL names them again (docs/schema.md).
-- * `end_line` is NULL when it is `line` (every identifier; only an import statement's
--   references can span lines).
-- * `refs_name` is on `name` alone: no query plan used its `kind`.
-- * A code file's references wait in `refs_staged`, one row per file (a JSON array of
--   [name, kind, caller_ord, line, end_line, col] in `ord` order), until the run's
--   resolution pass inserts them into `refs` resolved and deletes the row: each row of
--   `refs` and its index is written once, not inserted and then rewritten. The row is
--   committed with its file, so a run stopped before its pass leaves it for the next.
--   `refs_staged` replaces `refs_pending_docs` (the references of the files queued
--   there move to it).
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
  doc_id  INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  refs    TEXT NOT NULL  -- JSON: [[name, kind, caller_ord, line, end_line, col], ...]
);
INSERT INTO refs_v11
  SELECT doc_id, ord, name,
    CASE kind WHEN 'call' THEN 0 WHEN 'type' THEN 1 WHEN 'inherit' THEN 2 ELSE 3 END,
    caller_ord, line, CASE WHEN end_line = line THEN NULL ELSE end_line END, col, target_id,
    CASE resolution WHEN 'local' THEN 1 WHEN 'import' THEN 2 WHEN 'unique' THEN 3
      WHEN 'ambiguous' THEN 4 ELSE 0 END,
    coalesce(candidates, 0)
  FROM refs WHERE doc_id NOT IN (SELECT doc_id FROM refs_pending_docs) ORDER BY doc_id, ord;
INSERT INTO refs_staged(doc_id, refs)
  SELECT doc_id, json_group_array(json_array(name,
    CASE kind WHEN 'call' THEN 0 WHEN 'type' THEN 1 WHEN 'inherit' THEN 2 ELSE 3 END,
    caller_ord, line, CASE WHEN end_line = line THEN NULL ELSE end_line END, col) ORDER BY ord)
  FROM refs WHERE doc_id IN (SELECT doc_id FROM refs_pending_docs) GROUP BY doc_id;
DROP TABLE refs;
DROP TABLE refs_pending_docs;
ALTER TABLE refs_v11 RENAME TO refs;
CREATE INDEX refs_name ON refs(name);
