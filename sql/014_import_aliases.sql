-- docql-sqlite schema, version 14: the local name an import binds (issue 23, noticed).
--
-- `imports.alias` is the name an import binds instead of the module's last part or the
-- imported name: `np` in `import numpy as np`, `mr` in Go's `mr "math/rand"`, `u` in
-- `import * as u from './util'`, `dec` in `from json import decoder as dec` (then the
-- row names that one name), `_` and `.` for Go's blank and dot imports; NULL for every
-- other import. The qualifier of `np.array` is then recorded (`refs.qualifier`), and the
-- resolution pass and the repository map follow it to the module it stands for. Code
-- files are parsed again by the next `index` run (their content rules went from 4 to 5),
-- which fills the column and the qualifiers.
--
-- The table is rebuilt rather than altered (`ADD COLUMN` fails on a file that has the
-- column already, and SQLite has no `IF NOT EXISTS` for it); it holds one small row per
-- import statement.
CREATE TABLE imports_v14 (
  doc_id    INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord       INTEGER NOT NULL,
  module    TEXT NOT NULL,
  names     TEXT NOT NULL,
  line      INTEGER NOT NULL,
  end_line  INTEGER NOT NULL,
  alias     TEXT,
  PRIMARY KEY (doc_id, ord)
) WITHOUT ROWID;
INSERT INTO imports_v14(doc_id, ord, module, names, line, end_line)
  SELECT doc_id, ord, module, names, line, end_line FROM imports ORDER BY doc_id, ord;
DROP TABLE imports;
ALTER TABLE imports_v14 RENAME TO imports;
CREATE INDEX imports_module ON imports(module);
