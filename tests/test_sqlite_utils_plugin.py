"""The sqlite-utils plugin, through the real `sqlite-utils` CLI of this virtualenv.

- `prepare_connection`: our SQL functions (and sqlite-vec, with pysqlite3) in
  `sqlite-utils query`; the values are checked against the Python functions themselves.
- `sqlite-utils docql DB QUERY`: its items equal the `Index` facade's, and for every output
  flag it prints exactly what `sqlite-utils query DB SQL` prints for the compiled SQL of
  the same query (sqlite-utils' own printer is the oracle).
- A bad query gives the caret message on stderr and exit code 2; a missing index exit 1.
- Hostile query text (SQL fragments) never writes: the file's bytes are unchanged and a
  fragment that is in a document is found as text, at its line.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import docql_sqlite
from docql_sqlite import sqlfunctions

SQLITE_UTILS = Path(sys.executable).parent / "sqlite-utils"
pytestmark = pytest.mark.skipif(
    not SQLITE_UTILS.exists(),
    reason="sqlite-utils is not installed in this virtualenv (make test installs "
    "the [sqlite-utils] extra)",
)

TOC_QUERY = "$.toc[?(@.level<=2)][0:12]"
PROJECTION_QUERY = "$.toc[?(@.level==1)][0:5].title"


def sqlite_utils(
    *args: str, cwd: Path | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SQLITE_UTILS), *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        cwd=cwd,
    )


def ok(*args: str) -> str:
    result = sqlite_utils(*args)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def has_pysqlite3() -> bool:
    try:
        import pysqlite3  # noqa: F401
    except ImportError:
        return False
    return True


def test_plugin_is_registered_with_both_hooks() -> None:
    plugins = json.loads(ok("plugins"))
    ours = [p for p in plugins if p["name"] == "docql-sqlite"]
    assert len(ours) == 1, plugins
    assert sorted(ours[0]["hooks"]) == ["prepare_connection", "register_commands"]


def test_sql_functions_in_sqlite_utils_query(corpus_db: Path) -> None:
    expressions = {
        "rrf1": ("docql_rrf(1)", sqlfunctions.SCALARS["docql_rrf"][0](1)),
        "rrf3_k10_w2": ("docql_rrf(3, 10, 2.0)", 2.0 / 13),
        "rrf_null": ("docql_rrf(NULL)", 0.0),
        "heading_equal": ("docql_heading('架构', '架构')", 3),
        "heading_prefix": ("docql_heading('Architecture of Lumen', 'architecture')", 2),
        "heading_none": ("docql_heading('Install', 'zzz')", 0),
        "chapter_yes": ("docql_chapter('1.2', ' 1.2 ')", 1),
        "chapter_no": ("docql_chapter('1.2.3', '1.2')", 0),
        "grep_count": ("docql_grep('Straße STRASSE straße', 'straße')", 3),
        "grep_regex": ("docql_grep('dec-001 DEC-002', '/dec-00[0-9]/i')", 2),
        "fold": ("docql_fold('STRASSE Straße CAFÉ')", "strasse strasse café"),
        "regexp": ("'a Lexer b' REGEXP 'Lex[a-z]+'", 1),
        "regexpi": ("regexpi('CAFÉ', 'café')", 1),
    }
    sql = "select " + ", ".join(f"{expr} as {name}" for name, (expr, _) in expressions.items())
    (row,) = json.loads(ok("query", str(corpus_db), sql))
    assert row == {name: want for name, (_, want) in expressions.items()}


def test_functions_work_over_the_index_tables(corpus_db: Path) -> None:
    """docql_chapter over the toc view gives what DocQL's chapter() gives."""
    sql = "select path, number from toc where docql_chapter(number, '1.2') order by path"
    rows = json.loads(ok("query", str(corpus_db), sql))
    with docql_sqlite.open(corpus_db) as idx:
        want = [
            {"path": s["path"], "number": s["number"]}
            for s in idx.query('$.content.chapter("1.2")')
        ]
    assert rows == sorted(want, key=lambda r: r["path"]) and rows


