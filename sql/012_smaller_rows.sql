-- docql-sqlite schema, version 12: smaller rows (issue 24 item 3; what each byte of the
-- file buys is measured in docs/benchmarks.md, "Index size").
--
-- * `content_hash` (chunks and chunk_vectors) is the first 8 bytes of the sha256 of the
--   chunk's text as a BLOB (9 bytes of a record) instead of its first 32 hex digits
--   as TEXT (33 bytes): 0.39 MB of the 10.8 MB Markdown mix. It is the embedding cache
--   key; the stored vectors' keys are converted the same way, so an upgraded index
--   keeps its cache (the first 16 hex digits are those 8 bytes).
-- * `chunks.section_id` and `sections.parent_id` keep their values but no longer
--   declare a foreign key, and lose their indexes (`chunks_section`, `sections_parent`):
--   no query plan of DocQL, search, MCP or Datasette reads them (every join goes from
--   a chunk to its section, or a section to its parent, through `sections.id`); only
--   SQLite's foreign-key actions did, one index lookup per deleted section. A section
--   and its chunks are deleted with their document (`doc_id ... ON DELETE CASCADE`),
--   never alone. 0.33 MB of the Markdown mix.
-- * `sections_trigram` (schema 9) is written by the writer with each batch, no longer by
--   triggers on `sections` (below).
-- The two tables are rebuilt (SQLite cannot change a column's type or drop a foreign
-- key in place), rows in id order, so they and their indexes are also packed afresh.
-- Views that name them are dropped first (views.sql makes them again after migrating).
-- A hash that is not hex (never written by docql-sqlite) becomes x'': its vector is
-- computed again. `unhex` needs SQLite 3.41 (the apsw this package requires has it);
-- only the writer runs migrations, and a 3.40 shell reads the result.

DROP VIEW IF EXISTS toc;
DROP VIEW IF EXISTS passages;
DROP VIEW IF EXISTS codeblocks_code;

CREATE TABLE chunks_v12 (
  id           INTEGER PRIMARY KEY,
  doc_id       INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  section_id   INTEGER,               -- sections.id of the innermost section (NULL: the preamble)
  chunk_index  INTEGER NOT NULL,      -- position in the document, from 0
  line         INTEGER NOT NULL,
  end_line     INTEGER NOT NULL,
  page         INTEGER,
  start_offset INTEGER NOT NULL,      -- character offset of the chunk in the document text
  end_offset   INTEGER NOT NULL,
  content      TEXT NOT NULL,         -- the exact text of lines line..end_line, each ending in '\n'
  fold         TEXT,                  -- content with non-ASCII characters casefolded; NULL when equal to content
  content_hash BLOB NOT NULL          -- first 8 bytes of the sha256 of content (embedding cache key)
);
INSERT INTO chunks_v12
  SELECT id, doc_id, section_id, chunk_index, line, end_line, page, start_offset,
    end_offset, content, fold,
    CASE WHEN typeof(content_hash) = 'blob' THEN content_hash
      ELSE coalesce(unhex(substr(content_hash, 1, 16)), x'') END
  FROM chunks ORDER BY id;
DROP TABLE chunks;
ALTER TABLE chunks_v12 RENAME TO chunks;
CREATE INDEX chunks_doc ON chunks(doc_id, chunk_index);

CREATE TABLE sections_v12 (
  id           INTEGER PRIMARY KEY,
  doc_id       INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord          INTEGER NOT NULL,      -- position of the heading in its document, from 0
  level        INTEGER NOT NULL,      -- 1-6 as written
  depth        INTEGER NOT NULL,      -- 1 + number of ancestors
  title        TEXT NOT NULL,
  title_fold   TEXT NOT NULL,         -- casefolded title, for case-insensitive matching in plain SQL
  number       TEXT NOT NULL,         -- "1.2.3", relative to the shallowest level in the document
  anchor       TEXT NOT NULL,         -- unique within the document
  parent_id    INTEGER,               -- sections.id of the enclosing section (same document)
  line         INTEGER NOT NULL,      -- the heading's line
  end_line     INTEGER NOT NULL,      -- last line of the section, sub-sections included
  own_end_line INTEGER NOT NULL,      -- last line of the section's own text (before its first sub-section)
  page         INTEGER
);
INSERT INTO sections_v12
  SELECT id, doc_id, ord, level, depth, title, title_fold, number, anchor, parent_id, line,
    end_line, own_end_line, page
  FROM sections ORDER BY id;
-- Its triggers go first: with foreign keys on, DROP TABLE deletes the rows first, and the
-- cascade of `parent_id` would delete every sub-section's title from `sections_trigram`
-- through them. The trigram index keeps its rows (same ids, same titles). The triggers
-- are not made again: the writer writes `sections_trigram` with each batch of documents,
-- as it writes `chunks_fts` (row by row inside each document's savepoint they cost 0.25
-- CPU s of a 3 s index run of the Markdown mix). Who changes `sections` by other means
-- re-syncs it with: INSERT INTO sections_trigram(sections_trigram) VALUES ('rebuild').
DROP TRIGGER IF EXISTS sections_trigram_insert;
DROP TRIGGER IF EXISTS sections_trigram_delete;
DROP TRIGGER IF EXISTS sections_trigram_update;
DROP TABLE sections;
ALTER TABLE sections_v12 RENAME TO sections;
CREATE INDEX sections_doc ON sections(doc_id, ord);
CREATE INDEX sections_anchor ON sections(anchor, doc_id);
CREATE INDEX sections_number_doc ON sections(number, doc_id);

CREATE TABLE chunk_vectors_v12 (
  chunk_id     INTEGER PRIMARY KEY,   -- = chunks.id = chunks_vec.rowid
  doc_id       INTEGER NOT NULL,      -- chunks.doc_id (also the vec0 metadata column)
  content_hash BLOB NOT NULL          -- chunks.content_hash when the vector was computed
);
INSERT INTO chunk_vectors_v12
  SELECT chunk_id, doc_id,
    CASE WHEN typeof(content_hash) = 'blob' THEN content_hash
      ELSE coalesce(unhex(substr(content_hash, 1, 16)), x'') END
  FROM chunk_vectors ORDER BY chunk_id;
DROP TABLE chunk_vectors;
ALTER TABLE chunk_vectors_v12 RENAME TO chunk_vectors;
CREATE INDEX chunk_vectors_hash ON chunk_vectors(content_hash);
