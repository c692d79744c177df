-- docql-sqlite schema, version 16: a trigram index over the folded entity names, so smart
-- search's entities name list (search/name_lists.py) and `~=` on an entity's name read
-- the entities whose names can equal or contain the query instead of comparing every
-- name of the index (issue 24: that list cost ~1 ms on the 13 MB reference index and
-- 43-47 ms on the 279 MB scale index; `entities` has no index on `name_fold`, so even
-- the equality-only lists of long queries scanned). As `symbols_trigram` (schema 15) and
-- `sections_trigram` (schema 9, docs/design.md B35): a candidate filter only, for names
-- of 3 characters or more, the exact test kept on the candidates, so the rows are those
-- of the scan.
-- FTS5 with the built-in `trigram` tokenizer (readable by the 3.40 shell), external
-- content (`content = 'entities'`: the names are not stored twice), rowids only
-- (`detail = none`) and no per-row sizes (`columnsize = 0`). The writer keeps it in step
-- with `entities` in its batches; a shell user who changes `entities` re-syncs it with
--   INSERT INTO entities_trigram(entities_trigram) VALUES ('rebuild');
CREATE VIRTUAL TABLE IF NOT EXISTS entities_trigram USING fts5(
  name_fold,
  content = 'entities', content_rowid = 'id',
  detail = none, columnsize = 0,
  tokenize = 'trigram'
);
INSERT INTO entities_trigram(entities_trigram) VALUES ('rebuild');
-- Merged into one segment: the rebuild left its segments merged or not from one run to
-- the next (the 13 MB reference index came out with 35 or with 57 rows of segment data,
-- its trigram queries 0.03 or 0.21 ms).
INSERT INTO entities_trigram(entities_trigram) VALUES ('optimize');
-- The same for schema 15's `symbols_trigram`, whose upgrade ended with a plain rebuild.
INSERT INTO symbols_trigram(symbols_trigram) VALUES ('optimize');
