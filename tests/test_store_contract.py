"""The `Store` contract (docql_sqlite/store/base.py), the same tests on both engines.

One small corpus is indexed into a file (vectors from the hashing embedder) and copied
into a real PostgreSQL 16 + pgvector (pgserver); every test runs against `SqliteStore`
and `PostgresStore`, opened by `open_store` from the path and from the URL. Oracles come
from outside the store under test: the corpus as written here, the file read with apsw,
counts done in Python. Tests that write get a fresh copy of their own.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import apsw
import pytest
from conftest import chdir
from pg_server import fresh_database, start_server

import docql_sqlite
from docql_sqlite import ContextOptions, SearchOptions, deadline
from docql_sqlite.errors import DocQLError, QueryTimeout
from docql_sqlite.ingest import IngestOptions, index_paths
from docql_sqlite.schema import KEY_DIMENSIONS, KEY_FINGERPRINT, KEY_MODEL
from docql_sqlite.sqlparams import Deferred, Params
from docql_sqlite.store import Store, open_store

ENGINES = ["sqlite", "postgres"]
CORPUS = {
    "guide/intro.md": "# Intro\n\nThe zebra runs. A zebra sleeps; zebras graze.\n",
    "guide/setup/install.md": (
        "# Install\n\nInstall the zebu first.\n\n## Upgrade\n\nThen the zebra, once more zebra.\n"
    ),
    "notes/todo.txt": "buy apples\nfeed the zebra\n",
    "notes/empty-ish.md": "# Nothing here\n\nOnly apples and pears.\n",
}
MARK = ("contract_mark", "ünïcode ✓ mark")  # a meta row written into the file before the copy
# Infinite without a limit: the engine must stop it (SQLite's progress handler, PostgreSQL's
# statement_timeout). The same SQL on both engines.
SLOW = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000) "
    "SELECT count(*) AS n FROM c"
)


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    yield from start_server()


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("contract")
    for name, text in CORPUS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    db = root / "index.db"
    with chdir(root):  # paths relative to the corpus root
        report = index_paths(db, ["guide", "notes"], IngestOptions(workers=0, embed="hash"))
    assert report.failed == [] and len(report.added) == len(CORPUS)
    conn = apsw.Connection(str(db))
    conn.execute("INSERT INTO meta(key, value) VALUES (?, ?)", MARK)
    conn.close()
    return db


@pytest.fixture(scope="module")
def locations(corpus_file: Path, request: pytest.FixtureRequest) -> dict[str, str]:
    """engine → where the corpus's index is (PostgreSQL copied on first use)."""
    found = {"sqlite": str(corpus_file)}

    def postgres() -> str:
        server = request.getfixturevalue("pg_server")
        url = fresh_database(server)
        docql_sqlite.copy(str(corpus_file), url)
        return url

    found["postgres"] = ""  # filled lazily: a SQLite-only run starts no server
    found["_make_postgres"] = postgres  # type: ignore[assignment]
    return found


def _location(locations: dict[str, Any], engine: str) -> str:
    if engine == "postgres" and not locations["postgres"]:
        locations["postgres"] = locations["_make_postgres"]()
    return str(locations[engine])


@pytest.fixture(params=ENGINES)
def store(request: pytest.FixtureRequest, locations: dict[str, Any]) -> Iterator[Store]:
    opened = open_store(_location(locations, request.param))
    yield opened
    opened.close()


@pytest.fixture(params=ENGINES)
def scratch(
    request: pytest.FixtureRequest, corpus_file: Path, tmp_path: Path
) -> Iterator[tuple[str, Callable[[str, str], None]]]:
    """A writable copy of the corpus of one engine: (location, write(key, value) into its
    meta table through a connection of its own)."""
    if request.param == "sqlite":
        copy = tmp_path / "copy.db"
        source = apsw.Connection(str(corpus_file), flags=apsw.SQLITE_OPEN_READONLY)
        source.execute("VACUUM INTO ?", (str(copy),))
        source.close()
        wal = apsw.Connection(str(copy))  # an index file is in WAL mode (VACUUM INTO drops it)
        wal.execute("PRAGMA journal_mode=WAL")
        wal.close()

        def write_file(key: str, value: str) -> None:
            conn = apsw.Connection(str(copy))
            conn.execute("INSERT INTO meta(key, value) VALUES (?, ?)", (key, value))
            conn.close()

        yield str(copy), write_file
        return
    import psycopg

    url = fresh_database(request.getfixturevalue("pg_server"))
    docql_sqlite.copy(str(corpus_file), url)

    def write_pg(key: str, value: str) -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("INSERT INTO meta(key, value) VALUES (%s, %s)", (key, value))

    yield url, write_pg


