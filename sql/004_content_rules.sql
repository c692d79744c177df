-- docql-sqlite schema, version 4: the content rules each document was built with, and the
-- page map of PDFs.
-- content_rules: the version of the parsing and chunking rules for the document's format
--   (`ingest.parse.content_rules`) its sections and chunks were built with, written with
--   its rows. A run re-parses a document whose number is older (or NULL: indexed before
--   version 4), so an index picks up a rule change (heading chunks that carry their first
--   block, a PDF's contents pages, printed chapter numbers) without --chunk-chars tricks.
-- page_lines: for a PDF, a JSON array of the first line of each page (page 1 first), so a
--   page of front matter, which has no chunks (a printed table of contents), is still found
--   by `get path:page N`; NULL for other formats and for documents indexed before version 4.
ALTER TABLE documents ADD COLUMN content_rules INTEGER;
ALTER TABLE documents ADD COLUMN page_lines TEXT;
