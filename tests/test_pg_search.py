"""Search on PostgreSQL gives the file's results: every mode, a table of queries, datasets/.

The index of datasets/ (vectors from the hashing embedder) is copied to a real
PostgreSQL 16 + pgvector (pgserver); `docql_sqlite.store.postgres.search.search` must return what
`Index.search` returns on the file, within the tolerance of docs/scale-out.md:

- bm25: the same hit dicts (same passages, same order, same scores to 6 decimals) —
  PostgreSQL computes FTS5's own BM25 from the same tokens and term statistics;
- vector: the same top-k set; the same order, except that distances equal to 1e-6
  (float32 ties: sqlite-vec and pgvector round differently) may swap places;
- hybrid and smart: the same passages in the same order (their scores may differ by the
  RRF of a swapped vector tie); smart with all its channels, the documents channel too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import apsw
import pytest
from pg_server import fresh_database, start_server

import docql_sqlite
from docql_sqlite import ContextOptions, SearchOptions
from docql_sqlite.errors import EmbeddingError, SearchError

psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the 'postgres' extra")
from docql_sqlite.search import stats  # noqa: E402
from docql_sqlite.search import terms as search_terms  # noqa: E402

ENGLISH = ["segment compaction", "write-ahead log", "replication", "how do I install lumen"]
CJK = ["架构", "数据库 配置", "如何配置复制", "快照 隔离"]
IDENTIFIERS = ["QueryPlanner", "docql_lexer", "DEC-0054", "LumenClient"]
PHRASES = ['"rolling upgrades"', '"write-ahead log" segment']
NO_HIT = ["zzzqqq nothinghere"]
OR_FALLBACK = ["compaction xylophone", "replication zzzunknown", "tokenization accents"]
OTHER = ["lumen -replication", "config*", "lex: segment merge\nvec: how are segments merged"]
# "compactions" is in no passage: smart search respells it `compaction*` (keywords.py).
RESPELLED = ["segment compactions"]
# Two words the corpus also writes as one (`checksum`, `readonly`): smart search matches
# either spelling (`search/compounds.py`), in each engine's own syntax.
COMPOUNDS = ["segment check sum", "read only replicas"]
# Symbols as written (`search/literals.py`): smart search's list of the passages that
# hold them, `instr` on the file and `strpos` here; alone, with words, with letters.
SYMBOLS = ["=>", "what does :: mean", "C++ tokenizer"]
QUERIES = ENGLISH + CJK + IDENTIFIERS + PHRASES + NO_HIT + OR_FALLBACK + OTHER + RESPELLED
QUERIES += COMPOUNDS
# Questions (three content words or more) run smart search's documents channel; the
# short queries above are look-ups it leaves to the passage channels.
QUESTIONS = [
    "how do I configure TLS certificates for the server",
    "upgrading lumen from version 2.3 with rolling upgrades",
    "which roles and permissions control row-level security",
    "how are segments merged during compaction -replication",
    "environment variables that override the configuration file",
    "starting the MCP server and the tools it exposes",
]
# Questions that name a section ("Write-Ahead Log", "Segment Header Layout") by a run of
# their words: the headings list's phrase titles (`name_lists._phrase_titles`), through
# the title trigrams on SQLite and LIKE on PostgreSQL.
NAMING = ["what is the write-ahead log", "where is the segment header layout explained"]
# Questions about a name's uses in code (`search/uses.py`): the passages of its calls,
# or of any use, from `refs`, ordered by resolution, path and line on both engines.
USES = ["who calls advance?", "where is Token used"]
# Code named as written: a qualified member, a name with its kind (`name_lists.rows`).
NAMED = ["IndexWriter.add", "class Token", "the Tokenizer interface"]
# Names among other words: a qualified name in a short query, a how-to's words spelled as
# an API's name after a prefix, the terms as typed with an identifier among them.
AMONG_WORDS = ["IndexWriter.add segment", "how do I merge segments", "what does Token kind_of do"]
SCOPES = [(), ("datasets/en/*",)]
TIE = 1e-6  # distances this close are float32 ties
NO_CALL: Any = None  # search(q) reads no argument node of its call


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    yield from start_server()


def _copy_of(corpus_db: Path, dest: Path) -> Path:
    conn = apsw.Connection(str(corpus_db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        conn.execute("VACUUM INTO ?", (str(dest),))
    finally:
        conn.close()
    return dest


@pytest.fixture(scope="module")
def vector_copy(
    pg_server: Any, corpus_db: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str]:
    """(a copy of the datasets/ index with hashing-embedder vectors, its PostgreSQL URL)."""
    db = _copy_of(corpus_db, tmp_path_factory.mktemp("pg_search") / "corpus.db")
    docql_sqlite.embed(db, "hash")
    url = fresh_database(pg_server)
    docql_sqlite.copy(str(db), url)
    return db, url


@pytest.fixture(scope="module")
def engines(vector_copy: tuple[Path, str]) -> Iterator[tuple[Any, Any]]:
    """(the file's Index, an Index over its PostgreSQL copy's URL), vectors included."""
    db, url = vector_copy
    index, conn = docql_sqlite.open(db), docql_sqlite.open(url)
    assert index.has_vectors
    yield index, conn
    conn.close()
    index.close()


def _both(engines: tuple[Any, Any], text: str, **options: Any) -> tuple[list[Any], list[Any]]:
    index, conn = engines
    opts = SearchOptions(**options)
    return index.search(text, opts), conn.search(text, opts)


def _swaps_beyond_ties(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> list[Any]:
    """Pairs that `second` orders unlike `first` although their scores differ by more than
    a float32 tie (2 x TIE: each score is rounded to 6 decimals)."""
    rank = {h["location"]: i for i, h in enumerate(first)}
    score = {h["location"]: h["score"] for h in first}
    order = [h["location"] for h in second]
    return [
        (a, b)
        for i, a in enumerate(order)
        for b in order[i + 1 :]
        if rank[a] > rank[b] and abs(score[a] - score[b]) > 2 * TIE
    ]


@pytest.mark.parametrize("paths", SCOPES, ids=["all", "scoped"])
@pytest.mark.parametrize("text", QUERIES)
def test_bm25_is_the_same_on_both_engines(engines: Any, text: str, paths: Any) -> None:
    sqlite, postgres = _both(engines, text, mode="bm25", limit=10, paths=paths)
    assert postgres == sqlite


@pytest.mark.parametrize("paths", SCOPES, ids=["all", "scoped"])
@pytest.mark.parametrize("text", QUERIES)
def test_vector_top_k_is_the_same_set(engines: Any, text: str, paths: Any) -> None:
    sqlite, postgres = _both(engines, text, mode="vector", limit=10, paths=paths)
    assert len(sqlite) == 10
    assert {h["location"] for h in postgres} == {h["location"] for h in sqlite}
    assert _swaps_beyond_ties(sqlite, postgres) == []
    for a, b in zip(sorted(sqlite, key=_key), sorted(postgres, key=_key)):
        assert abs(a["score"] - b["score"]) <= 2 * TIE
        assert {k: v for k, v in a.items() if k != "score"} == {
            k: v for k, v in b.items() if k != "score"
        }


def _key(hit: dict[str, Any]) -> str:
    return hit["location"]


@pytest.mark.parametrize("paths", SCOPES, ids=["all", "scoped"])
@pytest.mark.parametrize("mode", ["hybrid", "smart"])
@pytest.mark.parametrize("text", QUERIES + QUESTIONS + NAMING + USES + NAMED + AMONG_WORDS)
def test_fused_modes_give_the_same_passages_in_order(
    engines: Any, text: str, mode: str, paths: Any
) -> None:
    # Smart search with every channel at its own weight, the documents channel (BM25 over
    # whole documents: fts5vocab on the file, the tsvector's body positions here) included.
    sqlite, postgres = _both(engines, text, mode=mode, limit=10, paths=paths, explain=True)
    assert [h["location"] for h in postgres] == [h["location"] for h in sqlite]
    assert [h["snippet"] for h in postgres] == [h["snippet"] for h in sqlite]
    if mode == "smart" and sqlite:
        # The same channels ran, with the same sizes, on both engines.
        plans = [hits[0]["explain"]["plan"] for hits in (sqlite, postgres)]
        # (a typed query document's plan has no channel table)
        assert plans[1].get("channels") == plans[0].get("channels"), text
        assert plans[1].get("documents") == plans[0].get("documents"), text


@pytest.mark.parametrize("paths", SCOPES, ids=["all", "scoped"])
@pytest.mark.parametrize("text", SYMBOLS)
def test_symbols_as_written_are_the_same_passages(engines: Any, text: str, paths: Any) -> None:
    sqlite, postgres = _both(engines, text, mode="smart", limit=10, paths=paths, explain=True)
    assert [h["location"] for h in postgres] == [h["location"] for h in sqlite]
    assert [h["snippet"] for h in postgres] == [h["snippet"] for h in sqlite]
    if not paths:  # (datasets/en/* holds none of them)
        assert sqlite and "literal" in sqlite[0]["explain"]["plan"]["channels"], text
        literal = [h["explain"]["lists"].get("literal") for h in postgres]
        assert literal == [h["explain"]["lists"].get("literal") for h in sqlite]


def test_the_table_exercises_every_case(engines: Any) -> None:
    # A comparison of empty lists would prove nothing: the table must find things, and
    # its fallback and no-hit rows must behave as named, on both engines.
    for text in ENGLISH + CJK + IDENTIFIERS + PHRASES:
        sqlite, postgres = _both(engines, text, mode="bm25", limit=10)
        assert sqlite and postgres, text
    for text in NO_HIT:
        assert _both(engines, text, mode="bm25") == ([], [])
    for text in OR_FALLBACK:
        for hits in _both(engines, text, mode="bm25", limit=10, explain=True):
            assert hits and hits[0]["explain"]["plan"]["fts"]["strategy"].startswith("or:")
    sqlite, postgres = _both(engines, "架构", mode="bm25", limit=50)
    assert all("架构" in h["content"] for h in postgres) and len(postgres) == len(sqlite) > 3
    for text in NAMED:  # a symbol so named first (two `Token`s: a class, a struct)
        for hits in _both(engines, text, mode="smart", limit=10, explain=True):
            assert hits[0]["explain"]["lists"]["symbols"]["rank"] <= 2, text
    for text in USES:  # the uses list, first, on both engines
        for hits in _both(engines, text, mode="smart", limit=10, explain=True):
            assert "uses" in hits[0]["explain"]["lists"], text
    for text in NAMING:  # the section the question names is first, on both engines
        for hits in _both(engines, text, mode="smart", limit=10, explain=True):
            assert hits[0]["explain"]["lists"]["headings"]["phrase"] > 0.5, text
    for text in COMPOUNDS:  # either spelling, on both engines
        for hits in _both(engines, text, mode="smart", limit=10, explain=True):
            assert '" also as "' in " ".join(hits[0]["explain"]["plan"]["strategy"]), text
    for text in QUESTIONS:  # smart search's documents channel ranks documents for each
        for hits in _both(engines, text, mode="smart", limit=10, explain=True):
            plan = hits[0]["explain"]["plan"]
            assert plan["documents"][0].startswith("BM25 over whole documents:"), text
            assert plan["channels"]["documents"] > 0, text


def test_bm25_scores_are_fts5s_own(engines: Any) -> None:
    # Not only the order: the raw BM25 of each passage is FTS5's, on several term shapes.
    for text in (
        "segment compaction",
        "数据库 配置",
        "QueryPlanner",
        "config*",
        "lumen -replication",
    ):
        sqlite, postgres = _both(engines, text, mode="bm25", limit=20, explain=True)
        raw = [[h["explain"]["lists"]["bm25"]["bm25"] for h in hits] for hits in (sqlite, postgres)]
        assert raw[0] == pytest.approx(raw[1], rel=1e-9, abs=1e-12), text


def test_term_statistics_work_on_postgres(engines: Any) -> None:
    index, conn = engines
    with nullcontext(conn.store) as engine:
        assert stats.chunk_count(engine) == stats.chunk_count(index.store)
        for word in ("segment", "架构", "DEC-0054", "config*", "zzzqqq"):
            term = search_terms.parse(word)[0]
            assert stats.term_count(engine, term) == stats.term_count(index.store, term), word
        assert stats.stale_vectors(engine) == stats.stale_vectors(index.store) == 0
        assert stats.TermStats(engine).corpus()[0] == stats.chunk_count(index.store)


def test_context_pack_is_the_same(engines: Any) -> None:
    index, conn = engines
    for question in ("how does compaction work?", "如何配置复制", "zzzqqq"):
        opts = ContextOptions(budget=4000)
        assert conn.context(question, opts) == index.context(question, opts)


def test_search_leaves_the_connection_idle(engines: Any) -> None:
    _, conn = engines
    conn.search("segment", SearchOptions(mode="hybrid"))
    assert conn.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


def test_errors_are_the_same(engines: Any) -> None:
    index, conn = engines
    for text in ("   ", "-only -negated"):
        with pytest.raises(SearchError) as on_file:
            index.search(text, mode="bm25")
        with pytest.raises(SearchError) as on_pg:
            conn.search(text, SearchOptions(mode="bm25"))
        assert str(on_pg.value) == str(on_file.value)


def test_an_index_without_vectors(pg_server: Any, corpus_db: Path) -> None:
    url = fresh_database(pg_server)
    docql_sqlite.copy(str(corpus_db), url)
    index = docql_sqlite.open(corpus_db)
    with docql_sqlite.open(url) as conn:
        for mode in ("hybrid", "smart"):  # hybrid runs as bm25; smart without its vector list
            opts = SearchOptions(mode=mode, limit=10)
            assert conn.search("segment compaction", opts) == index.search(
                "segment compaction", opts
            )
        with pytest.raises(EmbeddingError, match="has no embeddings"):
            conn.search("segment", SearchOptions(mode="vector"))
        before = conn.search("compaction", SearchOptions(mode="bm25"))
        # A write moves the version stamp: cached statistics are not reused after it.
        with psycopg.connect(url) as writer:
            writer.execute("DELETE FROM chunks_fts WHERE tsv @@ 'compaction'::tsquery")
        term = search_terms.parse("compaction")[0]
        with nullcontext(conn.store) as engine:
            assert stats.term_count(engine, term) == 0
        assert before and conn.search("compaction", SearchOptions(mode="bm25")) == []


def test_docql_search_sql_runs_on_postgres(engines: Any) -> None:
    # `$.content.search(q)`'s statement (search/docql.py → sqlbuild), spelled for PostgreSQL:
    # the rows and the SQL-built snippets are the file's.
    from docql_sqlite.dialect.postgres import POSTGRES
    from docql_sqlite.search.docql import search_source
    from docql_sqlite.sqlparams import Params, bind
    from docql_sqlite.store.sqlite import db

    index, conn = engines
    order = " ORDER BY _score DESC, {} , _pos LIMIT 10"
    for q in ("segment compaction", "架构", "compaction xylophone"):
        with nullcontext(conn.store) as engine:
            params = Params(POSTGRES)
            source = search_source(engine, "search", q, POSTGRES.TRUE, params, NO_CALL)
            got = engine.rows(source.sql + order.format('_path COLLATE "C"'), params.values)
        params = Params(index.dialect)
        source = search_source(index.store, "search", q, "1", params, NO_CALL)
        sql = source.sql + order.format("_path")
        expected = list(db.rows(index.conn, sql, bind(params.values)))
        assert [(r["location"], r["snippet"]) for r in got] == [
            (r["location"], r["snippet"]) for r in expected
        ]
        assert got, q


def test_common_terms_left_out_of_the_or_fallback(pg_server: Any, tmp_index: Any) -> None:
    # Over MIN_CHUNKS chunks a term in more than 5% of them does not select OR candidates
    # and is not part of FTS5's OR expression, so it adds nothing to BM25 there: the SQL
    # BM25 must leave it out the same way (its idf bound as 0).
    sections = []
    for i in range(stats.MIN_CHUNKS + 100):
        rare = " zephyr" * (1 + i % 3) if i % 300 == 0 else ""  # in 7 chunks
        sections.append(f"## Part {i}\n\nalpha beta{i % 7}{rare} text {i}.\n")
    tmp_index.write("big.md", "# Big\n\n" + "\n".join(sections))
    docql_sqlite.index(tmp_index.db, ["docs"])
    url = fresh_database(pg_server)
    docql_sqlite.copy(str(tmp_index.db), url)
    index = docql_sqlite.open(tmp_index.db)
    assert stats.chunk_count(index.store) > stats.MIN_CHUNKS
    alpha, zephyr = search_terms.parse("alpha zephyr")
    assert stats.common_terms(index.store, [alpha, zephyr]) == frozenset({alpha.fts})
    with docql_sqlite.open(url) as conn:
        for text in ("alpha zephyr", "zephyr beta3 alpha", "alpha beta2"):
            opts = SearchOptions(mode="bm25", limit=10, explain=True)
            expected, got = index.search(text, opts), conn.search(text, opts)
            assert [h["location"] for h in got] == [h["location"] for h in expected], text
            assert [h["score"] for h in got] == [h["score"] for h in expected], text
            assert expected, text
        # The OR query ran without alpha: only the 7 chunks holding zephyr are candidates.
        assert len(index.search("alpha zephyr", mode="bm25", limit=10)) == 7


# -- search() and similar() inside DocQL, through `Index` over the URL ----------------------
# With vectors, `$.content.search(q)` fuses BM25 and the vector list by RRF (100 deep);
# `similar(q)` is the vector list alone. The tolerance is the one above, for whole lists.


@pytest.fixture(scope="module")
def url_indexes(vector_copy: tuple[Path, str]) -> Iterator[tuple[Any, Any]]:
    """(the file's Index, an Index over its PostgreSQL copy's URL)."""
    db, url = vector_copy
    file_index, pg_index = docql_sqlite.open(db), docql_sqlite.open(url)
    assert file_index.has_vectors and pg_index.has_vectors
    yield file_index, pg_index
    pg_index.close()
    file_index.close()


def _docql(function: str, text: str) -> str:
    return f"$.content.{function}({json.dumps(text, ensure_ascii=False)})"


def _without_score(items: list[dict[str, Any]]) -> list[str]:
    return [json.dumps({k: v for k, v in i.items() if k != "score"}) for i in items]


def _vector_ties(similar: list[dict[str, Any]]) -> set[str]:
    """Locations whose similarity is a float32 tie with another one's (2 x TIE)."""
    return {
        a["location"]
        for a in similar
        for b in similar
        if a is not b and abs(a["score"] - b["score"]) <= 2 * TIE
    }


