-- docql-sqlite schema, version 7: indexes for the DocQL lookups that scanned a whole table
-- (issue 12: query latency on a 279 MB index within 3x of a 10 MB one).
-- sections_anchor: `$.content.chapter("#anchor")` (a SCAN of every section before).
-- sections_number_doc replaces sections_number: with the document in the index,
--   `$.files[?(@.name=="fs.md")].content.chapter("1.1")` seeks (number, doc) for the files
--   in scope instead of reading every "1.1" section of the index (as does an anchor).
-- documents_name: `$.files[?(@.name=="fs.md")]`, the usual way to scope a query to a file.
-- symbols_kind_name: `$.code.classes` / `.functions` / `.methods` filter on the kind; with
--   the folded name in the index, `[?(@.name~="Buffer")]` reads the index alone and only
--   the matching rows (the table's rows hold signatures and docstrings).
-- Cost on the 33,948-document scale index: 14.9 MB (3.0 % of 503 MB); docs/benchmarks.md.
CREATE INDEX IF NOT EXISTS sections_anchor ON sections(anchor, doc_id);
DROP INDEX IF EXISTS sections_number;
CREATE INDEX IF NOT EXISTS sections_number_doc ON sections(number, doc_id);
CREATE INDEX IF NOT EXISTS documents_name ON documents(name);
CREATE INDEX IF NOT EXISTS symbols_kind_name ON symbols(kind, name_fold);
