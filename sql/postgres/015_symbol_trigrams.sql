-- docql-sqlite schema for PostgreSQL, version 15 (as sql/015_symbol_trigrams.sql). The
-- file's trigram index over symbol names has no counterpart here, as the title trigrams
-- (009) have none: PostgreSQL compiles `~=` on a symbol's name to an exact strpos() scan
-- (pg_trgm is not part of every installation, pgserver's included). The version moves so
-- both engines agree.
SELECT 1;
