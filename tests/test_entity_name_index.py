"""Schema 16: `entities_trigram`, a trigram FTS5 table over the folded entity names that
narrows smart search's entities name list and `~=` on an entity's name to candidate rows
(docs/design.md B35), never changing which rows come back nor their order.

- the entities list (`search/name_lists.py`) of each query equals a brute-force Python
  version of its SQL over all entities (folded equality or containment, tiers, order,
  depth, the passages holding each name), with case, non-ASCII names, names and query
  words shorter than a trigram, and long queries (equality only);
- the rows of `$.entities[?(@.name~="x")]` equal a brute-force Python filter, and the
  compiled SQL equals the scan's row for row;
- a schema-15 file is upgraded by the next writer and then answers as a fresh index;
- the writer keeps the table current through changes and deletions;
- the stock sqlite3 shell (3.40) reads the file and runs the compiled SQL.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import apsw
import pytest

import docql_sqlite
from docql_sqlite.dialect import SQLITE
from docql_sqlite.dialect.postgres import POSTGRES
from docql_sqlite.errors import DatabaseError
from docql_sqlite.query.compiler import compile_query
from docql_sqlite.search import name_lists
from docql_sqlite.search import terms as search_terms
from docql_sqlite.search.query_names import query_names
from docql_sqlite.sqlparams import Params
from docql_sqlite.store.sqlite import db as dbmod
from docql_sqlite.text import fold

SQLITE3 = shutil.which("sqlite3", path="/usr/bin") or shutil.which("sqlite3")
ENTITIES = next(n for n in name_lists.NAME_LISTS if n.name == "entities")
FILES = {
    "guide/terms.md": """# Glossary

Docker Volume
: A named volume that outlives its container.

docker volume create
: Creates a volume.

Größe
: The size, in German.

GRÖSSE
: The size, shouted.

Straße
: A street.

ΣΊΣΥΦΟΣ
: A king of Ephyra.

ab
: Two letters, shorter than a trigram.

Buffer
: A region of memory.

**Lifetime elision**: the rules that let a signature omit lifetimes.

**Borrow checker**: the pass that checks borrows.

## Class: RingBuffer

A ring.

## Buffer.read(size)

Reads.

## fs.watchFile(path, listener)

Watches a file for changes.

## GET /api/volumes

Lists the volumes.
""",
    "guide/more.md": """# More

BUFFER
: Upper case.

Offer
: Not a buffer.

buffered reader
: Reads through a buffer.

lifetime
: How long a value lives.

| Term | Definition |
|------|------------|
| borrow | A reference. |
| Borrow Checker Error | What the pass reports. |
| σίσυφος | folded the same as the upper-case one |

## class Volume(Base)

