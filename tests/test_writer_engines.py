"""The one writer (issue 21): `ingest.index_paths` and `ingest.embed.embed_index` drive the
store's `Writer` on either engine, and an index run opens its index once.

Oracles: the SQLite connections the package opens (every one is a `db.Connection`,
counted by file name), and the rows of the same
corpus indexed into an SQLite file and into PostgreSQL (tests/pg_rows.py: every stored
row, ids aside), after a first run and after an incremental one (an edit, an emptied
file, a deletion).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import DATASETS
from pg_rows import content, postgres_runner, sqlite_runner

from docql_sqlite.ingest import IngestOptions, index_paths
from docql_sqlite.ingest.embed import embed_index
from docql_sqlite.options import EmbedOptions
from docql_sqlite.store.sqlite import db


@pytest.fixture
def opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The file name of every SQLite connection the package opens from now on (each one
    is a `db.Connection`: readers and writers, whatever the module that asks)."""
    opened: list[str] = []

    class Counting(db.Connection):
        def __init__(self, filename: str, *args: Any, **kwargs: Any) -> None:
            opened.append(str(filename))
            super().__init__(filename, *args, **kwargs)

    monkeypatch.setattr(db, "Connection", Counting)
    return opened


def _opens_of(opened: list[str], db_path: Path) -> int:
    return sum(1 for name in opened if Path(name).resolve() == db_path.resolve())


