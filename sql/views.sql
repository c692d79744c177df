-- Views for shell users (re-created on every open for writing, so they follow the code).
-- Plain SQL only: they work in any SQLite 3.40+ shell.

DROP VIEW IF EXISTS toc;
CREATE VIEW toc AS
SELECT d.path, s.level, s.number, s.title, s.anchor, s.line, s.end_line, s.page,
       s.id AS section_id, s.doc_id
FROM sections s JOIN documents d ON d.id = s.doc_id
ORDER BY d.path, s.ord;

DROP VIEW IF EXISTS passages;
CREATE VIEW passages AS
SELECT d.path, c.chunk_index, s.title AS section, s.number, c.line, c.end_line, c.page,
       c.content, c.id AS chunk_id, c.doc_id
FROM chunks c JOIN documents d ON d.id = c.doc_id
LEFT JOIN sections s ON s.id = c.section_id
ORDER BY d.path, c.chunk_index;

DROP VIEW IF EXISTS code;
CREATE VIEW code AS
SELECT d.path, y.kind, y.name, y.qualified_name, y.signature, y.language, y.parent,
       y.line, y.end_line, y.docstring, y.id AS symbol_id, y.doc_id
FROM symbols y JOIN documents d ON d.id = y.doc_id
ORDER BY d.path, y.ord;

DROP VIEW IF EXISTS errors;
CREATE VIEW errors AS
SELECT path, severity, reason, at FROM ingest_errors ORDER BY path, id;

-- Code blocks with their code, rebuilt from the chunks when it is not stored.
DROP VIEW IF EXISTS codeblocks_code;
CREATE VIEW codeblocks_code AS
SELECT b.id, b.doc_id, b.ord, b.language, b.line, b.end_line,
       coalesce(b.code, (
         SELECT substr(group_concat(x.content, ''), b.body_start - min(x.start_offset) + 1, b.body_end - b.body_start)
         FROM (SELECT c.content, c.start_offset FROM chunks c
               WHERE c.doc_id = b.doc_id AND c.end_offset > b.body_start AND c.start_offset < b.body_end
               ORDER BY c.chunk_index) x), '') AS code
FROM codeblocks b;
