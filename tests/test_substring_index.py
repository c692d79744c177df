"""Schema 9 and `index --trigram`: trigram FTS5 tables that narrow heading() and grep() to
candidate rows (docs/design.md B35), never changing which rows come back.

- `sections_trigram` (every file since schema 9, external content on `sections`, kept by
  triggers in schemas 9-11, by the writer with each batch since schema 12) and
  `chunks_trigram` (optional, contentless, written by the writer): the SQL uses them only
  for needles of 3+ characters, and the rows equal a scan's (the grep and
  title oracles in test_grep_folds.py and test_docql_oracle.py run on both kinds of index);
- a schema-7 file is refused by a reader and upgraded by the next `index` run, and then
  answers every heading query as a fresh index does;
- the writer keeps both tables current through changes and deletions;
- the stock sqlite3 shell (3.40) runs the compiled SQL (`--sql --inline`) with the same rows.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import apsw
import pytest
from click.testing import CliRunner
from conftest import query as read_rows
from conftest import trigram_copy

import docql_sqlite
from docql_sqlite.cli import cli
from docql_sqlite.dialect import SQLITE, SQLITE_CHUNK_TRIGRAMS, SqliteDialect
from docql_sqlite.dialect.postgres import POSTGRES
from docql_sqlite.errors import DatabaseError
from docql_sqlite.query.common_trigrams import COMMON_TRIGRAMS
from docql_sqlite.query.compiler import compile_query
from docql_sqlite.query.filters import COMMON_CUT, MAX_TRIGRAMS, MIN_TRIGRAMS, trigram_query
from docql_sqlite.store.sqlite import db as dbmod

SQLITE3 = shutil.which("sqlite3", path="/usr/bin") or shutil.which("sqlite3")
# Schemas 9-11 kept `sections_trigram` with these; schema 12 dropped them (the writer does).
TRIGGERS = ("sections_trigram_insert", "sections_trigram_delete", "sections_trigram_update")
HEADINGS = [
    '$.content.heading("install")',
    '$.content.heading("Installation")',
    '$.content.heading("architecture")',
    '$.content.heading("架构")',
    '$.content.heading("in")',
    '$.content.heading("quarantines")',  # no title: the body fallback
    '$.content.heading("xyzzy")',
    '$.content.h2("config")',
    "$.content.heading()",
]
GREPS = [
    '$.content.grep("replication")',
    '$.content.grep("WAL")',
    '$.content.grep("架构")',
    '$.content.grep("系统架构")',
    '$.content.grep("ésclave")',
    '$.content.grep("e")',
    '$.content.grep("xyzzy")',
    '$.content.grep("design\\n")',  # a newline inside the trigrams
    "$.content.grep(/repl\\w+tion/)",
    "$.content.grep(/Lex[a-z]+/)",
    "$.content.grep(/caf[eé]/i)",
]


def answers(path: Path, query: str) -> list[Any]:
    with docql_sqlite.open(path) as index:
        return list(index.query(query))


# -- the FTS5 query ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("needle", "expected"),
    [
        ("ab", None),
        ("", None),
        ("abc", '"abc"'),
        ("abcd", '"abc" "bcd"'),
        ("aaaa", '"aaa"'),  # the same trigram once
        ('a"bc', '"a""b" """bc"'),  # a quote doubled inside the FTS5 string
        ("架构设计", '"架构设" "构设计"'),
    ],
)
def test_trigram_query(needle: str, expected: str | None) -> None:
    assert trigram_query(needle) == expected


def test_a_long_needle_asks_for_its_rarest_trigrams() -> None:
    needle = "the quick brown fox jumps"
    query = trigram_query(needle)
    assert query is not None
    grams = re.findall(r'"((?:[^"]|"")*)"', query)
    assert len(grams) == MAX_TRIGRAMS
    assert all(g in needle for g in grams)
    assert "jum" in grams and "the" not in grams  # rare letters first, common ones left out


