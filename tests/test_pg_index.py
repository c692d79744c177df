"""`Index` and the CLI over a postgresql:// URL, and indexing into PostgreSQL from many
writers at once, against a real PostgreSQL 16 + pgvector (pgserver).

Oracles: the file index of the same files. A PostgreSQL index (copied from the file, or
written by concurrent writers) answers every reading method and DocQL query as the file
does, and holds the same rows (tests/pg_rows.py: every stored row, ids aside); vectors
written into pgvector are the same float32 values as sqlite-vec's.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, REPO
from pg_rows import content, postgres_runner, sqlite_runner
from pg_server import fresh_database, index_at_once, start_server

import docql_sqlite
from docql_sqlite import LocationError

psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the 'postgres' extra")

QUERIES = (
    "$.toc",
    "$.toc[?(@.level <= 2)]",
    "$.files",
    '$.files[?(@.extension == "md")]',
    "$.entities",
    "$.content.codeblock[*]",
    "$.content.table[*]",
    "$.structure",
    # a symbol's source: its chunks from its section's first line (the doc comment's)
    '$.code.class("*")',
    '$.code.function("*")',
)
# Locations in every form `get` reads (datasets/ paths, as the corpus index stores them).
LOCATIONS = (
    "datasets/en/handbook/03-architecture.md",
    "datasets/en/handbook/03-architecture.md:12",
    "datasets/en/handbook/03-architecture.md:5-9",
    "datasets/en/handbook/03-architecture.md:5:3",
    "03-architecture.md",
    "datasets/zh/常见问题.md:1-4",
)
# Engine-specific status fields (the database's name and size).
ENGINE_STATUS = ("database", "size_bytes")


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    yield from start_server()


@pytest.fixture(scope="module")
def corpus_pg(pg_server: Any, corpus_db: Path) -> str:
    url = fresh_database(pg_server)
    docql_sqlite.copy(str(corpus_db), url)
    return url


@pytest.fixture(scope="module")
def both(corpus_db: Path, corpus_pg: str) -> Iterator[tuple[Any, Any]]:
    file_index, pg_index = docql_sqlite.open(corpus_db), docql_sqlite.open(corpus_pg)
    yield file_index, pg_index
    pg_index.close()
    file_index.close()


def _cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, cwd=cwd, timeout=300)


# -- 1. the front door over a URL -------------------------------------------------------
@pytest.mark.parametrize("query", QUERIES)
def test_query_over_a_url_gives_the_file_rows(both: tuple[Any, Any], query: str) -> None:
    file_index, pg_index = both
    expected = list(file_index.query(query))
    assert expected, query  # an empty answer would prove nothing
    assert list(pg_index.query(query)) == expected
    assert list(pg_index.query(query, limit=3, offset=1)) == expected[1:4]


def test_compile_over_a_url_is_postgresql(both: tuple[Any, Any]) -> None:
    file_index, pg_index = both
    compiled = pg_index.compile('$.files[?(@.path ~= "zh/")]')
    assert "%(p0)s" in compiled.sql and "strpos(" in compiled.sql
    assert ":p0" in file_index.compile('$.files[?(@.path ~= "zh/")]').sql
    plan = pg_index.explain("$.toc")["plan"]
    assert plan and any("Scan" in step["detail"] for step in plan)  # PostgreSQL's EXPLAIN


def test_reading_methods_over_a_url_match_the_file(both: tuple[Any, Any]) -> None:
    file_index, pg_index = both
    assert pg_index.toc() == file_index.toc()
    assert pg_index.toc("03-architecture.md") == file_index.toc("03-architecture.md")
    for location in LOCATIONS:
        assert pg_index.get(location) == file_index.get(location), location
    assert pg_index.get("datasets/zh/config.md", 2, 3) == file_index.get(
        "datasets/zh/config.md", 2, 3
    )
    many_pg, many_file = (
        pg_index.get_many("datasets/en/**/*.md", 8000),
        file_index.get_many("datasets/en/**/*.md", 8000),
    )
    assert many_pg == many_file and many_file.excerpts and many_file.skipped
    docs = file_index.documents()
    assert [d["path"] for d in pg_index.documents()] == [d["path"] for d in docs]
    assert pg_index.documents(("*.go",)) == file_index.documents(("*.go",))
    assert pg_index.errors() == file_index.errors()
    pg_status, file_status = pg_index.status(), file_index.status()
    for key in ENGINE_STATUS:
        pg_status.pop(key), file_status.pop(key)
    assert pg_status == file_status and pg_status["documents"] == len(docs)
    assert pg_index.has_vectors is False


def test_errors_over_a_url_are_the_file_errors(both: tuple[Any, Any]) -> None:
    file_index, pg_index = both
    for index in (file_index, pg_index):
        with pytest.raises(LocationError, match="no document 'nope.md'"):
            index.get("nope.md")
        with pytest.raises(LocationError, match="past its end"):
            index.get("datasets/zh/config.md:100000")
        with pytest.raises(LocationError, match="has no pages"):
            index.get("datasets/zh/config.md:page 2")
    with pytest.raises(docql_sqlite.QueryError):
        pg_index.query("$.toc[?(@.level <<< 2)]")


def test_search_and_context_over_a_url_are_the_files(both: tuple[Any, Any]) -> None:
    file_index, pg_index = both
    # bm25 scores are FTS5's formula on both engines (test_pg_search.py pins them).
    for question in ("index configuration", "如何配置索引"):
        got = pg_index.search(question, mode="bm25", limit=5)
        want = file_index.search(question, mode="bm25", limit=5)
        assert got and [h["location"] for h in got] == [h["location"] for h in want]
    pack = pg_index.context("how is it configured?", budget=2000)
    assert pack["blocks"] and pack["chars"] <= 2000
    want_pack = file_index.context("how is it configured?", budget=2000)
    assert pack["blocks"][0] == want_pack["blocks"][0]


def test_docql_search_over_a_url_is_the_files(both: tuple[Any, Any]) -> None:
    # No vectors: search() is BM25 (AND, then OR), FTS5's formula in SQL on PostgreSQL,
    # so the items are the file's; a score may differ in its last digits (summation order).
    file_index, pg_index = both
    for query in (
        '$.content.search("index configuration")',
        '$.files[?(@.path ~= "zh/")].content.search("配置")',
        '$.content.search("compaction xylophone")',
    ):
        expected = list(file_index.query(query))
        got = list(pg_index.query(query))
        assert expected and [dict(i, score=None) for i in got] == [
            dict(i, score=None) for i in expected
        ]
        assert [i["score"] for i in got] == pytest.approx([i["score"] for i in expected])
        assert list(pg_index.query(query, limit=2, offset=1)) == got[1:3]
    with pytest.raises(docql_sqlite.DocQLError, match="needs embeddings"):
        pg_index.query('$.content.similar("x")')


def test_a_long_query_is_cancelled_by_postgresql(both: tuple[Any, Any]) -> None:
    _, pg_index = both
    with pytest.raises(docql_sqlite.QueryError, match="took too long"):
        list(pg_index.execute(_sleep(pg_index), timeout=0.2))


def _sleep(index: Any) -> Any:
    compiled = index.compile("$.files")
    return type(compiled)(
        **{**_fields(compiled), "sql": "SELECT pg_sleep(3), path AS _path FROM documents"}
    )


def _fields(compiled: Any) -> dict[str, Any]:
    from docql_sqlite import records  # Compiled is a record (records.py), not a dataclass

    return {f.name: getattr(compiled, f.name) for f in records.fields(compiled)}


# -- 2. the CLI takes the URL where it takes a file ---------------------------------------
def test_cli_reads_a_url_as_it_reads_the_file(corpus_db: Path, corpus_pg: str) -> None:
    for args in (
        ("query", "{db}", "$.toc[?(@.level <= 2)]"),
        ("query", "{db}", "$.files", "--limit", "4"),
        ("query", "{db}", '$.content.search("replication").location'),
        ("toc", "{db}", "datasets/zh/architecture.md"),
        ("get", "{db}", "datasets/en/handbook/03-architecture.md:5-9"),
        ("status", "{db}", "--errors"),
    ):
        on_file = _cli(*(a.format(db=corpus_db) for a in args))
        on_pg = _cli(*(a.format(db=corpus_pg) for a in args))
        assert on_file.returncode == on_pg.returncode == 0, on_pg.stderr
        assert json.loads(on_pg.stdout) == json.loads(on_file.stdout), args
    status = _cli("status", corpus_pg, "--json")
    assert status.returncode == 0, status.stderr
    info = json.loads(status.stdout)[0]
    assert info["database"].startswith("postgresql://") and "@" not in info["database"]
    assert info["documents"] == json.loads(_cli("status", str(corpus_db)).stdout)[0]["documents"]
    sql = _cli("query", corpus_pg, "$.files", "--sql")
    assert sql.returncode == 0 and "LIMIT ALL" not in sql.stdout and "documents" in sql.stdout


def test_cli_errors_over_a_url_are_one_line(corpus_pg: str) -> None:
    for args, code, words in (
        (("get", corpus_pg, "nope.md"), 1, "no document 'nope.md'"),
        (("query", corpus_pg, "$.toc[?(@.level <<< 2)]"), 2, "^"),
        (("serve", corpus_pg), 2, "cannot serve a PostgreSQL index; copy it to a file"),
        (("status", "postgresql://nobody@127.0.0.1:1/none"), 2, "cannot connect"),
    ):
        done = _cli(*args)
        assert done.returncode == code, (args, done.stderr)
        assert words in done.stderr, (args, done.stderr)
        if words != "^":
            assert done.stderr.count("\n") == 1, done.stderr


def test_cli_search_and_context_over_a_url(corpus_db: Path, corpus_pg: str) -> None:
    search = _cli("search", corpus_pg, "index configuration", "--mode", "bm25")
    context = _cli("context", corpus_pg, "how is it configured?", "--json")
    assert search.returncode == 0 and context.returncode == 0, search.stderr + context.stderr
    want = _cli("search", str(corpus_db), "index configuration", "--mode", "bm25")
    assert search.stdout and search.stdout == want.stdout
    assert json.loads(context.stdout)[0]["blocks"]


def test_mcp_server_over_a_url(corpus_db: Path, corpus_pg: str) -> None:
    pytest.importorskip("mcp", reason="the MCP tests need the 'mcp' extra")
    import anyio
    from mcp_client import stdio_session, text

    async def session(db: str) -> list[str]:
        async with stdio_session(db) as (s, _):
            return [
                text(await s.call_tool("toc", {"path": "datasets/zh/architecture.md"})),
                text(await s.call_tool("get", {"path": "datasets/zh/config.md:1-5"})),
                text(await s.call_tool("docql_query", {"query": "$.toc[?(@.level == 1)]"})),
            ]

    assert anyio.run(session, corpus_pg) == anyio.run(session, str(corpus_db))


# -- 3. many writers into one database ------------------------------------------------------
WRITER_ROOTS = (  # overlapping and disjoint trees, all under one root
    ("tree/en", "tree/code"),
    ("tree/zh", "tree/code"),
    ("tree",),
    ("tree/en", "tree/zh"),
)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """datasets/ (minus the bad files) under tree/, in a directory of its own."""
    root = tmp_path_factory.mktemp("writers")
    for part in ("en", "zh", "code"):
        shutil.copytree(REPO / "datasets" / part, root / "tree" / part)
    return root


@pytest.fixture(scope="module")
def single_writer_file(tree: Path) -> Path:
    db = tree / "single.db"
    done = _cli("index", str(db), "tree", "--workers", "0", cwd=tree)
    assert done.returncode == 0, done.stderr
    return db


@pytest.fixture(scope="module")
def written(pg_server: Any, tree: Path) -> str:
    """A database that the four writers of WRITER_ROOTS indexed at the same time."""
    url = fresh_database(pg_server)
    reports = index_at_once(CLI, url, tree, WRITER_ROOTS)
    assert all(r["failed"] == 0 for r in reports)
    assert sum(r["added"] for r in reports) >= 27  # every file added at least once
    return url


def test_concurrent_writers_store_every_document_once(
    written: str, single_writer_file: Path
) -> None:
    expected = content(sqlite_runner(single_writer_file))
    got = content(postgres_runner(written))
    for table in expected:
        assert got[table] == expected[table], table
    assert len(expected["documents"]) == 27 and len(expected["chunks"]) > 300
    with psycopg.connect(written) as conn:
        fts, chunks = conn.execute(
            "SELECT (SELECT count(*) FROM chunks_fts), (SELECT count(*) FROM chunks)"
        ).fetchone()
    assert fts == chunks


def test_concurrent_writers_answer_docql_as_one_writer(
    written: str, single_writer_file: Path
) -> None:
    file_index, pg_index = docql_sqlite.open(single_writer_file), docql_sqlite.open(written)
    try:
        for query_text in QUERIES:
            assert list(pg_index.query(query_text)) == list(file_index.query(query_text))
    finally:
        pg_index.close()
        file_index.close()


def test_tsvector_written_by_the_writer_is_the_copys(
    pg_server: Any, written: str, single_writer_file: Path
) -> None:
    """The writer builds each chunk's tsvector as copy does from the file's chunks."""
    copied = fresh_database(pg_server)
    docql_sqlite.copy(str(single_writer_file), copied)
    sql = (
        "SELECT d.path, c.chunk_index, f.tsv::text FROM chunks_fts f JOIN chunks c "
        "ON c.id = f.rowid JOIN documents d ON d.id = c.doc_id"
    )
    assert sorted(postgres_runner(written)(sql)) == sorted(postgres_runner(copied)(sql))


def test_a_later_run_finds_everything_unchanged(written: str, tree: Path) -> None:
    before = content(postgres_runner(written))
    again = index_at_once(CLI, written, tree, (("tree",),))[0]
    assert (again["added"], again["updated"], again["unchanged"]) == (0, 0, 27)
    assert content(postgres_runner(written)) == before


def test_edits_and_removals_from_two_writers(pg_server: Any, tmp_path: Path) -> None:
    """A file edited, one emptied, one deleted, while two writers re-index the tree at
    once: the index ends as one writer would leave it (checked against a file index)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(12):
        (docs / f"n{n:02}.md").write_text(
            f"# Note {n}\n\nBody of note {n}.\n\n## Part\n\nMore {n}.\n"
        )
    url = fresh_database(pg_server)
    index_at_once(CLI, url, tmp_path, (("docs",), ("docs",)))
    (docs / "n03.md").write_text("# Changed\n\nNew text.\n")
    (docs / "n04.md").write_text("")
    (docs / "n05.md").unlink()
    reports = index_at_once(CLI, url, tmp_path, (("docs",), ("docs",)))
    assert sum(len(r["skipped_list"]) for r in reports) >= 1  # the empty file, skipped
    single = tmp_path / "single.db"
    assert _cli("index", str(single), "docs", cwd=tmp_path).returncode == 0
    assert content(postgres_runner(url)) == content(sqlite_runner(single))


