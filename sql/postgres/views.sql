-- Views for SQL users, as sql/views.sql (re-created on every migration).
-- Paths sort COLLATE "C" (byte order), as in SQLite.

CREATE OR REPLACE VIEW toc AS
SELECT d.path, s.level, s.number, s.title, s.anchor, s.line, s.end_line, s.page,
       s.id AS section_id, s.doc_id
FROM sections s JOIN documents d ON d.id = s.doc_id
ORDER BY d.path COLLATE "C", s.ord;

CREATE OR REPLACE VIEW passages AS
SELECT d.path, c.chunk_index, s.title AS section, s.number, c.line, c.end_line, c.page,
       c.content, c.id AS chunk_id, c.doc_id
FROM chunks c JOIN documents d ON d.id = c.doc_id
LEFT JOIN sections s ON s.id = c.section_id
ORDER BY d.path COLLATE "C", c.chunk_index;

CREATE OR REPLACE VIEW code AS
SELECT d.path, y.kind, y.name, y.qualified_name, y.signature, y.language, y.parent,
       y.line, y.end_line, y.docstring, y.id AS symbol_id, y.doc_id
FROM symbols y JOIN documents d ON d.id = y.doc_id
ORDER BY d.path COLLATE "C", y.ord;

CREATE OR REPLACE VIEW errors AS
SELECT path, severity, reason, at FROM ingest_errors ORDER BY path COLLATE "C", id;

-- Code blocks with their code, rebuilt from the chunks when it is not stored.
CREATE OR REPLACE VIEW codeblocks_code AS
SELECT b.id, b.doc_id, b.ord, b.language, b.line, b.end_line,
       coalesce(b.code, (
         SELECT substr(string_agg(c.content, '' ORDER BY c.chunk_index),
                       (b.body_start - min(c.start_offset) + 1)::int,
                       (b.body_end - b.body_start)::int)
         FROM chunks c
         WHERE c.doc_id = b.doc_id AND c.end_offset > b.body_start AND c.start_offset < b.body_end
       ), '') AS code
FROM codeblocks b;