@pytest.mark.parametrize(
    ("needle", "left_out"),
    [
        ("EADDRINUSE", {"ADD", "USE", "RIN", "EAD"}),  # letters alone took ADD and USE for rare
        ("ValueError", {"Val", "alu", "lue", "Err"}),
        ("createReadStream", {"cre", "rea", "ead", "ate", "Str"}),
        ("setTimeout", {"set", "out"}),
    ],
)
def test_common_trigrams_are_left_out_once_rarer_ones_are_named(
    needle: str, left_out: set[str]
) -> None:
    """A trigram's row list is as long as the share of chunks that hold it: the query
    names the needle's rare trigrams, and a very common one (in the first COMMON_CUT of
    the table) only while fewer than MIN_TRIGRAMS are named."""
    query = trigram_query(needle)
    assert query is not None
    grams = re.findall(r'"((?:[^"]|"")*)"', query)
    assert MIN_TRIGRAMS <= len(grams) <= MAX_TRIGRAMS
    assert not set(grams) & left_out, grams
    every = list(dict.fromkeys(needle[i : i + 3] for i in range(len(needle) - 2)))
    assert [g for g in every if g in grams] == grams  # in needle order

    def common(gram: str) -> bool:
        return gram.lower() in COMMON_TRIGRAMS[:COMMON_CUT]

    if sum(1 for g in every if not common(g)) >= MIN_TRIGRAMS:
        assert not any(common(g) for g in grams), grams
    else:
        assert len(grams) == MIN_TRIGRAMS


def test_a_needle_of_common_trigrams_still_names_some() -> None:
    """Every trigram of `SELECT` is common: two are still named (any subset is sound)."""
    query = trigram_query("select")
    assert query is not None
    assert len(re.findall(r'"((?:[^"]|"")*)"', query)) == MIN_TRIGRAMS


def test_the_common_trigram_table() -> None:
    """scripts/common_trigrams.py's output: distinct lower-case ASCII trigrams."""
    assert len(COMMON_TRIGRAMS) == len(set(COMMON_TRIGRAMS)) == 1024
    assert all(len(g) == 3 and g.isascii() and g == g.lower() for g in COMMON_TRIGRAMS)
    assert COMMON_TRIGRAMS.index("the") < COMMON_CUT and "xyz" not in COMMON_TRIGRAMS


# -- which SQL uses them ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "dialect", "table"),
    [
        ('$.content.heading("install")', SQLITE, "sections_trigram"),
        ('$.content.h3("install")', SQLITE, "sections_trigram"),
        ('$.content.heading("in")', SQLITE, None),  # < 3 characters: the scan
        ('$.content.heading("install")', POSTGRES, None),
        ('$.content.grep("install")', SQLITE, None),  # no chunk trigrams: the scan
        ('$.content.grep("install")', SQLITE_CHUNK_TRIGRAMS, "chunks_trigram"),
        ('$.content.grep("in")', SQLITE_CHUNK_TRIGRAMS, None),
        ("$.content.grep(/inst\\w+/)", SQLITE_CHUNK_TRIGRAMS, "chunks_trigram"),
        ("$.content.grep(/\\w+/)", SQLITE_CHUNK_TRIGRAMS, None),  # no required literal
        ("$.content.grep(/größe/)", SQLITE_CHUNK_TRIGRAMS, None),  # non-ASCII literal
        ('$.content.heading("xyzzy")', SQLITE_CHUNK_TRIGRAMS, "sections_trigram chunks_trigram"),
    ],
)
def test_which_sql_reads_a_trigram_table(query: str, dialect: Any, table: str | None) -> None:
    sql = compile_query(query, dialect=dialect).sql
    used = {t for t in ("sections_trigram", "chunks_trigram") if t in sql}
    assert used == set((table or "").split())


# -- same rows -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def with_trigrams(corpus_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return trigram_copy(corpus_db, tmp_path_factory.mktemp("trigrams") / "t.db")


def without_title_trigrams(source: Path, dest: Path, version: int = 9) -> Path:
    """A copy of `source` whose heading queries cannot use `sections_trigram` (dropped)."""
    shutil.copy(source, dest)
    conn = apsw.Connection(str(dest))
    for trigger in TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute("DROP TABLE sections_trigram")
    conn.execute(f"UPDATE meta SET value = '{version}' WHERE key = 'schema_version'")
    conn.execute("VACUUM")
    conn.close()
    return dest


