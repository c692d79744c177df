-- docql-sqlite schema for PostgreSQL, version 16 (as sql/016_entity_trigrams.sql). The
-- file's trigram index over entity names has no counterpart here, as the title (009) and
-- symbol-name (015) trigrams have none: PostgreSQL keeps the scans of smart search's
-- entities list and of `~=` on an entity's name (strpos()). The version moves so both
-- engines agree.
SELECT 1;
