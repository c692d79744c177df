-- docql-sqlite schema, version 5: failed files are remembered with the file they failed on.
-- size, mtime_ns: the file's size and modification time (stat, taken before it was parsed)
--   when its parse failed. The next run skips a file whose error row still matches both
--   (it would fail again, maybe after a long timeout) and retries it once either changes,
--   or with `index --retry-failed`. NULL for warnings and for failures without a file
--   (an unreadable directory, a URL), which are retried on every run as before.
ALTER TABLE ingest_errors ADD COLUMN size INTEGER;
ALTER TABLE ingest_errors ADD COLUMN mtime_ns INTEGER;