@pytest.mark.skipif(not has_pysqlite3(), reason="pysqlite3 is not installed: no sqlite-vec")
def test_sqlite_vec_loads_and_knn_matches_the_library(tmp_index: Any) -> None:
    tmp_index.write_many(
        {
            "keys.md": "# Keys\n\nRotate the signing keys every 90 days.\n",
            "logs.md": "# Logs\n\nRotate the log files daily.\n",
            "cats.md": "# Cats\n\nA cat sleeps sixteen hours.\n",
        }
    )
    tmp_index.index()
    docql_sqlite.embed(tmp_index.db, "hash")
    sql = (
        "select v.rowid as chunk_id, round(v.distance, 6) as distance from chunks_vec v "
        "where v.embedding match (select embedding from chunks_vec where rowid = 1) "
        "and k = 3 order by v.distance"
    )
    version = json.loads(ok("query", str(tmp_index.db), "select vec_version() as v"))
    assert version[0]["v"].startswith("v0.")
    rows = json.loads(ok("query", str(tmp_index.db), sql))
    with docql_sqlite.open(tmp_index.db) as idx:
        assert idx.has_vectors
        want = [{"chunk_id": r[0], "distance": r[1]} for r in idx.conn.execute(sql)]
    assert rows == want and len(rows) == 3 and rows[0] == {"chunk_id": 1, "distance": 0.0}


@pytest.mark.parametrize(
    "query",
    [
        "$.toc[?(@.level==1)]",
        '$.content.chapter("1.2")',
        '$.content.heading("架构")',
        '$.content.grep("关键词")',
        "$.code.classes",
        "$.toc[?(@.level==1)].title",
        '$.files[?(@.extension=="md")].path',
    ],
)
def test_docql_items_equal_the_facade(corpus_db: Path, query: str) -> None:
    """Objects as the facade returns them; a projection's values under the field's name."""
    printed = json.loads(ok("docql", str(corpus_db), query))
    with docql_sqlite.open(corpus_db) as idx:
        result = idx.query(query)
    want = json.loads(json.dumps(list(result)))
    if result.compiled.projection:
        want = [{result.compiled.projection: value} for value in want]
    assert printed == want and printed


def test_docql_path_and_limit_options(corpus_db: Path) -> None:
    printed = ok(
        "docql", str(corpus_db), "$.toc.title", "--path", "datasets/zh/*", "--limit", "3", "--csv"
    )
    with docql_sqlite.open(corpus_db) as idx:
        want = list(idx.query("$.toc.title", paths=("datasets/zh/*",), limit=3))
    assert printed.splitlines() == ["title", *want] and len(want) == 3


def test_docql_reads_the_query_from_stdin(corpus_db: Path) -> None:
    """`-` reads the query from standard input, as `sqlite-utils query DB -` does."""
    query = '$.toc[?(@.title ~= "架构")]\n  .title'
    result = sqlite_utils("docql", str(corpus_db), "-", "--nl", stdin=query)
    assert result.returncode == 0, result.stderr
    with docql_sqlite.open(corpus_db) as idx:
        want = list(idx.query(query))
    assert [json.loads(line)["title"] for line in result.stdout.splitlines()] == want
    assert "架构" in want


OUTPUT_CASES = [
    (TOC_QUERY, ()),
    (TOC_QUERY, ("--nl",)),
    (TOC_QUERY, ("--arrays",)),
    (TOC_QUERY, ("--csv",)),
    (TOC_QUERY, ("--tsv", "--no-headers")),
    (TOC_QUERY, ("-t",)),
    (TOC_QUERY, ("--fmt", "github")),
    (PROJECTION_QUERY, ()),
    (PROJECTION_QUERY, ("--raw-lines",)),
]


@pytest.mark.parametrize(
    ("query", "flags"),
    OUTPUT_CASES,
    ids=[f"{q[:12]} {' '.join(f) or 'json'}" for q, f in OUTPUT_CASES],
)
def test_output_flags_print_as_sqlite_utils_query(
    corpus_db: Path, query: str, flags: tuple[str, ...]
) -> None:
    """The oracle: sqlite-utils' own `query` command on the SQL the DocQL compiles to."""
    with docql_sqlite.open(corpus_db) as idx:
        sql = idx.compile(query).inline_sql()
    ours = ok("docql", str(corpus_db), query, *flags)
    theirs = ok("query", str(corpus_db), sql, *flags)
    assert ours == theirs
    assert "Sample corpora" in ours


def test_sql_flag_prints_the_inline_sql(corpus_db: Path) -> None:
    with docql_sqlite.open(corpus_db) as idx:
        want = idx.compile('$.toc[?(@.title ~= "架构")]', paths=("datasets/zh/*",)).inline_sql()
    printed = ok(
        "docql", str(corpus_db), '$.toc[?(@.title ~= "架构")]', "--path", "datasets/zh/*", "--sql"
    )
    assert printed == want + ";\n" and "'架构'" in printed


def test_nested_values_print_as_json_text(tmp_index: Any) -> None:
    tmp_index.write("t.md", "# T\n\n| a | b |\n|---|---|\n| 1 | x,y |\n")
    tmp_index.index()
    db = str(tmp_index.db)
    (item,) = json.loads(ok("docql", db, "$.content.table"))
    assert item["rows"] == [["1", "x,y"]]
    csv_out = ok("docql", db, "$.content.table.rows", "--csv")
    assert csv_out.splitlines() == ["rows", '"[[""1"", ""x,y""]]"']


