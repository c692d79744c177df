-- docql-sqlite schema, version 8: what code *uses* (issue 23). Each code file's
-- references (calls, type uses, inheritance, imported names) and imports, with the
-- definition each reference resolves to when that can be decided (docs/schema.md).
-- Code documents built with older content rules are re-parsed by the next `index` run,
-- which fills these tables.

-- One row per identifier used, in source order (ord; the key with doc_id, which is also
-- what `callees` seeks: a document's references by caller). `line`, `end_line` and `col`
-- (1-based, characters) are the identifier's own position.
CREATE TABLE IF NOT EXISTS refs (
  doc_id      INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord         INTEGER NOT NULL,
  name        TEXT NOT NULL,        -- as written: the last part of `a.b.name`
  kind        TEXT NOT NULL,        -- call | type | inherit | import
  caller_ord  INTEGER,              -- symbols.ord (same doc_id) of the innermost enclosing symbol; NULL at top level
  line        INTEGER NOT NULL,
  end_line    INTEGER NOT NULL,
  col         INTEGER NOT NULL,
  target_id   INTEGER,              -- symbols.id of the definition, when resolved
  resolution  TEXT,                 -- local | import | unique | ambiguous | unresolved; NULL until resolved
  candidates  INTEGER,              -- definitions of that name (and a fitting kind) in the index
  PRIMARY KEY (doc_id, ord)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS refs_name ON refs(name, kind);
CREATE INDEX IF NOT EXISTS refs_unresolved ON refs(doc_id) WHERE resolution IS NULL;

-- One row per module imported, as written (`os.path`, `"net/http"`, `std::io`, `<stdio.h>`
-- without its quotes or brackets); `names` is a JSON array of the names imported from it
-- (`["*"]` for a wildcard; `[]` when the module itself is imported).
CREATE TABLE IF NOT EXISTS imports (
  doc_id    INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord       INTEGER NOT NULL,
  module    TEXT NOT NULL,
  names     TEXT NOT NULL,
  line      INTEGER NOT NULL,
  end_line  INTEGER NOT NULL,
  PRIMARY KEY (doc_id, ord)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS imports_module ON imports(module);

-- Names whose definitions changed since references were last resolved: the writer adds
-- the names of the symbols it deletes and inserts; the resolution pass at the end of a
-- run re-resolves the references to those names (and the new references), then empties it.
CREATE TABLE IF NOT EXISTS refs_pending (
  name TEXT PRIMARY KEY
) WITHOUT ROWID;