def test_a_moved_folder_keeps_its_documents_on_postgresql(pg_server: Any, tmp_path: Path) -> None:
    """As on a file (test_ingest_incremental): the folder moved, its documents follow."""
    old = tmp_path / "old"
    (old / "docs").mkdir(parents=True)
    for n in range(3):
        (old / "docs" / f"n{n}.md").write_text(f"# Note {n}\n\nBody of note {n}.\n")
    url = fresh_database(pg_server)
    assert _cli("index", url, "docs", cwd=old).returncode == 0
    ids = postgres_runner(url)("SELECT path, id FROM documents ORDER BY path")
    new = tmp_path / "new"
    old.rename(new)
    done = _cli("index", url, "docs", cwd=new)
    assert done.returncode == 0, done.stderr
    assert "0 added" in done.stderr and "3 unchanged" in done.stderr
    assert postgres_runner(url)("SELECT path, id FROM documents ORDER BY path") == ids
    uris = postgres_runner(url)("SELECT uri FROM documents")
    assert all(str(u[0]).startswith(str(new)) for u in uris)


def test_embed_into_pgvector_gives_sqlite_vec_values(pg_server: Any, tmp_index: Any) -> None:
    tmp_index.write("a.md", "# Alpha\n\nThe quick brown fox.\n\n## Beta\n\n数据库 架构 notes.\n")
    tmp_index.write("b.md", "# Gamma\n\nLazy dogs sleep all day long.\n")
    # A block of link definitions: a chunk of its own, no search passage, no vector.
    links = "\n".join(f"[`fox{i}()`]: #fox{i}" for i in range(4))
    tmp_index.write("c.md", f"# Delta\n\nThe fox again, see [`fox1()`][].\n\n{links}\n")
    url = fresh_database(pg_server)
    docql_sqlite.index(tmp_index.db, ["docs"], embed="hash:64")
    report = docql_sqlite.index(url, ["docs"], embed="hash:64")
    assert report.embedding and report.embedding["embedded"] > 0, report.embedding_error
    assert report.embedding["nothing_to_embed"] == 1
    without = (
        "SELECT c.content FROM chunks c JOIN chunk_vectors cv ON cv.chunk_id = c.id "
        "WHERE c.id NOT IN (SELECT rowid FROM chunks_vec)"
    )
    assert [r[0] for r in postgres_runner(url)(without)] == [links + "\n"]
    sql_pg = (
        "SELECT d.path, c.chunk_index, v.embedding::real[] FROM chunks_vec v "
        "JOIN chunks c ON c.id = v.rowid JOIN documents d ON d.id = c.doc_id"
    )
    with docql_sqlite.open(tmp_index.db) as index:  # loads sqlite-vec
        rows = index.rows(
            "SELECT d.path, c.chunk_index, v.embedding FROM chunks_vec v "
            "JOIN chunks c ON c.id = v.rowid JOIN documents d ON d.id = c.doc_id"
        )
        file_vectors = sorted(
            (r["path"], r["chunk_index"], list(struct.unpack("<64f", r["embedding"]))) for r in rows
        )
    assert (
        file_vectors
        and sorted((p, i, _float32(v)) for p, i, v in postgres_runner(url)(sql_pg)) == file_vectors
    )
    with docql_sqlite.open(url) as index:
        assert index.has_vectors and index.status()["embedding_model"] == "hash:64"
    # An edit re-embeds only what changed; the index keeps its model by itself.
    tmp_index.write("b.md", "# Gamma\n\nLazy cats sleep.\n")
    again = docql_sqlite.index(url, ["docs"])
    assert again.embedding is not None and again.embedding["embedded"] == 1
    again = docql_sqlite.embed(url)
    assert again["embedded"] == 0 and again["unchanged"] == again["chunks"]


