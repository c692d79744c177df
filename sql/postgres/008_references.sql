-- docql-sqlite schema for PostgreSQL, version 8 (as sql/008_references.sql): references
-- and imports of code files, and the names whose resolution is pending.
CREATE TABLE IF NOT EXISTS refs (
  doc_id      bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord         bigint NOT NULL,
  name        text NOT NULL,
  kind        text NOT NULL,
  caller_ord  bigint,
  line        bigint NOT NULL,
  end_line    bigint NOT NULL,
  col         bigint NOT NULL,
  target_id   bigint,
  resolution  text,
  candidates  bigint,
  PRIMARY KEY (doc_id, ord)
);
CREATE INDEX IF NOT EXISTS refs_name ON refs(name, kind);
CREATE INDEX IF NOT EXISTS refs_unresolved ON refs(doc_id) WHERE resolution IS NULL;

CREATE TABLE IF NOT EXISTS imports (
  doc_id    bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord       bigint NOT NULL,
  module    text NOT NULL,
  names     text NOT NULL,
  line      bigint NOT NULL,
  end_line  bigint NOT NULL,
  PRIMARY KEY (doc_id, ord)
);
CREATE INDEX IF NOT EXISTS imports_module ON imports(module);

CREATE TABLE IF NOT EXISTS refs_pending (
  name text PRIMARY KEY
);