def test_the_counter_counts_connections(opens: list[str], tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    for readonly in (False, True):
        db.connect(path, readonly=readonly).close()
    assert _opens_of(opens, path) == 2


def test_an_index_run_opens_the_index_once(opens: list[str], tmp_path: Path) -> None:
    index = tmp_path / "once.db"
    docs = tmp_path / "en"
    shutil.copytree(DATASETS / "en", docs)
    options = IngestOptions(workers=0)
    report = index_paths(index, [str(docs)], options)
    assert report.added and report.ok
    first = _opens_of(opens, index)
    # A run that also embeds (creating the vectors), and one that keeps them current
    # after an edit: the vector work goes through the same store.
    embedded = index_paths(index, [str(docs)], IngestOptions(workers=0, embed="hash"))
    assert embedded.embedding is not None and embedded.embedding["embedded"] > 0
    with (docs / "handbook" / "03-architecture.md").open("a", encoding="utf-8") as handle:
        handle.write("\nA closing line about compaction.\n")
    kept = index_paths(index, [str(docs)], options)
    assert kept.embedding is not None and kept.embedding["embedded"] == 1
    # (A new file is built under a temporary name first: not a connection to the index.)
    assert first == 1
    assert _opens_of(opens, index) - first == 2  # one per later run, embedding included


def test_embed_opens_the_index_once(opens: list[str], tmp_path: Path) -> None:
    index = tmp_path / "e.db"
    index_paths(index, [str(DATASETS / "zh")], IngestOptions(workers=0))
    before = _opens_of(opens, index)
    report = embed_index(index, EmbedOptions(model="hash"))
    assert report["embedded"] > 0
    assert _opens_of(opens, index) - before == 1


def test_embed_creates_no_index(tmp_path: Path) -> None:
    from docql_sqlite import DocQLError

    missing = tmp_path / "missing.db"
    with pytest.raises(DocQLError, match="no index at"):
        embed_index(missing, EmbedOptions(model="hash"))
    assert not missing.exists()


# -- the plan is pure: the walk, the disk and what the index holds in, decisions out --------
def test_the_plan_decides_without_the_index(tmp_path: Path) -> None:
    from docql_sqlite.ingest.parse import content_rules
    from docql_sqlite.ingest.run import SKIP_FAILED_UNCHANGED, plan, uri_of
    from docql_sqlite.ingest.walk import FoundFile
    from docql_sqlite.store.writer import StoredDoc

    options = IngestOptions()
    files = {}
    for name in ("same.md", "edited.md", "renamed.md", "failed.md", "new.md"):
        files[name] = tmp_path / name
        files[name].write_text(f"# {name}\n", encoding="utf-8")
    found = [
        FoundFile(p, str(p) if n != "renamed.md" else n, "markdown", True) for n, p in files.items()
    ]
    uri = {item.path.name: uri_of(item) for item in found}

    def stored_as(name: str, size_delta: int = 0) -> StoredDoc:
        st = files[name].stat()
        return StoredDoc(
            1, st.st_size + size_delta, st.st_mtime_ns, "sha", str(files[name]),
            options.max_chars, None, "markdown", content_rules("markdown"),
        )  # fmt: skip

    stored = {uri[n]: stored_as(n) for n in ("same.md", "renamed.md")}
    stored[uri["edited.md"]] = stored_as("edited.md", size_delta=1)
    st = files["failed.md"].stat()
    failed_before = {uri["failed.md"]: ((st.st_size, st.st_mtime_ns), "could not parse")}
    before = dict(stored)

    decided = plan(found, stored, failed_before, options)

    assert stored == before  # the inputs are left as they were
    assert sorted(task.display for _, task in decided.tasks if task) == sorted(
        [str(files["edited.md"]), str(files["new.md"])]
    )
    edited = next(t for _, t in decided.tasks if t and t.display.endswith("edited.md"))
    assert edited.known_sha256 == "sha"  # the bytes are compared before anything is parsed
    assert decided.unchanged == 2  # same.md, renamed.md
    assert decided.renamed == [("renamed.md", uri["renamed.md"])]
    assert decided.skip_counts == {SKIP_FAILED_UNCHANGED: 1}
    assert decided.seen == set(uri.values()) and decided.moved == []


# -- the same rows on both engines --------------------------------------------------------
psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the 'postgres' extra")


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    from pg_server import start_server

    yield from start_server()


def test_sqlite_and_postgresql_writers_store_the_same_rows(
    pg_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pg_server import fresh_database

    tree = tmp_path / "tree"
    for part in ("en", "zh", "code", "bad"):
        shutil.copytree(DATASETS / part, tree / part)
    monkeypatch.chdir(tmp_path)  # paths as typed: the same shown paths in both indexes
    path, url = tmp_path / "file.db", fresh_database(pg_server)
    options = IngestOptions(workers=0)

    def both_runs() -> tuple[Any, Any]:
        return index_paths(path, ["tree"], options), index_paths(url, ["tree"], options)

    def rows_agree() -> None:
        expected, got = content(sqlite_runner(path)), content(postgres_runner(url))
        for table in expected:
            assert got[table] == expected[table], table

    on_file, on_pg = both_runs()
    assert on_file.summary() | {"seconds": 0} == on_pg.summary() | {"seconds": 0}
    assert on_file.added and on_file.failed  # bad/ has files that fail
    rows_agree()
    expected = content(sqlite_runner(path))
    assert len(expected["documents"]) > 25 and expected["refs"] and expected["ingest_errors"]

    # An edit, an emptied file, a deletion: replace, delete and remove on both engines.
    with (tree / "en" / "handbook" / "03-architecture.md").open("a", encoding="utf-8") as f:
        f.write("\n## Compaction\n\nA new section about compaction.\n")
    code = sorted((tree / "code").rglob("*.py"))
    code[0].write_text("", encoding="utf-8")
    code[1].unlink()
    on_file, on_pg = both_runs()
    assert on_file.summary() | {"seconds": 0} == on_pg.summary() | {"seconds": 0}
    assert on_file.updated and len(on_file.removed) == 2
    rows_agree()


def test_sqlite_ids_stay_max_plus_one_across_rollbacks_and_deletes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SQLite writer remembers the next `sections` and `chunks` id between appends
    (issue 24 item 2); after a document rolled back, or a deleted one that held the
    highest ids, every id must be what max(id) + 1 gave before (oracle: the same runs
    with a writer that asks SQLite for every id), the full-text rows on the same ids."""
    import sqlite3

    from docql_sqlite.store.sqlite.writer import SqliteWriter

    original_extras = SqliteWriter._insert_extras
    remembered_next_id = SqliteWriter._next_id

    def failing(self: SqliteWriter, doc_id: int, parsed: Any) -> None:
        if parsed.uri.endswith("2.md"):  # after its sections and chunks went in
            raise RuntimeError("boom")
        original_extras(self, doc_id, parsed)

    def asked(self: SqliteWriter, table: str) -> int:
        self._next_ids.clear()
        return remembered_next_id(self, table)

    def rows(index: Path) -> list[Any]:
        conn = sqlite3.connect(index)
        try:
            found: list[Any] = []
            for sql in (
                "SELECT s.id, d.name, s.ord, s.parent_id FROM sections s "
                "JOIN documents d ON d.id = s.doc_id ORDER BY s.id",
                "SELECT c.id, d.name, c.chunk_index, c.section_id FROM chunks c "
                "JOIN documents d ON d.id = c.doc_id ORDER BY c.id",
                "SELECT rowid FROM chunks_fts ORDER BY rowid",
                "SELECT rowid FROM sections_trigram ORDER BY rowid",
            ):
                found.append(conn.execute(sql).fetchall())
            assert [r[0] for r in found[0]] == [r[0] for r in found[3]]
            assert [r[0] for r in found[1]] == [r[0] for r in found[2]]
            return found
        finally:
            conn.close()

    def scenario(name: str, ask_every_time: bool) -> list[Any]:
        docs = tmp_path / "docs"  # the same path (the same URIs) for both runs
        shutil.rmtree(docs, ignore_errors=True)
        docs.mkdir()
        for i in range(6):
            (docs / f"{i}.md").write_text(f"# Title {i}\n\ntext {i}\n\n## Sub {i}\n\nmore {i}\n")
        index = tmp_path / name
        with monkeypatch.context() as patch:
            patch.setattr(SqliteWriter, "_insert_extras", failing)
            if ask_every_time:
                patch.setattr(SqliteWriter, "_next_id", asked)
            report = index_paths(index, [str(docs)], IngestOptions(workers=0))
        assert [Path(path).name for path, _ in report.failed] == ["2.md"]
        states = [rows(index)]
        with monkeypatch.context() as patch:
            if ask_every_time:
                patch.setattr(SqliteWriter, "_next_id", asked)
            # The last file (the highest ids) changes and the failed one comes back.
            (docs / "5.md").write_text("# Five\n\nnew\n\n## A\n\na\n\n## B\n\nb\n")
            report = index_paths(index, [str(docs)], IngestOptions(workers=0))
            assert [Path(path).name for path in report.added] == ["2.md"]
            states.append(rows(index))
            (docs / "5.md").unlink()
            (docs / "4.md").write_text("# Four again\n\nchanged\n")
            index_paths(index, [str(docs)], IngestOptions(workers=0))
            states.append(rows(index))
        return states

    assert scenario("remembered.db", False) == scenario("asked.db", True)
