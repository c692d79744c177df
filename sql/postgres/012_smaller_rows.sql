-- docql-sqlite schema for PostgreSQL, version 12 (as sql/012_smaller_rows.sql):
-- `content_hash` of chunks and chunk_vectors is the first 8 bytes of the sha256 of the
-- chunk's text (bytea) instead of its first 32 hex digits (text). The stored vectors'
-- keys are converted the same way (their first 16 hex digits), so an upgraded index
-- keeps its embedding cache; a value that is not hex becomes '' (its vector is computed
-- again). A column that is bytea already is left as it is. Unlike SQLite's, the foreign
-- keys of `chunks.section_id` and `sections.parent_id` and their indexes stay: no stored
-- value differs, and no file size is measured against a corpus here.
DO $$
DECLARE
  name text;
BEGIN
  FOREACH name IN ARRAY ARRAY['chunks', 'chunk_vectors'] LOOP
    IF (SELECT data_type FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = name
          AND column_name = 'content_hash') = 'text' THEN
      EXECUTE format(
        'ALTER TABLE %I ALTER COLUMN content_hash TYPE bytea USING CASE WHEN '
        'content_hash ~ ''^[0-9a-fA-F]{16}'' THEN decode(left(content_hash, 16), ''hex'') '
        'ELSE ''\x''::bytea END', name);
    END IF;
  END LOOP;
END
$$;
