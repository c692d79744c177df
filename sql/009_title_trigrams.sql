-- docql-sqlite schema, version 9: a trigram index over the folded section titles, so
-- `$.content.heading("x")` reads the titles that can contain "x" instead of calling
-- instr() on every title of the index (issue 24: query time within 3x from a 10 MB to a
-- 279 MB index). The compiled SQL uses it as a candidate filter only, for keywords of 3
-- characters or more, and keeps the exact instr() test on the candidates: the rows are
-- the same as without it (docs/design.md B33).
-- FTS5 with the built-in `trigram` tokenizer (SQLite 3.34+, readable by the 3.40 shell),
-- external content (the titles are not stored twice: `content = 'sections'`), rowids
-- only (`detail = none`: a query is an AND of trigrams, not a phrase) and no per-row
-- sizes (`columnsize = 0`). Triggers keep it in step with `sections` for every writer,
-- this package's and a shell user's. Cost on the Markdown mix: 0.34 MB (1.6 % of the file).
CREATE VIRTUAL TABLE IF NOT EXISTS sections_trigram USING fts5(
  title_fold,
  content = 'sections', content_rowid = 'id',
  detail = none, columnsize = 0,
  tokenize = 'trigram'
);
INSERT INTO sections_trigram(sections_trigram) VALUES ('rebuild');
CREATE TRIGGER IF NOT EXISTS sections_trigram_insert AFTER INSERT ON sections BEGIN
  INSERT INTO sections_trigram(rowid, title_fold) VALUES (new.id, new.title_fold);
END;
CREATE TRIGGER IF NOT EXISTS sections_trigram_delete AFTER DELETE ON sections BEGIN
  INSERT INTO sections_trigram(sections_trigram, rowid, title_fold)
  VALUES ('delete', old.id, old.title_fold);
END;
CREATE TRIGGER IF NOT EXISTS sections_trigram_update AFTER UPDATE OF id, title_fold ON sections
BEGIN
  INSERT INTO sections_trigram(sections_trigram, rowid, title_fold)
  VALUES ('delete', old.id, old.title_fold);
  INSERT INTO sections_trigram(rowid, title_fold) VALUES (new.id, new.title_fold);
END;
