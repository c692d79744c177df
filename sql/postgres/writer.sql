-- The id sequences of the concurrent writers (docql_sqlite/store/postgres/writer.py): every id comes
-- from nextval(), never from max(id) + 1, so writers on many machines never collide.
-- Not a migration (the schema and its version are the same as the file's): run, with
-- the sequences moved past the ids already there (a copied index has ids of its own),
-- by every writer when it opens, under a transaction-level advisory lock.
CREATE SEQUENCE IF NOT EXISTS documents_id_seq OWNED BY documents.id;
CREATE SEQUENCE IF NOT EXISTS sections_id_seq OWNED BY sections.id;
CREATE SEQUENCE IF NOT EXISTS chunks_id_seq OWNED BY chunks.id;
CREATE SEQUENCE IF NOT EXISTS codeblocks_id_seq OWNED BY codeblocks.id;
CREATE SEQUENCE IF NOT EXISTS tables_id_seq OWNED BY tables.id;
CREATE SEQUENCE IF NOT EXISTS entities_id_seq OWNED BY entities.id;
CREATE SEQUENCE IF NOT EXISTS symbols_id_seq OWNED BY symbols.id;
CREATE SEQUENCE IF NOT EXISTS ingest_errors_id_seq OWNED BY ingest_errors.id;
