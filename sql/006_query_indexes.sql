-- docql-sqlite schema, version 6: indexes for the DocQL lookups that scanned a whole table
-- (issue 12: query latency on a 279 MB index within 3x of a 10 MB one).
-- sections_anchor: `$.content.chapter("#anchor")` (a SCAN of every section before).
-- documents_name: `$.files[?(@.name=="fs.md")]`, the usual way to scope a query to a file.
-- symbols_kind_name: `$.code.classes` / `.functions` / `.methods` filter on the kind; with
--   the folded name in the index, `[?(@.name~="Buffer")]` reads the index alone and only
--   the matching rows (the table's rows hold signatures and docstrings).
-- Cost on the 33,948-document scale index: 7.0 + 0.9 + 6.5 MB (2.9 % of 503 MB);
-- docs/benchmarks.md has the figures.
CREATE INDEX IF NOT EXISTS sections_anchor ON sections(anchor);
CREATE INDEX IF NOT EXISTS documents_name ON documents(name);
CREATE INDEX IF NOT EXISTS symbols_kind_name ON symbols(kind, name_fold);
