-- docql-sqlite schema for PostgreSQL, version 13 (as sql/013_ref_qualifiers.sql): the
-- local name of an import written in front of a reference (`http` in `http.Get`), which
-- the resolution pass follows to the module it names.
ALTER TABLE refs ADD COLUMN IF NOT EXISTS qualifier text;