@pytest.mark.parametrize(
    ("args", "code", "stderr"),
    [
        (
            ["$.toc[?(@.level==)]"],
            2,
            "Error: DocQLSyntaxError: expected a value after '==' at line 1, column 18\n"
            "  $.toc[?(@.level==)]\n"
            "                   ^\n",
        ),
        (
            ["$.content.tables"],
            2,
            "Error: DocQLNameError: unknown function 'tables'; did you mean 'table'? "
            "at line 1, column 11\n"
            "  $.content.tables\n"
            "            ^\n",
        ),
    ],
)
def test_bad_query_caret_message_and_exit_code(
    corpus_db: Path, args: list[str], code: int, stderr: str
) -> None:
    result = sqlite_utils("docql", str(corpus_db), *args)
    assert (result.returncode, result.stderr, result.stdout) == (code, stderr, "")


def test_missing_and_foreign_databases(tmp_path: Path) -> None:
    missing = tmp_path / "nope.db"
    result = sqlite_utils("docql", str(missing), "$.toc")
    assert result.returncode == 1
    assert result.stderr == (
        f"Error: no index at '{missing}'; create one with: docql-sqlite index {missing} PATH...\n"
    )
    assert not missing.exists()  # looking did not create it
    other = tmp_path / "plain.db"
    ok("create-table", str(other), "t", "x", "text")
    result = sqlite_utils("docql", str(other), "$.toc")
    assert (result.returncode, result.stderr) == (
        1,
        f"Error: '{other}' is a SQLite file but not a docql-sqlite index\n",
    )


def digest(db: Path) -> str:
    """The bytes of the database and its WAL (a write would change one of them; a reader
    may create an empty WAL file, which is no change)."""
    sha = hashlib.sha256()
    for path in (db, db.with_name(db.name + "-wal")):
        sha.update(path.read_bytes() if path.exists() else b"")
        sha.update(b"\0")
    return sha.hexdigest()


HOSTILE_TEXT = "x'); DROP TABLE documents; --"


@pytest.mark.parametrize(
    ("query", "extra", "code"),
    [
        (f'$.content.grep("{HOSTILE_TEXT}")', (), 0),
        ('$.toc[?(@.title == "x\' OR 1=1 --")]', (), 0),
        ('$.content.heading("\\"; DELETE FROM chunks; --")', (), 0),
        ("$.files[?(@.path ~= \"%'; ATTACH DATABASE 'ATTACHED' AS x; --\")]", (), 0),
        ("$.toc", ("--path", "*' OR 1=1; DROP TABLE sections; --"), 0),
        ("$.toc", ("--limit", "9" * 30), 2),
        ("'; DROP TABLE documents; --", (), 2),
        ("$.toc; DROP TABLE documents", (), 2),
        ("$.toc[?(@.level==1)] UNION SELECT * FROM documents", (), 2),
        ('$.content.grep("/(a+)+$/")', (), 0),
        (f'$.content.search("{HOSTILE_TEXT}")', (), 0),
        (f'$.content.similar("{HOSTILE_TEXT}")', (), 0),
    ],
)
def test_hostile_query_text_never_writes(
    tmp_index: Any, query: str, extra: tuple[str, ...], code: int
) -> None:
    tmp_index.write_many(
        {
            "a.md": "# Intro\n\nPlain text.\n\n## Notes\n\nThe string\n"
            + HOSTILE_TEXT
            + "\nends.\n",
            "b.md": "# Other\n\nNothing here.\n",
        }
    )
    tmp_index.index()
    docql_sqlite.embed(tmp_index.db, "hash")
    before = digest(tmp_index.db)
    counts = tmp_index.counts()
    query = query.replace("ATTACHED", str(tmp_index.root / "attached.db"))
    result = sqlite_utils("docql", str(tmp_index.db), query, *extra, cwd=tmp_index.root)
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    assert digest(tmp_index.db) == before
    assert tmp_index.counts() == counts
    assert not (tmp_index.root / "attached.db").exists()
    if code == 2 and not extra:
        assert result.stderr.startswith("Error: DocQL") and result.stdout == ""
    if query.startswith("$.content.grep(\"x'"):  # the fragment is data, found where it is
        hits = json.loads(result.stdout)
        assert [(h["path"], h["hit_line"]) for h in hits] == [("docs/a.md", 8)]
    if query.startswith("$.content.s"):  # ranked: the passage holding the fragment first
        hits = json.loads(result.stdout)
        assert hits and (hits[0]["path"], hits[0]["section"]) == ("docs/a.md", "Notes")
