-- docql-sqlite schema for PostgreSQL, version 4 (as sql/004_content_rules.sql):
-- the content rules each document was built with.
ALTER TABLE documents ADD COLUMN IF NOT EXISTS content_rules bigint;
