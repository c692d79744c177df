-- docql-sqlite schema for PostgreSQL, version 1: the same tables and columns as
-- sql/001_init.sql (the SQLite schema, the source of truth; docs/scale-out.md lists the
-- differences). Types map INTEGER -> bigint, REAL -> double precision, TEXT -> text.
-- JSON stays text, as in the file, so copies are byte-identical both ways.

CREATE TABLE IF NOT EXISTS meta (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE IF NOT EXISTS documents (
  id          bigint PRIMARY KEY,
  path        text NOT NULL,
  uri         text NOT NULL UNIQUE,
  name        text NOT NULL,
  directory   text NOT NULL,
  extension   text NOT NULL,
  format      text NOT NULL,
  language    text,
  title       text,
  size        bigint NOT NULL,
  lines       bigint NOT NULL,
  pages       bigint,
  mtime       double precision,
  mtime_ns    bigint,
  sha256      text NOT NULL,
  header_text text NOT NULL DEFAULT '',
  body_line   bigint NOT NULL DEFAULT 1,
  indexed_at  text NOT NULL
);
-- COLLATE "C": byte order, as SQLite's BINARY collation sorts paths.
CREATE INDEX IF NOT EXISTS documents_path ON documents(path COLLATE "C");

CREATE TABLE IF NOT EXISTS sections (
  id           bigint PRIMARY KEY,
  doc_id       bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord          bigint NOT NULL,
  level        bigint NOT NULL,
  depth        bigint NOT NULL,
  title        text NOT NULL,
  title_fold   text NOT NULL,
  number       text NOT NULL,
  anchor       text NOT NULL,
  parent_id    bigint REFERENCES sections(id) ON DELETE CASCADE,
  line         bigint NOT NULL,
  end_line     bigint NOT NULL,
  own_end_line bigint NOT NULL,
  page         bigint
);
CREATE INDEX IF NOT EXISTS sections_doc ON sections(doc_id, ord);
CREATE INDEX IF NOT EXISTS sections_number ON sections(number);
CREATE INDEX IF NOT EXISTS sections_parent ON sections(parent_id);

CREATE TABLE IF NOT EXISTS chunks (
  id           bigint PRIMARY KEY,
  doc_id       bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  section_id   bigint REFERENCES sections(id) ON DELETE CASCADE,
  chunk_index  bigint NOT NULL,
  line         bigint NOT NULL,
  end_line     bigint NOT NULL,
  page         bigint,
  start_offset bigint NOT NULL,
  end_offset   bigint NOT NULL,
  content      text NOT NULL,
  fold         text,
  content_hash text NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, chunk_index);
CREATE INDEX IF NOT EXISTS chunks_section ON chunks(section_id);

-- Full text (SQLite: the contentless FTS5 table chunks_fts). One row per chunk, keyed like
-- the FTS5 rowid. `tsv` is written by the code as a tsvector literal: the tokens FTS5's
-- unicode61 tokenizer makes (docql_sqlite/fts_tokens.py) of the same CJK-spaced text as the
-- FTS5 columns (text.fts_text), with positions; the section title weighted 'A', the body
-- 'B'. Queries build their tsquery from the same tokens and the `simple` configuration
-- (which only lower-cases), so a word matches the same chunks on both engines.
CREATE TABLE IF NOT EXISTS chunks_fts (
  rowid bigint PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
  tsv   tsvector NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_fts_tsv ON chunks_fts USING gin (tsv);

CREATE TABLE IF NOT EXISTS codeblocks (
  id         bigint PRIMARY KEY,
  doc_id     bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord        bigint NOT NULL,
  language   text,
  code       text,
  line       bigint NOT NULL,
  end_line   bigint NOT NULL,
  body_start bigint,
  body_end   bigint
);
CREATE INDEX IF NOT EXISTS codeblocks_doc ON codeblocks(doc_id, ord);

CREATE TABLE IF NOT EXISTS tables (
  id           bigint PRIMARY KEY,
  doc_id       bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord          bigint NOT NULL,
  headers      text NOT NULL,
  rows         text NOT NULL,
  row_count    bigint NOT NULL,
  column_count bigint NOT NULL,
  line         bigint NOT NULL,
  end_line     bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS tables_doc ON tables(doc_id, ord);

CREATE TABLE IF NOT EXISTS frontmatter (
  doc_id bigint PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  data   text NOT NULL
);

CREATE TABLE IF NOT EXISTS entities (
  id          bigint PRIMARY KEY,
  doc_id      bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord         bigint NOT NULL,
  entity_type text NOT NULL,
  name        text NOT NULL,
  name_fold   text NOT NULL,
  signature   text,
  definition  text,
  line        bigint NOT NULL,
  end_line    bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS entities_doc ON entities(doc_id, ord);

CREATE TABLE IF NOT EXISTS symbols (
  id             bigint PRIMARY KEY,
  doc_id         bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord            bigint NOT NULL,
  kind           text NOT NULL,
  name           text NOT NULL,
  name_fold      text NOT NULL,
  qualified_name text NOT NULL,
  signature      text,
  language       text NOT NULL,
  parent         text,
  line           bigint NOT NULL,
  end_line       bigint NOT NULL,
  docstring      text
);
CREATE INDEX IF NOT EXISTS symbols_doc ON symbols(doc_id, ord);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name_fold);

CREATE TABLE IF NOT EXISTS ingest_errors (
  id        bigint PRIMARY KEY,
  path      text NOT NULL,
  uri       text NOT NULL,
  severity  text NOT NULL CHECK (severity IN ('error', 'warning')),
  reason    text NOT NULL,
  at        text NOT NULL
);
CREATE INDEX IF NOT EXISTS ingest_errors_uri ON ingest_errors(uri);
