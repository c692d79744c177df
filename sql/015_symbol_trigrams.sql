-- docql-sqlite schema, version 15: a trigram index over the folded code symbol names, so
-- `$.code.classes[?(@.name~="Buffer")]` (and every `~=` on a symbol's name) reads the
-- symbols whose names can contain "buffer" instead of calling instr() on every name of
-- the index (issue 24: a structural query within 3x from a 13 MB to a 279 MB index; that
-- one went 0.14 -> 3.35 ms, a scan of 49,600 class-like names for 103 that match). As
-- `sections_trigram` (schema 9, docs/design.md B35): a candidate filter only, for needles
-- of 3 characters or more, the exact instr() test kept on the candidates, so the rows are
-- those of the scan.
-- FTS5 with the built-in `trigram` tokenizer (readable by the 3.40 shell), external
-- content (`content = 'symbols'`: the names are not stored twice), rowids only
-- (`detail = none`) and no per-row sizes (`columnsize = 0`). The writer keeps it in step
-- with `symbols` in its batches (as `sections_trigram` since schema 12); a shell user who
-- changes `symbols` re-syncs it with
--   INSERT INTO symbols_trigram(symbols_trigram) VALUES ('rebuild');
-- Cost: 2.7 MB on the 279 MB scale index (238,598 symbols), ~1 CPU s to fill there.
CREATE VIRTUAL TABLE IF NOT EXISTS symbols_trigram USING fts5(
  name_fold,
  content = 'symbols', content_rowid = 'id',
  detail = none, columnsize = 0,
  tokenize = 'trigram'
);
INSERT INTO symbols_trigram(symbols_trigram) VALUES ('rebuild');
