-- docql-sqlite schema, version 3: per-document chunk settings and lossless file names.
-- chunk_chars: the chunk size bound (`index --chunk-chars`) this document's chunks were
--   cut with, written in the same transaction as its rows, so a run killed while
--   re-chunking is finished by the next run. NULL (documents indexed before version 3):
--   unknown, so the next run re-chunks the document once.
-- uri_bytes: the absolute path as raw bytes when the file name is not valid UTF-8 (then
--   `path` and `uri` show each undecodable byte as \xNN); NULL for every other document.
ALTER TABLE documents ADD COLUMN chunk_chars INTEGER;
ALTER TABLE documents ADD COLUMN uri_bytes BLOB;
