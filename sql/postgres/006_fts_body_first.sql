-- docql-sqlite schema for PostgreSQL, version 6 (as sql/006_fts_body_first.sql): nothing
-- changes here. The SQLite file's version 6 lists `body` before `title` in its FTS5 table;
-- the PostgreSQL full text is one tsvector per chunk (title weighted A, body B), which has
-- no column order. The numbers stay equal on both engines (pg/connect.py).
SELECT 1;
