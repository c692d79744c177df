"""Smart search with a sidecar (`Index(parallel_search=True)`, `search.parallel`): the
lexical lists run on a second connection in a worker thread while the caller embeds the
query, and the caller then takes those the worker has not started. The answer must be
the one the serial search gives — the same passages, the same scores, the same explained
plan — for questions of every shape; the worker must read through its own connection,
under the caller's time limit, and stop with the index.
"""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import apsw
import pytest

import docql_sqlite
from docql_sqlite import IngestOptions, deadline
from docql_sqlite.errors import QueryTimeout, SearchError
from docql_sqlite.index import embed
from docql_sqlite.index import index as index_paths
from docql_sqlite.search import parallel
from docql_sqlite.store.sqlite import engine as sqlite_store

REPO = Path(__file__).resolve().parents[1]
FIXED = [
    "how is authentication configured",
    "架构 设计",
    "如何配置 apt 源",
    "parse the command line arguments",
    "DocQLLexer tokens",
    "stream -backpressure",
    "zzzz qqqq",  # no term matches: the vector list alone
    "config",
]


@pytest.fixture(scope="module")
def embedded(hash_embedded_db: Path) -> Path:
    return hash_embedded_db


def questions(path: Path, n: int = 60) -> list[str]:
    """Titles, identifiers and passage spans of the index itself (fixed seed), so that
    every strategy step occurs: widening, narrowing, OR fallback, long passages."""
    rng = random.Random(11)
    with docql_sqlite.open(path) as idx:
        titles = [h["title"] for h in idx.toc() if len(h["title"]) >= 4]
        words = [
            c["content"].split()
            for c in idx.query("$.content.chunks()", limit=5000)
            if len(c["content"].split()) >= 30
        ]
    spans = [" ".join(w[5 : 5 + rng.choice([3, 8, 25])]) for w in rng.sample(words, n // 2)]
    return FIXED + rng.sample(titles, min(n // 2, len(titles))) + spans


@pytest.mark.parametrize("in_memory", [False, True])
def test_parallel_equals_serial(embedded: Path, in_memory: bool) -> None:
    with (
        docql_sqlite.Index(embedded, vectors_in_memory=in_memory) as serial,
        docql_sqlite.Index(embedded, vectors_in_memory=in_memory, parallel_search=True) as both,
    ):
        assert both.search_sidecar is not None and serial.search_sidecar is None
        for text in questions(embedded):
            for options in ({}, {"paths": ("datasets/en/**",)}, {"group": "file"}):
                expected = serial.search(text, mode="smart", explain=True, **options)
                assert both.search(text, mode="smart", explain=True, **options) == expected, text


def test_bm25_only_index_is_unchanged(tmp_path: Path) -> None:
    """No vectors: the passage lists still run on the worker, the others here."""
    path = tmp_path / "b.db"
    old = os.getcwd()
    os.chdir(REPO)
    try:
        index_paths(path, ["datasets/en", "datasets/code/python"], IngestOptions(workers=0))
    finally:
        os.chdir(old)
    with docql_sqlite.Index(path) as serial, docql_sqlite.Index(path, parallel_search=True) as both:
        for text in questions(path, 20):
            expected = serial.search(text, mode="smart", explain=True)
            assert both.search(text, mode="smart", explain=True) == expected, text


def test_the_worker_reads_through_its_own_connection(embedded: Path) -> None:
    with docql_sqlite.Index(embedded, parallel_search=True) as idx:
        sidecar = idx.search_sidecar
        assert sidecar is not None
        mine = idx.store
        assert parallel.of(mine) is sidecar
        theirs = sidecar.submit(mine, lambda other: other.conn).result()
        assert theirs is not idx.conn
        # The same file, and the same rows.
        count = "SELECT count(*) FROM chunks"
        assert sidecar.submit(mine, lambda e: e.scalar(count)).result() == mine.scalar(count)
    with docql_sqlite.Index(embedded) as idx:
        assert parallel.of(idx.store) is None


def test_the_callers_time_limit_holds_on_the_worker(embedded: Path) -> None:
    endless = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
        "SELECT count(*) FROM n WHERE i < 0"
    )
    with docql_sqlite.Index(embedded, parallel_search=True) as idx:
        sidecar = idx.search_sidecar
        assert sidecar is not None
        mine = idx.store
        assert sidecar.submit(mine, lambda e: deadline.remaining()).result() is None
        with deadline.limit(30.0):
            left = sidecar.submit(mine, lambda e: deadline.remaining()).result()
            assert left is not None and 0 < left <= 30.0
        with deadline.limit(0.2):
            running = sidecar.submit(mine, lambda e: e.scalar(endless))
            with pytest.raises(QueryTimeout):
                running.result(timeout=20)


def test_an_error_on_the_worker_reaches_the_caller(embedded: Path) -> None:
    with docql_sqlite.Index(embedded, parallel_search=True) as idx:
        sidecar = idx.search_sidecar
        assert sidecar is not None
        failing = sidecar.submit(idx.store, lambda e: e.rows("SELECT * FROM no_such_table"))
        with pytest.raises(SearchError, match="no_such_table"):
            failing.result()
        # The worker is still there for the next search.
        assert idx.search("authentication", mode="smart")


def test_closing_the_index_stops_the_worker(embedded: Path) -> None:
    idx = docql_sqlite.Index(embedded, parallel_search=True)
    sidecar = idx.search_sidecar
    assert sidecar is not None
    mine = idx.store
    assert sidecar.submit(mine, lambda e: 1).result() == 1
    idx.close()
    with pytest.raises(RuntimeError, match="closed"):
        sidecar.submit(mine, lambda e: 1)


def test_the_mcp_server_uses_a_sidecar_unless_told_not_to(
    embedded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docql_sqlite.agent.tools import HEAVY, PARALLEL_ENV, Tools

    def sidecar(tools: Tools) -> object:
        with tools.pools[HEAVY].borrow() as idx:  # the heavy lane runs the searches
            return idx.search_sidecar

    monkeypatch.delenv(PARALLEL_ENV, raising=False)
    tools = Tools(str(embedded))
    try:
        with_sidecar = tools.search("authentication configured").text
        assert sidecar(tools) is not None
    finally:
        tools.close()
    monkeypatch.setenv(PARALLEL_ENV, "0")
    tools = Tools(str(embedded))
    try:
        assert sidecar(tools) is None
        assert tools.search("authentication configured").text == with_sidecar
    finally:
        tools.close()


def _commit_elsewhere(path: Path, sql: str) -> apsw.Connection:
    """A writer's commit that stays in the WAL (its connection open: no checkpoint at close)."""
    writer = apsw.Connection(str(path))
    writer.execute("PRAGMA foreign_keys = ON")
    with writer:
        writer.execute(sql)
    return writer


def test_a_commit_after_the_callers_snapshot_keeps_the_lists_on_it(tmp_path: Path) -> None:
    """A commit landing mid-answer: the worker's lists would read the new state, so they
    run on the caller's snapshot instead — the answer is the one the snapshot gives."""
    copy = tmp_path / "c.db"
    copy.write_bytes(_fresh_copy_bytes())
    question = "how is authentication configured"
    with docql_sqlite.Index(copy, parallel_search=True) as idx:
        sidecar = idx.search_sidecar
        assert sidecar is not None
        mine = idx.store
        with idx.snapshot():
            before = idx.search(question)
            assert before
            assert sidecar.submit(mine, lambda e: e.conn).result() is not idx.conn  # WAL empty
            writer = _commit_elsewhere(copy, "DELETE FROM chunks")
            try:
                assert not sqlite_store.wal_empty(str(copy))
                assert sidecar.submit(mine, lambda e: e.conn).result() is idx.conn
                assert idx.search(question) == before  # the snapshot's answer, whole
            finally:
                writer.close()
        assert idx.search(question) == []  # a new answer sees the commit


def test_a_commit_between_the_two_snapshots_is_caught(monkeypatch, tmp_path: Path) -> None:
    """The WAL was empty when the caller looked, not when the worker took its snapshot."""
    copy = tmp_path / "c.db"
    copy.write_bytes(_fresh_copy_bytes())
    seen: list[bool] = [True, False]  # the caller's look, then the worker's
    monkeypatch.setattr(sqlite_store, "wal_empty", lambda path: seen.pop(0) if seen else True)
    with docql_sqlite.Index(copy, parallel_search=True) as idx:
        sidecar = idx.search_sidecar
        assert sidecar is not None
        mine = idx.store
        with idx.snapshot():
            assert sidecar.submit(mine, lambda e: e.conn).result() is idx.conn
        assert seen == []


_BYTES: list[bytes] = []


def _fresh_copy_bytes() -> bytes:
    """A small index with vectors whose WAL is empty (checkpointed), as a file's bytes."""
    if not _BYTES:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.db"
            old = os.getcwd()
            os.chdir(REPO)
            try:
                index_paths(path, ["datasets/en"], IngestOptions(workers=0))
            finally:
                os.chdir(old)
            embed(path, "hash")
            conn = apsw.Connection(str(path))
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            conn.close()  # the last connection: the WAL is folded in, the main file is whole
            _BYTES.append(path.read_bytes())
    return _BYTES[0]


def _threads_of_lists(monkeypatch: pytest.MonkeyPatch) -> dict[str, set[str]]:
    """The threads that computed each lexical list, recorded as the search runs."""
    from docql_sqlite.search import channels

    seen: dict[str, set[str]] = {}

    def recorded(module: object, name: str, label: str) -> None:
        real = getattr(module, name)

        def call(*args: object, **kwargs: object) -> object:
            seen.setdefault(label, set()).add(threading.current_thread().name)
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, call)

    recorded(channels.keywords, "bm25_rows", "bm25")
    recorded(channels.documents, "channel", "documents")
    recorded(channels.code_words, "channel", "code_words")
    recorded(channels, "name_rows", "names")
    return seen


def _slowed(monkeypatch: pytest.MonkeyPatch, module: object, name: str, seconds: float) -> None:
    real = getattr(module, name)

    def slow(*args: object, **kwargs: object) -> object:
        time.sleep(seconds)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, slow)


@pytest.mark.parametrize("slow", ["embedding", "bm25"])
def test_the_two_threads_share_the_lists_by_who_is_free(
    embedded: Path, monkeypatch: pytest.MonkeyPatch, slow: str
) -> None:
    """A costly query embedding (e5-small: ~23 ms of CPU) leaves every lexical list to
    the worker; a slow BM25 list on the worker leaves the others to the caller. The
    answer is the serial one either way."""
    from docql_sqlite.search import ranking

    question = "how is authentication configured"
    with docql_sqlite.Index(embedded, vectors_in_memory=True) as serial:
        expected = serial.search(question, explain=True)
    seen = _threads_of_lists(monkeypatch)
    if slow == "embedding":
        _slowed(monkeypatch, ranking.vectors, "query_vector", 0.5)
    else:
        # The worker surely takes BM25 (the first list) while the caller embeds, and is
        # still at it when the caller is done.
        _slowed(monkeypatch, ranking.vectors, "query_vector", 0.1)
        _slowed(monkeypatch, ranking.stats, "common_terms", 0.6)  # in the BM25 list only
    with docql_sqlite.Index(embedded, vectors_in_memory=True, parallel_search=True) as both:
        assert both.search(question, explain=True) == expected
    caller = threading.current_thread().name
    assert set(seen) == {"bm25", "documents", "code_words", "names"}
    if slow == "embedding":
        assert caller not in set().union(*seen.values())
    else:
        assert seen["bm25"] != {caller}
        assert seen["documents"] == seen["code_words"] == seen["names"] == {caller}