def _float32(values: list[float]) -> list[float]:
    """PostgreSQL prints a real in its shortest form: back to the exact float32 value."""
    return list(struct.unpack(f"<{len(values)}f", struct.pack(f"<{len(values)}f", *values)))


def test_cli_index_and_embed_into_a_url(pg_server: Any, tmp_index: Any) -> None:
    tmp_index.write("a.md", "# Alpha\n\nThe quick brown fox.\n")
    tmp_index.write("b.md", "# Beta\n\nLazy dogs.\n")
    url = fresh_database(pg_server)
    indexed = _cli("index", url, "docs", cwd=tmp_index.root)
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)[0]["added"] == 2
    embedded = _cli("embed", url, "--model", "hash:32", cwd=tmp_index.root)
    assert embedded.returncode == 0, embedded.stderr
    report = json.loads(embedded.stdout)[0]
    assert (report["model"], report["dimensions"], report["embedded"]) == ("hash:32", 32, 2)
    status = json.loads(_cli("status", url).stdout)[0]
    assert status["embedding_model"] == "hash:32" and status["chunks"] == 2
    watch = _cli("index", url, "docs", "--watch", cwd=tmp_index.root)
    assert watch.returncode == 2 and "--watch keeps a file current" in watch.stderr


def test_renamed_names_resolve_on_postgresql_as_in_the_file(pg_server: Any, tmp_path: Path) -> None:
    """The resolution pass runs the same on either engine: `Sq(3)` after `from shapes import
    Square as Sq` (and the JS and Rust renames) links to the same definitions, through a
    PostgreSQL index run and through a file's, and keeps doing so after the renamed
    definition goes and comes back."""
    from test_code_references import RENAMED

    root = tmp_path / "code"
    for name, text in RENAMED.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    url = fresh_database(pg_server)
    db = tmp_path / "r.db"

    def links(where: str) -> list[tuple[Any, ...]]:
        with docql_sqlite.open(where) as index:
            return sorted(
                (r["path"].rsplit("code/", 1)[-1], r["line"], r["name"], r["resolution"],
                 (r["target"] or "").rsplit("code/", 1)[-1])
                for name in ("Square", "join", "area")
                for r in index.query(f'$.code.references("{name}")')
            )  # fmt: skip

    for _ in range(2):
        for where in (url, str(db)):
            docql_sqlite.index(where, [str(root)])
        assert links(url) == links(str(db))
        assert ("py/main.py", 5, "Sq", "import", "py/shapes.py:1-3") in links(url)
        shapes = root / "py" / "shapes.py"
        shapes.write_text("def area(s):\n    return s.n * s.n\n")
        for where in (url, str(db)):
            docql_sqlite.index(where, [str(root)])
        assert links(url) == links(str(db))
        # unresolved: no longer a use of any Square (Rust's `Sq` still is)
        assert not any(row[0] == "py/main.py" and row[2] == "Sq" for row in links(url))
        shapes.write_text(RENAMED["py/shapes.py"])