@pytest.mark.parametrize("query", HEADINGS + GREPS)
def test_the_trigram_index_changes_no_row(corpus_db: Path, with_trigrams: Path, query: str) -> None:
    expected = answers(corpus_db, query)
    assert answers(with_trigrams, query) == expected, query


REGEX_GREPS = [
    ("/repl\\w+tion/", r"repl\w+tion", 0),
    ("/WAL\\s+rec\\w+/", r"WAL\s+rec\w+", 0),  # not the wal of "wall"
    ("/Wal\\s*RECORD/i", r"Wal\s*RECORD", re.IGNORECASE),
    ("/(?i)wal\\s+record/", r"(?i)wal\s+record", 0),
    ("/The\\s+\\w+ \\w+ is/", r"The\s+\w+ \w+ is", 0),
    ("/e[a-z]+s\\.$/m", r"(?m)e[a-z]+s\.$", 0),
]


@pytest.mark.parametrize(("query", "pattern", "flags"), REGEX_GREPS)
def test_a_regex_grep_equals_a_scan_of_every_chunk(
    corpus_db: Path, with_trigrams: Path, query: str, pattern: str, flags: int
) -> None:
    """grep(/…/) with its pre-filters (the literal runs in order, in the trigram table and
    by GLOB or LIKE) returns exactly the chunks Python's regex finds in a scan of all."""
    rows = read_rows(
        corpus_db,
        "SELECT d.path, c.chunk_index, c.content FROM chunks c JOIN documents d ON d.id = c.doc_id",
    )
    regex = re.compile(pattern, flags)
    expected = sorted((path, n) for path, n, text in rows if regex.search(text))
    assert expected, query  # the corpus has matches: an empty answer would pass otherwise
    for db in (corpus_db, with_trigrams):
        found = sorted(
            (r["path"], r["chunk_index"]) for r in answers(db, f"$.content.grep({query})")
        )
        assert found == expected, (db.name, query)


class TitleScan(SqliteDialect):
    """SQLite without the title trigrams: instr() over every title, as before schema 9."""

    TITLE_TRIGRAMS = False


def test_headings_equal_a_title_scan(corpus_db: Path) -> None:
    """The same heading rows (and order) from the title trigrams as from the scan."""
    conn = apsw.Connection(str(corpus_db), flags=apsw.SQLITE_OPEN_READONLY)
    nonempty = 0
    try:
        for query in HEADINGS:
            rows = {}
            for name, dialect in (("trigrams", SQLITE), ("scan", TitleScan())):
                compiled = compile_query(query, dialect=dialect)
                rows[name] = list(conn.execute(compiled.sql, compiled.bound_params()))
            assert rows["trigrams"] == rows["scan"], query
            nonempty += bool(rows["scan"])
    finally:
        conn.close()
    assert nonempty >= len(HEADINGS) - 2


# -- the upgrade -------------------------------------------------------------------------------
def test_a_schema_7_file_is_upgraded_and_answers_as_a_fresh_one(
    corpus_db: Path, tmp_path: Path
) -> None:
    old = without_title_trigrams(corpus_db, tmp_path / "old.db", version=7)
    with pytest.raises(
        DatabaseError, match=f"schema 7; this docql-sqlite needs schema {dbmod.SCHEMA_VERSION}"
    ):
        docql_sqlite.open(old)
    dbmod.connect(old).close()  # what an `index` run does first
    conn = apsw.Connection(str(old), flags=apsw.SQLITE_OPEN_READONLY)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema")}
    count = conn.execute(
        "SELECT count(*) FROM sections_trigram WHERE sections_trigram MATCH '\"ins\"'"
    ).fetchone()[0]
    conn.close()
    assert "sections_trigram" in names and not set(TRIGGERS) & names and count > 0
    with docql_sqlite.open(old) as index:
        assert index.status()["schema_version"] == dbmod.SCHEMA_VERSION
    for query in HEADINGS:
        assert answers(old, query) == answers(corpus_db, query), query
    conn = apsw.Connection(str(old))
    conn.execute("INSERT INTO sections_trigram(sections_trigram) VALUES ('integrity-check')")
    conn.close()


