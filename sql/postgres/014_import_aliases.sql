-- docql-sqlite schema for PostgreSQL, version 14 (as sql/014_import_aliases.sql): the
-- local name an import binds (`np` in `import numpy as np`), which the resolution pass and
-- the repository map follow to the module it stands for.
ALTER TABLE imports ADD COLUMN IF NOT EXISTS alias text;
