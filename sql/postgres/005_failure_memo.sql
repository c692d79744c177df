-- docql-sqlite schema for PostgreSQL, version 5 (as sql/005_failure_memo.sql): failed files
-- are remembered with the size and mtime they failed at, and skipped until either changes.
ALTER TABLE ingest_errors ADD COLUMN IF NOT EXISTS size bigint;
ALTER TABLE ingest_errors ADD COLUMN IF NOT EXISTS mtime_ns bigint;