# -- the writer keeps them current --------------------------------------------------------------
def test_the_writer_keeps_both_tables_current(tmp_index: Any) -> None:
    tmp_index.write_many(
        {
            "a.md": "# Installing Lumen\n\nThe replication log.\n\n## Straße setup\n\nGröße x\n",
            "b.md": "# Other\n\nNothing here about replicas.\n",
        }
    )
    tmp_index.index(trigram=True)
    db = tmp_index.db
    assert answers(db, '$.content.grep("replication")')[0]["path"] == "docs/a.md"
    tmp_index.write("a.md", "# Upgrading Lumen\n\nThe journal.\n\n## Strasse setup\n\nGROSSE\n")
    (tmp_index.docs / "b.md").unlink()
    tmp_index.write("c.md", "# Installing again\n\nreplication is back\n")
    tmp_index.index()  # no --trigram: a file that has the table keeps it current
    with docql_sqlite.open(db) as index:
        assert index.has_chunk_trigrams
        grep = lambda kw: [i["path"] for i in index.query(f"$.content.grep({json.dumps(kw)})")]  # noqa: E731
        heading = lambda kw: [
            i["title"] for i in index.query(f"$.content.heading({json.dumps(kw)})")
        ]  # noqa: E731
        assert grep("replication") == ["docs/c.md"]
        assert grep("replicas") == [] and grep("journal") == ["docs/a.md"]
        assert grep("grosse") == ["docs/a.md"] and grep("größe") == []
        assert heading("installing") == ["Installing again"]
        assert heading("upgrading") == ["Upgrading Lumen"]
        # titles compare folded: "straße" is "strasse"; the old title is gone
        assert heading("straße") == ["Strasse setup"] == heading("STRASSE")
        assert heading("straße setup") == ["Strasse setup"] and heading("installing lumen") == []
        # No row of the trigram tables outlives its chunk or section.
        stale_chunks = index.conn.execute(
            "SELECT count(*) FROM chunks_trigram WHERE chunks_trigram MATCH '\"rep\"' "
            "AND rowid NOT IN (SELECT id FROM chunks)"
        ).fetchone()[0]
        assert stale_chunks == 0
    conn = apsw.Connection(str(db))
    conn.execute("INSERT INTO sections_trigram(sections_trigram) VALUES ('integrity-check')")
    conn.execute("INSERT INTO chunks_trigram(chunks_trigram) VALUES ('integrity-check')")
    conn.close()


def test_index_trigram_on_the_command_line(tmp_index: Any) -> None:
    tmp_index.write("a.md", "# Title\n\nEADDRINUSE here\n")
    runner = CliRunner()
    with docql_sqlite_cwd(tmp_index.root):
        done = runner.invoke(cli, ["index", "index.db", "docs", "--trigram", "--json"])
    assert done.exit_code == 0, done.output
    with docql_sqlite.open(tmp_index.db) as index:
        assert index.has_chunk_trigrams
        compiled = index.compile('$.content.grep("EADDRINUSE")')
        assert "chunks_trigram MATCH" in compiled.sql
        assert [i["path"] for i in index.query('$.content.grep("eaddrinuse")')] == ["docs/a.md"]


def test_index_trigram_refuses_postgresql() -> None:
    done = CliRunner().invoke(cli, ["index", "postgresql://localhost/nowhere", "docs", "--trigram"])
    assert done.exit_code != 0
    assert "--trigram adds an FTS5 table to an index file" in done.output


def docql_sqlite_cwd(path: Path) -> Any:
    from conftest import chdir

    return chdir(path)


# -- the stock shell -----------------------------------------------------------------------------
@pytest.mark.skipif(SQLITE3 is None, reason="no sqlite3 shell")
@pytest.mark.parametrize("query", [q for q in HEADINGS + GREPS if "/" not in q])
def test_the_sqlite3_shell_runs_the_trigram_sql(with_trigrams: Path, query: str) -> None:
    with docql_sqlite.open(with_trigrams) as index:
        compiled = index.compile(query)
        expected = [(i["path"], i["line"]) for i in index.query(query)]
    assert SQLITE3 is not None
    done = subprocess.run(
        [SQLITE3, "-readonly", "-json", str(with_trigrams)],
        input=compiled.inline_sql(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout or "[]")
    assert [(r["path"], r["line"]) for r in rows] == expected