A volume.
""",
    # A code file's entities repeat its symbols: the entities list leaves them out.
    "guide/code.py": "class Buffer:\n    def read(self):\n        pass\n\n\n"
    "def docker_volume():\n    pass\n",
}
# Smart search queries: one word (equal and contain), two or three (the joined forms
# contain), more than three (equality only), short words, case and non-ASCII.
SEARCHES = [
    "buffer",
    "BUFFER",
    "buf",
    "ab",
    "a b",
    "Größe",
    "GRÖSSE",
    "grosse",
    "straße",
    "σίσυφος",
    "docker volume",
    "docker volume create",
    "lifetime elision",
    "borrow checker error",
    "watch a file for changes",
    "borrow checker error in a lifetime",  # > 3 words: equality only
    "ab cd ef gh",  # > 3 words, each shorter than a trigram: the scan
    "buffer ab",  # a name too short for trigrams: the scan
    "volume",
    "fs.watchFile",
    "get /api/volumes",
    "xyzzy",
    "-buffer reader",
]
NEEDLES = [
    "Buffer",
    "buffer",
    "buf",
    "bu",  # shorter than a trigram: the scan
    "größe",
    "GRÖSSE",
    "straße",
    "ΣΊΣΥΦΟΣ",
    "volume",
    "docker volume",
    "/api/",
    "xyzzy",
    '"quoted',
]


@pytest.fixture(scope="module")
def entity_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("entities")
    for name, text in FILES.items():
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    db = root / "index.db"
    docql_sqlite.index(str(db), [str(root / "docs")])
    return db


# -- smart search's entities list ----------------------------------------------------------
def list_rows(store: Any, query: str, depth: int = 30) -> list[tuple[Any, ...]]:
    terms = search_terms.parse(query)
    rows = name_lists.rows(store, ENTITIES, terms, query_names(terms), (), depth)
    return [(r["path"], r["chunk_index"], r["_match"], r["_tier"], r["_weight"]) for r in rows]


def brute_force_list(conn: apsw.Connection, query: str, depth: int = 30) -> list[tuple[Any, ...]]:
    """The entities list by a Python scan of every entity and chunk: names of non-code
    files equal to a query name or containing one of the contain names, by tier (spelled
    as a word the query types with its punctuation 4, equal 3, starts with 2, contains
    1), length, path and line, the first `depth`, then the passages holding each, in that
    order and then by chunk index; a name so typed that one passage holds weighs 1.0, or
    2.0 when it is an API's and the query that one name."""
    terms = search_terms.parse(query)
    names = query_names(terms)
    typed = set(name_lists._typed_names(terms))
    negated = [t for t in terms if t.negated]
    assert not negated or query.startswith("-")
    entities = conn.execute(
        "SELECT d.id, d.path, e.line, e.name_fold, e.name, e.entity_type FROM entities e "
        "JOIN documents d ON d.id = e.doc_id WHERE d.format != 'code'"
    ).fetchall()
    named = []
    kinds: dict[tuple[int, int, str], str] = {}
    for doc, path, line, name, spelled, kind in entities:
        kinds[doc, line, name] = kind
        assert name == fold(name)  # stored folded
        selected = name in names.equal or any(c in name for c in names.contain)
        if selected and spelled in typed:
            tier = 4
        elif name in names.equal:
            tier = 3
        elif any(name.startswith(c) for c in names.contain):
            tier = 2
        elif any(c in name for c in names.contain):
            tier = 1
        else:
            continue
        named.append((-tier, len(name), path, line, doc, name))
    api = set()
    named.sort()
    chunks = conn.execute("SELECT doc_id, line, end_line, chunk_index, fold, content FROM chunks")
    chunk_rows = chunks.fetchall()
    out = []
    for neg_tier, length, path, line, doc, name in named[:depth]:
        for c_doc, c_line, c_end, index, folded, content in chunk_rows:
            if c_doc != doc or not c_line <= line <= c_end:
                continue
            text = folded if folded is not None else fold(content)
            if negated and any(fold(t.text) in text for t in negated):
                continue
            weight = names.weight(name)
            if kinds[doc, line, name] == "API":
                api.add((path, index, name))
            out.append(((neg_tier, length, path, index), (path, index, name, -neg_tier, weight)))
    out.sort(key=lambda row: row[0])
    rows = [row for _, row in out]
    typed_rows = Counter(row[2] for row in rows if row[3] == 4 and row[2][:1] != "-")
    return [
        (*row[:4], 2.0 if row[:3] in api and names.words == 1 else 1.0)
        if row[3] == 4 and typed_rows[row[2]] == 1
        else row
        for row in rows
    ]


def same_order(got: list[tuple[Any, ...]], expected: list[tuple[Any, ...]]) -> bool:
    """The same rows in the same order of the list's ORDER BY (tier, length, path, chunk);
    rows equal in all of those (two names of one passage) may come in either order."""

    def key(row: tuple[Any, ...]) -> tuple[Any, ...]:
        return (-row[3], len(row[2]), row[0], row[1])

    return [key(r) for r in got] == [key(r) for r in expected] and sorted(got) == sorted(expected)


class NameScan(type(SQLITE)):  # type: ignore[misc]
    """SQLite without the name trigrams: every name compared, as before schema 16."""

    NAME_TRIGRAMS = False


