-- docql-sqlite schema for PostgreSQL, version 9 (as sql/009_title_trigrams.sql). The file's
-- trigram index over section titles has no counterpart here yet: PostgreSQL compiles
-- heading() and grep() to exact strpos()/ILIKE scans (pg_trgm is not part of every
-- installation, pgserver's included). The version moves so both engines agree.
SELECT 1;