@pytest.mark.parametrize("paths", SCOPES, ids=["all", "scoped"])
@pytest.mark.parametrize("text", QUERIES)
def test_docql_search_with_vectors_is_the_files(url_indexes: Any, text: str, paths: Any) -> None:
    file_index, pg_index = url_indexes
    query = _docql("search", text)
    expected = list(file_index.query(query, path=list(paths)))
    got = list(pg_index.query(query, path=list(paths)))
    assert sorted(_without_score(got)) == sorted(_without_score(expected))
    # RRF adds 1/(60 + rank) per list: BM25 ranks are the same on both engines, so an
    # item's score is the file's unless its vector rank is a float32 tie that swapped.
    ties = _vector_ties(list(file_index.query(_docql("similar", text), path=list(paths))))
    want = {i["location"]: i["score"] for i in expected}
    changed = {i["location"] for i in got if i["score"] != want[i["location"]]}
    assert changed <= ties, text
    assert len(expected) >= 100  # the vector list alone is 100 deep


@pytest.mark.parametrize("paths", SCOPES, ids=["all", "scoped"])
@pytest.mark.parametrize("text", QUERIES)
def test_docql_similar_is_the_files(url_indexes: Any, text: str, paths: Any) -> None:
    file_index, pg_index = url_indexes
    query = _docql("similar", text)
    expected = list(file_index.query(query, path=list(paths)))
    got = list(pg_index.query(query, path=list(paths)))
    assert len(expected) == 100 and sorted(_without_score(got)) == sorted(_without_score(expected))
    assert _swaps_beyond_ties(expected, got) == []
    want = {i["location"]: i["score"] for i in expected}
    assert all(abs(i["score"] - want[i["location"]]) <= 2 * TIE for i in got)


