-- docql-sqlite schema, version 1.
-- The single source of truth for the index layout (docs/schema.md explains it for shell users).
-- Readable by a SQLite 3.40 shell: built-in FTS5 tokenizer only, no contentless_delete,
-- JSON stored as text. Lines are 1-based and inclusive; offsets are 0-based characters.

CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- One row per indexed file or URL.
CREATE TABLE IF NOT EXISTS documents (
  id          INTEGER PRIMARY KEY,
  path        TEXT NOT NULL,          -- what users see and filter on
  uri         TEXT NOT NULL UNIQUE,   -- identity: absolute path or final URL
  name        TEXT NOT NULL,          -- base name with extension
  directory   TEXT NOT NULL,          -- path without the name ('' at the top)
  extension   TEXT NOT NULL,          -- without the dot, lower case ('' when none)
  format      TEXT NOT NULL,          -- markdown, code, pdf, rst, html, docx, text
  language    TEXT,                   -- programming language of code files
  title       TEXT,
  size        INTEGER NOT NULL,       -- bytes
  lines       INTEGER NOT NULL,
  pages       INTEGER,                -- PDF page count
  mtime       REAL,                   -- seconds since the epoch
  mtime_ns    INTEGER,
  sha256      TEXT NOT NULL,
  header_text TEXT NOT NULL DEFAULT '', -- lines before body_line (front matter), verbatim
  body_line   INTEGER NOT NULL DEFAULT 1, -- first line that belongs to chunks
  indexed_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_path ON documents(path);

-- The table of contents: one row per heading, flattened pre-order (ord).
CREATE TABLE IF NOT EXISTS sections (
  id           INTEGER PRIMARY KEY,
  doc_id       INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord          INTEGER NOT NULL,      -- position of the heading in its document, from 0
  level        INTEGER NOT NULL,      -- 1-6 as written
  depth        INTEGER NOT NULL,      -- 1 + number of ancestors
  title        TEXT NOT NULL,
  title_fold   TEXT NOT NULL,         -- casefolded title, for case-insensitive matching in plain SQL
  number       TEXT NOT NULL,         -- "1.2.3", relative to the shallowest level in the document
  anchor       TEXT NOT NULL,         -- unique within the document
  parent_id    INTEGER REFERENCES sections(id) ON DELETE CASCADE,
  line         INTEGER NOT NULL,      -- the heading's line
  end_line     INTEGER NOT NULL,      -- last line of the section, sub-sections included
  own_end_line INTEGER NOT NULL,      -- last line of the section's own text (before its first sub-section)
  page         INTEGER
);
CREATE INDEX IF NOT EXISTS sections_doc ON sections(doc_id, ord);
CREATE INDEX IF NOT EXISTS sections_number ON sections(number);
CREATE INDEX IF NOT EXISTS sections_parent ON sections(parent_id);

-- Size-bounded pieces that tile each document body; each lies in exactly one innermost
-- section's own text (section_id) or in the preamble (section_id NULL).
CREATE TABLE IF NOT EXISTS chunks (
  id           INTEGER PRIMARY KEY,
  doc_id       INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  section_id   INTEGER REFERENCES sections(id) ON DELETE CASCADE,
  chunk_index  INTEGER NOT NULL,      -- position in the document, from 0
  line         INTEGER NOT NULL,
  end_line     INTEGER NOT NULL,
  page         INTEGER,
  start_offset INTEGER NOT NULL,      -- character offset of the chunk in the document text
  end_offset   INTEGER NOT NULL,
  content      TEXT NOT NULL,         -- the exact text of lines line..end_line, each ending in '\n'
  fold         TEXT,                  -- content with non-ASCII characters casefolded; NULL when equal to content
  content_hash TEXT NOT NULL          -- first 32 hex digits of the sha256 of content (embedding cache key)
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, chunk_index);
CREATE INDEX IF NOT EXISTS chunks_section ON chunks(section_id);

-- Full-text index over chunks (rowid = chunks.id). Contentless: the text lives in chunks.
-- Columns hold the text with a space around every CJK character, so any run of 1+ CJK
-- characters is findable as a phrase ('"架 构"'). title = the chunk's section title.
-- (Schema 6, sql/006_fts_body_first.sql, re-creates it with the columns (body, title).)
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  title, body,
  content = '',
  tokenize = 'unicode61 remove_diacritics 2'
);

-- Fenced code blocks. `code` is NULL when the code is exactly the document text between
-- character offsets body_start and body_end (the usual case: the lines between the fences),
-- so it is not stored twice; the `codeblocks_code` view and DocQL rebuild it from chunks.
CREATE TABLE IF NOT EXISTS codeblocks (
  id         INTEGER PRIMARY KEY,
  doc_id     INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord        INTEGER NOT NULL,
  language   TEXT,
  code       TEXT,
  line       INTEGER NOT NULL,
  end_line   INTEGER NOT NULL,
  body_start INTEGER,
  body_end   INTEGER
);
CREATE INDEX IF NOT EXISTS codeblocks_doc ON codeblocks(doc_id, ord);

CREATE TABLE IF NOT EXISTS tables (
  id           INTEGER PRIMARY KEY,
  doc_id       INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord          INTEGER NOT NULL,
  headers      TEXT NOT NULL,         -- JSON array of strings
  rows         TEXT NOT NULL,         -- JSON array of arrays of strings
  row_count    INTEGER NOT NULL,
  column_count INTEGER NOT NULL,
  line         INTEGER NOT NULL,
  end_line     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tables_doc ON tables(doc_id, ord);

CREATE TABLE IF NOT EXISTS frontmatter (
  doc_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  data   TEXT NOT NULL                -- JSON object (text, never JSONB)
);

CREATE TABLE IF NOT EXISTS entities (
  id          INTEGER PRIMARY KEY,
  doc_id      INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord         INTEGER NOT NULL,
  entity_type TEXT NOT NULL,          -- Term, API, ClassEntity, FunctionEntity, ConstructorEntity
  name        TEXT NOT NULL,
  name_fold   TEXT NOT NULL,
  signature   TEXT,
  definition  TEXT,
  line        INTEGER NOT NULL,
  end_line    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS entities_doc ON entities(doc_id, ord);

CREATE TABLE IF NOT EXISTS symbols (
  id             INTEGER PRIMARY KEY,
  doc_id         INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord            INTEGER NOT NULL,
  kind           TEXT NOT NULL,       -- class, interface, enum, struct, trait, function, method, constructor...
  name           TEXT NOT NULL,
  name_fold      TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  signature      TEXT,
  language       TEXT NOT NULL,
  parent         TEXT,                -- qualified name of the enclosing symbol
  line           INTEGER NOT NULL,
  end_line       INTEGER NOT NULL,
  docstring      TEXT
);
CREATE INDEX IF NOT EXISTS symbols_doc ON symbols(doc_id, ord);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name_fold);

-- Files that could not be indexed (severity 'error') and files indexed with a caveat
-- ('warning'). Errors are replaced on every run; a file that later succeeds loses its row.
CREATE TABLE IF NOT EXISTS ingest_errors (
  id        INTEGER PRIMARY KEY,
  path      TEXT NOT NULL,
  uri       TEXT NOT NULL,
  severity  TEXT NOT NULL CHECK (severity IN ('error', 'warning')),
  reason    TEXT NOT NULL,
  at        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ingest_errors_uri ON ingest_errors(uri);
