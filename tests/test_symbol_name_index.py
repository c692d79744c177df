"""Schema 15: `symbols_trigram`, a trigram FTS5 table over the folded code symbol names
that narrows `~=` on a symbol's name to candidate rows (docs/design.md B35), never
changing which rows come back nor their order.

- the rows of every `$.code.<list>[?(@.name~="x")]` equal a brute-force Python filter over
  all symbols (casefolded substring, then path and position), with case, non-ASCII names
  and needles shorter than a trigram;
- a schema-14 file is upgraded by the next writer and then answers as a fresh index;
- the writer keeps the table current through changes and deletions;
- the stock sqlite3 shell (3.40) reads the file and runs the compiled SQL.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import apsw
import pytest

import docql_sqlite
from docql_sqlite.dialect import SQLITE
from docql_sqlite.dialect.postgres import POSTGRES
from docql_sqlite.errors import DatabaseError
from docql_sqlite.query.compiler import compile_query
from docql_sqlite.query.functions import CLASS_KINDS, FUNCTION_KINDS, METHOD_KINDS
from docql_sqlite.store.sqlite import db as dbmod
from docql_sqlite.text import fold

SQLITE3 = shutil.which("sqlite3", path="/usr/bin") or shutil.which("sqlite3")
KINDS: dict[str, tuple[str, ...] | None] = {
    "classes": CLASS_KINDS,
    "functions": FUNCTION_KINDS,
    "methods": METHOD_KINDS,
    "symbols": None,
}
NEEDLES = [
    "Buffer",
    "buffer",
    "BUFFER",
    "buf",
    "bu",  # shorter than a trigram: the scan
    "reader",
    "größe",
    "GRÖSSE",  # casefolds to "grösse", as größe does
    "straße",
    "ΣΊΣΥΦΟΣ",
    "σίσυφος",
    "xyzzy",
    "ffer",
    '"quoted',
    "a b",
]
FILES = {
    "src/buffers.py": (
        "class Buffer:\n    def read_buffer(self):\n        pass\n\n"
        "    def BufferSize(self):\n        pass\n\n\n"
        "class RingBUFFER(Buffer):\n    pass\n\n\n"
        "def make_buffer():\n    pass\n\n\n"
        "class Größe:\n    def straße(self):\n        pass\n\n\n"
        "class GRÖSSE:\n    pass\n\n\n"
        "class Σίσυφος:\n    pass\n"
    ),
    "src/a/reader.py": (
        "class BufferedReader:\n    def reader(self):\n        pass\n\n\n"
        "def buffered():\n    pass\n\n\n"
        "class Offer:\n    pass\n"
    ),
    "src/z.go": (
        "package z\n\ntype ByteBuffer struct{}\n\n"
        "func (b *ByteBuffer) Reset() {}\n\n"
        "func NewBuffer() *ByteBuffer { return nil }\n\n"
        "type Reader interface{ Read() }\n"
    ),
    "src/b.js": (
        "class BufferPool {\n  acquireBuffer() {}\n}\n\nfunction bufferFrom(x) { return x; }\n"
    ),
}


def queries() -> list[str]:
    return [f"$.code.{lst}[?(@.name~={json.dumps(needle)})]" for lst in KINDS for needle in NEEDLES]


def brute_force(conn: apsw.Connection, lst: str, needle: str) -> list[tuple[str, int]]:
    """Every symbol of the list whose folded name holds the folded needle, in the spec's
    order (path, then position in the document), by a Python scan of all rows."""
    kinds = KINDS[lst]
    rows = conn.execute(
        "SELECT d.path, y.ord, y.kind, y.name FROM symbols y JOIN documents d ON d.id = y.doc_id"
    ).fetchall()
    hits = [
        (path, ord_)
        for path, ord_, kind, name in rows
        if (kinds is None or kind in kinds) and fold(needle) in fold(name)
    ]
    return sorted(hits)


@pytest.fixture(scope="module")
def code_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("names")
    for name, text in FILES.items():
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    db = root / "index.db"
    docql_sqlite.index(str(db), [str(root / "docs")])
    return db


def located(index: docql_sqlite.Index, query: str) -> list[tuple[str, int]]:
    """(path, ord) of each item, by its location, in the order the query gave."""
    out = []
    conn = index.conn
    for item in index.query(query):
        row = conn.execute(
            "SELECT y.ord FROM symbols y JOIN documents d ON d.id = y.doc_id "
            "WHERE d.path = ? AND y.line = ? AND y.name = ? AND y.kind = ?",
            (item["path"], item["line"], item["name"], item["kind"]),
        ).fetchall()
        assert len(row) == 1, item
        out.append((item["path"], row[0][0]))
    return out


# -- which SQL uses it -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "dialect", "used"),
    [
        ('$.code.classes[?(@.name~="Buffer")][0:20]', SQLITE, True),
        ('$.code.symbols[?(@.name~="buf")]', SQLITE, True),
        ('$.code.functions[?(@.name~="bu")]', SQLITE, False),  # < 3 characters: the scan
        ('$.code.classes[?(@.name~="Buffer")]', POSTGRES, False),
        ('$.code.classes[?(@.name=="Buffer")]', SQLITE, False),  # equality: the name index
        ('$.code.classes[?(@.qualified_name~="Buffer")]', SQLITE, False),
        ('$.code.classes[?(@.name startsWith "Buf")]', SQLITE, False),
    ],
)
def test_which_sql_reads_the_name_trigrams(query: str, dialect: Any, used: bool) -> None:
    assert ("symbols_trigram" in compile_query(query, dialect=dialect).sql) is used


# -- same rows, same order ---------------------------------------------------------------------
def test_name_contains_equals_a_brute_force_scan(code_db: Path) -> None:
    nonempty = 0
    with docql_sqlite.open(code_db) as index:
        for lst in KINDS:
            for needle in NEEDLES:
                query = f"$.code.{lst}[?(@.name~={json.dumps(needle)})]"
                expected = brute_force(index.conn, lst, needle)
                assert located(index, query) == expected, query
                nonempty += bool(expected)
                # a slice is the first rows of the same order
                sliced = located(index, query + "[0:2]")
                assert sliced == expected[:2], query
    assert nonempty >= 30  # the fixture exercises matches, not only empty answers


class NameScan(type(SQLITE)):  # type: ignore[misc]
    """SQLite without the name trigrams: instr() over every name, as before schema 15."""

    NAME_TRIGRAMS = False


def test_the_compiled_sql_equals_the_scan_row_for_row(code_db: Path) -> None:
    conn = apsw.Connection(str(code_db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        for query in queries():
            rows = {}
            for name, dialect in (("trigrams", SQLITE), ("scan", NameScan())):
                compiled = compile_query(query, dialect=dialect)
                rows[name] = list(conn.execute(compiled.sql, compiled.bound_params()))
            assert rows["trigrams"] == rows["scan"], query
    finally:
        conn.close()


# -- the upgrade ---------------------------------------------------------------------------------
def as_schema_14(source: Path, dest: Path) -> Path:
    """A copy of `source` as schema 14 wrote it: no `symbols_trigram` (nor the entities'
    of schema 16)."""
    shutil.copy(source, dest)
    conn = apsw.Connection(str(dest))
    conn.execute("DROP TABLE symbols_trigram")
    conn.execute("DROP TABLE entities_trigram")
    conn.execute("UPDATE meta SET value = '14' WHERE key = 'schema_version'")
    conn.execute("VACUUM")
    conn.close()
    return dest


def test_a_schema_14_file_is_upgraded_and_answers_as_a_fresh_one(
    code_db: Path, tmp_path: Path
) -> None:
    old = as_schema_14(code_db, tmp_path / "old.db")
    with pytest.raises(
        DatabaseError, match=f"schema 14; this docql-sqlite needs schema {dbmod.SCHEMA_VERSION}"
    ):
        docql_sqlite.open(old)
    dbmod.connect(old).close()  # what an `index` run does first
    with docql_sqlite.open(old) as index:
        assert index.status()["schema_version"] == dbmod.SCHEMA_VERSION >= 15
        count = index.conn.execute(
            "SELECT count(*) FROM symbols_trigram WHERE symbols_trigram MATCH '\"buf\"'"
        ).fetchone()[0]
        assert count > 0
    for query in queries():
        with docql_sqlite.open(old) as a, docql_sqlite.open(code_db) as b:
            assert list(a.query(query)) == list(b.query(query)), query
    conn = apsw.Connection(str(old))
    conn.execute("INSERT INTO symbols_trigram(symbols_trigram) VALUES ('integrity-check')")
    conn.close()


# -- the writer keeps it current ------------------------------------------------------------------
def test_the_writer_keeps_the_name_trigrams_current(tmp_index: Any) -> None:
    tmp_index.write_many(
        {
            "a.py": "class Buffer:\n    pass\n\n\nclass Größe:\n    pass\n",
            "b.py": "class OtherBuffer:\n    pass\n",
        }
    )
    tmp_index.index()
    tmp_index.write("a.py", "class Journal:\n    pass\n\n\nclass GRÖSSE:\n    pass\n")
    (tmp_index.docs / "b.py").unlink()
    tmp_index.write("c.py", "class BufferAgain:\n    pass\n")
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as index:
        names = lambda kw: [  # noqa: E731
            i["name"] for i in index.query(f"$.code.classes[?(@.name~={json.dumps(kw)})]")
        ]
        assert names("buffer") == ["BufferAgain"]
        assert names("journal") == ["Journal"]
        assert names("größe") == ["GRÖSSE"] == names("grösse")  # ß folds to ss
        assert names("grosse") == []  # ö is not o
        # No row of the trigram table outlives its symbol.
        stale = index.conn.execute(
            "SELECT count(*) FROM symbols_trigram WHERE symbols_trigram MATCH '\"buf\"' "
            "AND rowid NOT IN (SELECT id FROM symbols)"
        ).fetchone()[0]
        assert stale == 0
    conn = apsw.Connection(str(tmp_index.db))
    conn.execute("INSERT INTO symbols_trigram(symbols_trigram) VALUES ('integrity-check')")
    conn.close()


# -- the stock shell -------------------------------------------------------------------------------
@pytest.mark.skipif(SQLITE3 is None, reason="no sqlite3 shell")
@pytest.mark.parametrize(
    "query",
    [
        '$.code.classes[?(@.name~="Buffer")][0:20]',
        '$.code.symbols[?(@.name~="größe")]',
        '$.code.functions[?(@.name~="buffer")]',
    ],
)
def test_the_sqlite3_shell_runs_the_name_trigram_sql(code_db: Path, query: str) -> None:
    with docql_sqlite.open(code_db) as index:
        compiled = index.compile(query)
        expected = [(i["path"], i["line"], i["name"]) for i in index.query(query)]
    assert expected and "symbols_trigram" in compiled.sql
    assert SQLITE3 is not None
    done = subprocess.run(
        [SQLITE3, "-readonly", "-json", str(code_db)],
        input=compiled.inline_sql(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout or "[]")
    assert [(r["path"], r["line"], r["name"]) for r in rows] == expected