class ScanStore:
    """A store whose dialect has no name trigrams (the rest delegated)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.dialect = NameScan()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


@pytest.mark.parametrize("query", SEARCHES)
def test_the_entities_list_equals_a_brute_force_scan(entity_db: Path, query: str) -> None:
    with docql_sqlite.open(entity_db) as index:
        expected = brute_force_list(index.conn, query)
        got = list_rows(index.store, query)
        assert same_order(got, expected), (got, expected)
        assert got == list_rows(ScanStore(index.store), query)  # row for row, as the scan
        for depth in (1, 2, 3):  # the depth cuts the same names
            cut = list_rows(index.store, query, depth)
            assert same_order(cut, brute_force_list(index.conn, query, depth)), depth


def test_the_fixture_exercises_the_list(entity_db: Path) -> None:
    with docql_sqlite.open(entity_db) as index:
        found = {q: list_rows(index.store, q) for q in SEARCHES}
    assert sum(bool(rows) for rows in found.values()) >= 15
    tiers = {row[3] for rows in found.values() for row in rows}
    assert tiers == {1, 2, 3, 4}  # 4: `fs.watchFile`, typed with its dot
    assert {row[2] for row in found["GRÖSSE"]} == {"grösse"}  # both spellings, one name
    assert len(found["GRÖSSE"]) == 2
    assert [row[2] for row in found["ab"]] == ["ab"]  # shorter than a trigram: scanned


@pytest.mark.parametrize(
    ("query", "used"),
    [
        ("docker volume", True),
        ("borrow checker error in a lifetime", True),  # equality only: no name index
        ("buffer ab", False),  # "ab" has no trigram
        ("ab", False),
    ],
)
def test_which_lists_read_the_name_trigrams(entity_db: Path, query: str, used: bool) -> None:
    terms = search_terms.parse(query)
    names = query_names(terms)
    params = Params(SQLITE)
    found = name_lists._candidates(None, "entities", names.equal, names.contain, params)  # type: ignore[arg-type]
    assert (found is not None and "entities_trigram" in found) is used
    assert (
        name_lists._candidates(None, "entities", names.equal, names.contain, Params(POSTGRES))
        is None
    )  # type: ignore[arg-type]


# -- DocQL: ~= on an entity's name -------------------------------------------------------------
def brute_force_docql(conn: apsw.Connection, needle: str) -> list[tuple[str, int]]:
    """Every entity whose folded name holds the folded needle, in the spec's order (path,
    then position in the document), by a Python scan of all rows."""
    rows = conn.execute(
        "SELECT d.path, e.ord, e.name FROM entities e JOIN documents d ON d.id = e.doc_id"
    ).fetchall()
    return sorted((path, ord_) for path, ord_, name in rows if fold(needle) in fold(name))


def located(index: docql_sqlite.Index, query: str) -> list[tuple[str, int]]:
    out = []
    for item in index.query(query):
        row = index.conn.execute(
            "SELECT e.ord FROM entities e JOIN documents d ON d.id = e.doc_id "
            "WHERE d.path = ? AND e.line = ? AND e.name = ?",
            (item["path"], item["line"], item["name"]),
        ).fetchall()
        assert len(row) == 1, item
        out.append((item["path"], row[0][0]))
    return out


def docql_queries() -> list[str]:
    return [f"$.entities[?(@.name~={json.dumps(needle)})]" for needle in NEEDLES]


@pytest.mark.parametrize(
    ("query", "dialect", "used"),
    [
        ('$.entities[?(@.name~="Buffer")][0:20]', SQLITE, True),
        ('$.entities[?(@.name~="bu")]', SQLITE, False),  # < 3 characters: the scan
        ('$.entities[?(@.name~="Buffer")]', POSTGRES, False),
        ('$.entities[?(@.name=="Buffer")]', SQLITE, False),
        ('$.entities[?(@.signature~="Buffer")]', SQLITE, False),
    ],
)
def test_which_docql_reads_the_entity_trigrams(query: str, dialect: Any, used: bool) -> None:
    assert ("entities_trigram" in compile_query(query, dialect=dialect).sql) is used


def test_entity_name_contains_equals_a_brute_force_scan(entity_db: Path) -> None:
    nonempty = 0
    with docql_sqlite.open(entity_db) as index:
        for needle in NEEDLES:
            query = f"$.entities[?(@.name~={json.dumps(needle)})]"
            expected = brute_force_docql(index.conn, needle)
            assert located(index, query) == expected, query
            assert located(index, query + "[0:2]") == expected[:2], query
            nonempty += bool(expected)
    assert nonempty >= 8


def test_the_compiled_sql_equals_the_scan_row_for_row(entity_db: Path) -> None:
    conn = apsw.Connection(str(entity_db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        for query in docql_queries():
            rows = {}
            for name, dialect in (("trigrams", SQLITE), ("scan", NameScan())):
                compiled = compile_query(query, dialect=dialect)
                rows[name] = list(conn.execute(compiled.sql, compiled.bound_params()))
            assert rows["trigrams"] == rows["scan"], query
    finally:
        conn.close()


# -- the upgrade ---------------------------------------------------------------------------------
def as_schema_15(source: Path, dest: Path) -> Path:
    """A copy of `source` as schema 15 wrote it: no `entities_trigram`."""
    shutil.copy(source, dest)
    conn = apsw.Connection(str(dest))
    conn.execute("DROP TABLE entities_trigram")
    conn.execute("UPDATE meta SET value = '15' WHERE key = 'schema_version'")
    conn.execute("VACUUM")
    conn.close()
    return dest


def test_a_schema_15_file_is_upgraded_and_answers_as_a_fresh_one(
    entity_db: Path, tmp_path: Path
) -> None:
    old = as_schema_15(entity_db, tmp_path / "old.db")
    with pytest.raises(
        DatabaseError, match=f"schema 15; this docql-sqlite needs schema {dbmod.SCHEMA_VERSION}"
    ):
        docql_sqlite.open(old)
    dbmod.connect(old).close()  # what an `index` run does first
    with docql_sqlite.open(old) as index, docql_sqlite.open(entity_db) as fresh:
        assert index.status()["schema_version"] == dbmod.SCHEMA_VERSION >= 16
        count = index.conn.execute(
            "SELECT count(*) FROM entities_trigram WHERE entities_trigram MATCH '\"buf\"'"
        ).fetchone()[0]
        assert count > 0
        for query in docql_queries():
            assert list(index.query(query)) == list(fresh.query(query)), query
        for query in SEARCHES:
            assert list_rows(index.store, query) == list_rows(fresh.store, query), query
    conn = apsw.Connection(str(old))
    conn.execute("INSERT INTO entities_trigram(entities_trigram) VALUES ('integrity-check')")
    conn.close()


# -- the writer keeps it current ------------------------------------------------------------------
def test_the_writer_keeps_the_entity_trigrams_current(tmp_index: Any) -> None:
    tmp_index.write_many(
        {
            "a.md": "# A\n\nBuffer\n: memory.\n\nGröße\n: size.\n",
            "b.md": "# B\n\nOtherBuffer\n: another.\n",
        }
    )
    tmp_index.index()
    tmp_index.write("a.md", "# A\n\nJournal\n: a log.\n\nGRÖSSE\n: size.\n")
    (tmp_index.docs / "b.md").unlink()
    tmp_index.write("c.md", "# C\n\nBufferAgain\n: again.\n")
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as index:
        names = lambda kw: [  # noqa: E731
            i["name"] for i in index.query(f"$.entities[?(@.name~={json.dumps(kw)})]")
        ]
        assert names("buffer") == ["BufferAgain"]
        assert names("journal") == ["Journal"]
        assert names("größe") == ["GRÖSSE"] == names("grösse")  # ß folds to ss
        assert names("grosse") == []  # ö is not o
        listed = [row[2] for row in list_rows(index.store, "buffer")]
        assert listed == ["bufferagain"]
        stale = index.conn.execute(
            "SELECT count(*) FROM entities_trigram WHERE entities_trigram MATCH '\"buf\"' "
            "AND rowid NOT IN (SELECT id FROM entities)"
        ).fetchone()[0]
        assert stale == 0
    conn = apsw.Connection(str(tmp_index.db))
    conn.execute("INSERT INTO entities_trigram(entities_trigram) VALUES ('integrity-check')")
    conn.close()


# -- the stock shell -------------------------------------------------------------------------------
@pytest.mark.skipif(SQLITE3 is None, reason="no sqlite3 shell")
@pytest.mark.parametrize(
    "query",
    ['$.entities[?(@.name~="Buffer")][0:20]', '$.entities[?(@.name~="größe")]'],
)
def test_the_sqlite3_shell_runs_the_entity_trigram_sql(entity_db: Path, query: str) -> None:
    with docql_sqlite.open(entity_db) as index:
        compiled = index.compile(query)
        expected = [(i["path"], i["line"], i["name"]) for i in index.query(query)]
    assert expected and "entities_trigram" in compiled.sql
    assert SQLITE3 is not None
    done = subprocess.run(
        [SQLITE3, "-readonly", "-json", str(entity_db)],
        input=compiled.inline_sql(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout or "[]")
    assert [(r["path"], r["line"], r["name"]) for r in rows] == expected


@pytest.mark.skipif(SQLITE3 is None, reason="no sqlite3 shell")
def test_the_sqlite3_shell_reads_the_table(entity_db: Path) -> None:
    done = subprocess.run(
        [SQLITE3, "-readonly", str(entity_db)],
        input="SELECT count(*) FROM entities_trigram WHERE entities_trigram MATCH '\"uff\"';\n"
        "PRAGMA integrity_check;\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    count, check = done.stdout.split()
    assert int(count) >= 5 and check == "ok"