def test_docql_similar_to_a_chunk_and_the_other_entries(
    url_indexes: Any, engines: tuple[Any, Any]
) -> None:
    file_index, pg_index = url_indexes
    _, conn = engines
    chunk_ids = [r["chunk_id"] for r in file_index.rows("SELECT chunk_id FROM chunk_vectors")]
    for chunk_id in (chunk_ids[0], chunk_ids[len(chunk_ids) // 2]):
        query = f"$.content.similar({chunk_id})[0:10]"
        expected, got = list(file_index.query(query)), list(pg_index.query(query))
        assert got and [i["location"] for i in got] == [i["location"] for i in expected]
    with pytest.raises(docql_sqlite.DocQLError) as on_pg:
        list(pg_index.query("$.content.similar(99999999)"))
    with pytest.raises(docql_sqlite.DocQLError) as on_file:
        list(file_index.query("$.content.similar(99999999)"))
    assert str(on_pg.value) == str(on_file.value)
    # A second Index over the URL (its own connection and compile cache), and a filter and
    # a field after the search: the rows of the first.
    query = '$.content.search("segment compaction")[?(@.section ~= "compaction")].location'
    assert list(conn.query(query)) == list(pg_index.query(query))
    assert list(pg_index.query(query)) == list(file_index.query(query)) != []
    assert conn.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    # Compiled over the URL: PostgreSQL's statement (pgvector, the tsquery), inlinable.
    compiled = pg_index.compile(_docql("search", "segment"))
    assert "<=>" in compiled.sql and "tsquery" in compiled.sql
    assert "%(p" not in compiled.inline_sql()


def test_page_titles_and_the_implementation_frame_on_postgres(
    pg_server: Any, tmp_index: Any
) -> None:
    # A page titled by its front matter is named by its title (`name_lists._titled_pages`,
    # the folded titles read once per index version), and "where is X implemented" counts
    # prose at PROSE_SHARE: the same passages in the same order on both engines.
    from test_search_smart import AUTH_DOCS_AND_CODE, FRONT_MATTER_TITLED

    tmp_index.write_many({**FRONT_MATTER_TITLED, **AUTH_DOCS_AND_CODE})
    docql_sqlite.index(tmp_index.db, ["docs"])
    url = fresh_database(pg_server)
    docql_sqlite.copy(str(tmp_index.db), url)
    questions = [
        "what is tool transformation",
        "metrics plugins",
        "where is authentication implemented",
    ]
    with docql_sqlite.open(tmp_index.db) as index, docql_sqlite.open(url) as conn:
        for text in questions:
            opts = SearchOptions(mode="smart", limit=10, explain=True)
            expected, got = index.search(text, opts), conn.search(text, opts)
            assert [h["location"] for h in got] == [h["location"] for h in expected], text
            assert expected, text
        first = [index.search(text, limit=1)[0]["path"] for text in questions]
    assert [p.rsplit("/", 1)[-1] for p in first] == [
        "tool-transformation.mdx",
        "plugins.md",
        "auth.py",
    ]
