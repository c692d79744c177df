-- docql-sqlite schema for PostgreSQL, version 4 (as sql/004_content_rules.sql):
-- the content rules each document was built with, and the page map of PDFs.
ALTER TABLE documents ADD COLUMN IF NOT EXISTS content_rules bigint;
ALTER TABLE documents ADD COLUMN IF NOT EXISTS page_lines text;