def _file_rows(corpus_file: Path, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
    conn = apsw.Connection(str(corpus_file), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [tuple(r) for r in conn.execute(sql, params)]
    finally:
        conn.close()


# -- reading ---------------------------------------------------------------------------------
def test_rows_and_scalar(store: Store) -> None:
    paths = [r["path"] for r in store.rows("SELECT path FROM documents")]
    assert sorted(paths) == sorted(CORPUS)
    params = Params(store.dialect)
    sql = f"SELECT path, lines FROM documents WHERE path = {params.add('notes/todo.txt')}"
    assert store.rows(sql, params.values) == [{"path": "notes/todo.txt", "lines": 2}]
    # A Deferred value is computed when the statement runs.
    params = Params(store.dialect)
    later = Deferred("a path", lambda: "guide/intro.md")
    sql = f"SELECT count(*) FROM documents WHERE path = {params.add(later)}"
    assert store.scalar(sql, params.values) == 1
    assert store.scalar("SELECT path FROM documents WHERE 1 = 0") is None
    # A plain tuple, in the engine's own markers.
    marker = store.dialect.positional("SELECT count(*) FROM documents WHERE path LIKE ?")
    assert store.scalar(marker, ("guide/%",)) == 2


def test_execute_gives_rows_and_stops_at_its_time_limit(store: Store) -> None:
    marker = store.dialect.param("p0")
    sql = f"SELECT path FROM documents WHERE path LIKE {marker} ORDER BY path"
    rows = list(store.execute(sql, {"p0": "notes/%"}, 5.0))
    assert [r["path"] for r in rows] == ["notes/empty-ish.md", "notes/todo.txt"]
    started = time.monotonic()
    with pytest.raises(QueryTimeout, match=r"over 0\.3 s"):
        list(store.execute(SLOW, {}, 0.3))
    assert time.monotonic() - started < 10  # generous: the machine is shared
    # The store answers the next statement.
    assert store.scalar("SELECT count(*) FROM documents") == len(CORPUS)


def test_plan_names_the_table(store: Store) -> None:
    marker = store.dialect.param("p0")
    plan = store.plan(f"SELECT path FROM documents WHERE id = {marker}", {"p0": 1})
    assert plan and all(set(step) == {"id", "parent", "detail"} for step in plan)
    assert any("documents" in step["detail"] for step in plan), plan


def test_errors_are_docql_errors_and_leave_the_store_usable(store: Store) -> None:
    for read in (
        lambda: store.rows("SELECT * FROM no_such_table"),
        lambda: store.scalar("SELECT * FROM no_such_table"),
        lambda: list(store.execute("SELECT * FROM no_such_table", {}, 5.0)),
        lambda: store.plan("SELECT * FROM no_such_table", {}),
    ):
        with pytest.raises(DocQLError, match="no_such_table"):
            read()
    with store.snapshot():
        with pytest.raises(DocQLError):
            store.rows("SELECT * FROM no_such_table")
        assert store.scalar("SELECT count(*) FROM documents") == len(CORPUS)


# -- what the index holds --------------------------------------------------------------------
def test_meta(store: Store) -> None:
    assert store.meta(MARK[0]) == MARK[1]
    assert store.meta("no such key") is None
    assert store.meta("schema_version") is not None and store.meta("schema_version").isdigit()


def test_embedding_meta_is_the_files(store: Store, corpus_file: Path) -> None:
    keys = (KEY_MODEL, KEY_DIMENSIONS, KEY_FINGERPRINT)
    want = dict(_file_rows(corpus_file, "SELECT key, value FROM meta WHERE key IN (?, ?, ?)", keys))
    assert set(want) == set(keys) and want[KEY_MODEL].startswith("hash")
    assert store.embedding_meta() == want
    assert store.has_embeddings() and store.has_vectors
    assert not store.has_chunk_trigrams()


@pytest.mark.parametrize(
    ("globs", "expected"),
    [
        ((), sorted(CORPUS)),
        (("guide/**",), ["guide/intro.md", "guide/setup/install.md"]),
        (("*.md",), ["guide/intro.md", "guide/setup/install.md", "notes/empty-ish.md"]),
        (
            ("notes/*", "guide/setup/*"),
            ["guide/setup/install.md", "notes/empty-ish.md", "notes/todo.txt"],
        ),
        (("nowhere/*",), []),
    ],
)
def test_documents_by_glob(store: Store, globs: tuple[str, ...], expected: list[str]) -> None:
    docs = store.documents(globs)
    assert [d["path"] for d in docs] == expected  # in path order
    for doc in docs:
        assert set(doc) == {"id", "path", "format", "lines", "pages", "size"}
        assert doc["size"] == len(CORPUS[doc["path"]].encode())


def _brute_counts(store: Store, word: str, prefix: bool, path: str | None) -> list[tuple[int, int]]:
    """(chunk id, occurrences in the chunk's body) counted in Python over the chunk text."""
    rest = r"\w*" if prefix else ""
    pattern = re.compile(r"\b" + re.escape(word) + rest + r"\b", re.IGNORECASE)
    counts = []
    for row in store.rows(
        "SELECT c.id AS id, c.content AS content, d.path AS path "
        "FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY c.id"
    ):
        if path is not None and row["path"] != path:
            continue
        n = len(pattern.findall(row["content"]))
        if n:
            counts.append((row["id"], n))
    return counts


@pytest.mark.parametrize(
    ("word", "prefix", "path"),
    [
        ("zebra", False, None),
        ("zeb", True, None),  # zebra, zebras, zebu
        ("zebras", False, None),
        ("apples", False, None),
        ("zebra", False, "guide/setup/install.md"),
        ("nothingatall", False, None),
    ],
)
def test_body_counts_are_a_brute_force_count(
    store: Store, word: str, prefix: bool, path: str | None
) -> None:
    params = Params(store.dialect)
    within = None
    if path is not None:
        within = (
            "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id "
            f"WHERE d.path = {params.add(path)}"
        )
    got = [tuple(r) for r in store.body_counts(word, prefix, params, within)]
    want = _brute_counts(store, word, prefix, path)
    assert got == want
    if word != "nothingatall":
        assert want, "the corpus holds the word"
    # `without` leaves those chunks out.
    params = Params(store.dialect)
    everything = "SELECT id FROM chunks"
    assert list(store.body_counts(word, prefix, params, None, everything)) == []


def test_size(store: Store, corpus_file: Path) -> None:
    size = store.size_bytes()
    assert size > 0
    if store.path == str(corpus_file):
        wal = Path(str(corpus_file) + "-wal")
        assert size == corpus_file.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


# -- versions and snapshots ------------------------------------------------------------------
def test_stamp_changes_after_a_write_only(scratch: tuple[str, Callable[[str, str], None]]) -> None:
    location, write = scratch
    store = open_store(location)
    try:
        before = store.stamp()
        assert store.stamp() == before  # no write, no change
        write("stamp_test", "1")
        after = store.stamp()
        assert after != before
        assert store.stamp() == after
    finally:
        store.close()


def test_snapshot_reads_one_committed_state(
    scratch: tuple[str, Callable[[str, str], None]],
) -> None:
    location, write = scratch
    store = open_store(location)
    count = "SELECT count(*) FROM meta"
    try:
        with store.snapshot():
            first = store.scalar(count)
            write("snapshot_test", "1")
            with store.snapshot():  # nested: the outer snapshot
                assert store.scalar(count) == first
            assert store.meta("snapshot_test") is None
            assert store.scalar(count) == first
        # Outside the block the write is seen.
        assert store.scalar(count) == first + 1
        assert store.meta("snapshot_test") == "1"
    finally:
        store.close()


def test_open_store_chooses_by_location(store: Store, locations: dict[str, Any]) -> None:
    engine = "postgres" if store.path.startswith("postgres") else "sqlite"
    assert store.path == _location(locations, engine)
    assert type(store).__name__ == {"sqlite": "SqliteStore", "postgres": "PostgresStore"}[engine]
    assert "password" not in store.label.lower()


# -- the Index over either store: one deadline source ----------------------------------------
@pytest.fixture(params=ENGINES)
def index(request: pytest.FixtureRequest, locations: dict[str, Any]) -> Iterator[Any]:
    with docql_sqlite.open(_location(locations, request.param)) as opened:
        yield opened


def test_search_and_context_take_their_time_limit_from_the_options(
    index: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The environment gives the options' default only; nothing below `Index` reads it.
    monkeypatch.setenv(deadline.ENVIRONMENT, "0.000001")
    found = index.search("zebra", SearchOptions(mode="smart", timeout=None))
    assert found and found[0]["path"].startswith("guide/")
    assert index.context("zebra", ContextOptions(timeout=None))["blocks"]
    monkeypatch.delenv(deadline.ENVIRONMENT)
    assert SearchOptions().timeout == ContextOptions().timeout == deadline.DEFAULT_SECONDS
    for run in (
        lambda: index.search("zebra", SearchOptions(mode="smart", timeout=1e-9)),
        lambda: index.context("zebra", ContextOptions(timeout=1e-9)),
    ):
        with pytest.raises(QueryTimeout):
            run()
    assert index.search("zebra", mode="bm25")  # the next call has its own limit
