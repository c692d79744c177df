-- docql-sqlite schema for PostgreSQL, version 7 (as sql/007_query_indexes.sql): indexes for
-- chapter("#anchor") and chapter("1.2") within a file scope, a file scope by name, and the
-- symbol lists by kind.
CREATE INDEX IF NOT EXISTS sections_anchor ON sections(anchor, doc_id);
DROP INDEX IF EXISTS sections_number;
CREATE INDEX IF NOT EXISTS sections_number_doc ON sections(number, doc_id);
CREATE INDEX IF NOT EXISTS documents_name ON documents(name);
CREATE INDEX IF NOT EXISTS symbols_kind_name ON symbols(kind, name_fold);
