"""Schema 7 (sql/007_query_indexes.sql): the indexes DocQL lookups use, and the upgrade of
a schema-6 file to it.

- a schema-6 index (the same file with the four new indexes dropped, `sections_number`
  back and its version set to 6: exactly what 007 changes) is refused by a reader with
  the usual message, and upgraded in place by the next `index` run: indexes there,
  version 7, same answers;
- on the session's index the plans of the lookups those indexes are for say `SEARCH ...
  USING INDEX` (they said `SCAN` before), and every query class gives the same items with
  and without the indexes (the indexes change how, never what);
- the upgraded file opens in the sqlite3 shell (3.40 here) and its integrity check passes.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import apsw
import pytest

import docql_sqlite
from docql_sqlite.errors import DatabaseError
from docql_sqlite.store.sqlite import db as dbmod

NEW_INDEXES = {"sections_anchor", "sections_number_doc", "documents_name", "symbols_kind_name"}
SQLITE3 = shutil.which("sqlite3", path="/usr/bin") or shutil.which("sqlite3")

# Lookups and the index each must search with (EXPLAIN QUERY PLAN's detail).
LOOKUPS = {
    '$.content.chapter("#installation")': "USING INDEX sections_anchor",
    '$.files[?(@.name=="install.md")].toc': "USING COVERING INDEX documents_name",
    '$.files[?(@.name=="install.md")].content.chapter("1")': (
        "USING INDEX sections_number_doc (number=? AND doc_id=?)"
    ),
    '$.content.chapter("1.1")': "USING INDEX sections_number_doc (number=?)",
    # ~= on a name reads its candidates from the name trigrams (schema 15)
    '$.code.classes[?(@.name~="query")]': "SCAN symbols_trigram VIRTUAL TABLE",
    '$.code.functions[?(@.name=="main")]': "USING INDEX symbols_kind_name",
    # and on an entity's name from theirs (schema 16)
    '$.entities[?(@.name~="index")]': "SCAN entities_trigram VIRTUAL TABLE",
}
# One query per class the indexes could touch, answered with and without them.
SAME_ANSWERS = [
    *LOOKUPS,
    '$.content.chapter("1")',
    '$.files[?(@.name~=".md")].toc[?(@.level==1)]',
    "$.code.classes",
    '$.code.methods[?(@.name~="e")][0:5]',
    '$.content.heading("install")',
    "$.toc[?(@.level==2)][0:10]",
]


def indexes(path: Path) -> set[str]:
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    finally:
        conn.close()


def as_schema_6(source: Path, dest: Path) -> Path:
    """A copy of `source` as schema 6 wrote it: without 007's indexes, version 6."""
    shutil.copy(source, dest)
    conn = apsw.Connection(str(dest))
    for name in NEW_INDEXES:
        conn.execute(f"DROP INDEX {name}")
    conn.execute("CREATE INDEX sections_number ON sections(number)")  # 007 replaced it
    conn.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    conn.execute("VACUUM")
    conn.close()
    return dest


def answers(path: Path, query: str) -> list[object]:
    with docql_sqlite.open(path) as index:
        return list(index.query(query))


def test_the_session_index_has_the_schema_7_indexes(corpus_db: Path) -> None:
    assert dbmod.SCHEMA_VERSION >= 7
    assert NEW_INDEXES <= indexes(corpus_db)
    assert "sections_number" not in indexes(corpus_db)  # sections_number_doc serves its lookups


@pytest.mark.parametrize("query", list(LOOKUPS))
def test_the_lookups_search_an_index(corpus_db: Path, query: str) -> None:
    with docql_sqlite.open(corpus_db) as index:
        plan = [step["detail"] for step in index.explain(query)["plan"]]
    assert any(LOOKUPS[query] in step for step in plan), plan


def test_a_schema_6_file_is_upgraded_by_the_next_run(corpus_db: Path, tmp_path: Path) -> None:
    old = as_schema_6(corpus_db, tmp_path / "old.db")
    assert not NEW_INDEXES & indexes(old)
    # Without the indexes the lookups scan (what issue 12 measured at scale).
    conn = apsw.Connection(str(old), flags=apsw.SQLITE_OPEN_READONLY)
    sql = "EXPLAIN QUERY PLAN SELECT * FROM sections WHERE anchor = 'x'"
    plan = [r[3] for r in conn.execute(sql)]
    conn.close()
    assert plan == ["SCAN sections"]
    needs = f"schema 6; this docql-sqlite needs schema {dbmod.SCHEMA_VERSION}"
    with pytest.raises(DatabaseError, match=needs):
        docql_sqlite.open(old)
    dbmod.connect(old).close()  # what an `index` run does first
    assert NEW_INDEXES <= indexes(old) and "sections_number" not in indexes(old)
    with docql_sqlite.open(old) as index:
        assert index.status()["schema_version"] == dbmod.SCHEMA_VERSION


def test_same_answers_with_and_without_the_indexes(corpus_db: Path, tmp_path: Path) -> None:
    without = as_schema_6(corpus_db, tmp_path / "without.db")
    conn = apsw.Connection(str(without))
    conn.execute(f"UPDATE meta SET value = '{dbmod.SCHEMA_VERSION}' WHERE key = 'schema_version'")
    conn.close()
    nonempty = 0
    for query in SAME_ANSWERS:
        expected = answers(without, query)
        assert answers(corpus_db, query) == expected, query
        nonempty += bool(expected)
    assert nonempty >= len(SAME_ANSWERS) - 2  # the comparison is not between empty lists


@pytest.mark.skipif(SQLITE3 is None, reason="no sqlite3 shell on PATH")
def test_the_sqlite3_shell_reads_the_upgraded_file(corpus_db: Path, tmp_path: Path) -> None:
    old = as_schema_6(corpus_db, tmp_path / "shell.db")
    dbmod.connect(old).close()
    assert SQLITE3 is not None
    done = subprocess.run(
        [
            SQLITE3,
            "-readonly",
            str(old),
            "PRAGMA integrity_check;",
            "EXPLAIN QUERY PLAN SELECT count(*) FROM documents WHERE name = 'install.md';",
            "SELECT count(*) > 0 FROM documents WHERE name = 'install.md';",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "ok"
    assert "documents_name" in done.stdout
    assert lines[-1] == "1"
