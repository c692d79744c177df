"""Smart search's documents channel on PostgreSQL counts what FTS5's fts5vocab counts.

The channel (`search/documents.py`) ranks whole documents by BM25 from each query word's
occurrences in the body column of each chunk: on the file FTS5's `fts5vocab` instance
table, on PostgreSQL the body-weighted (B) positions of each chunk's tsvector
(`Engine.body_counts`). The index of datasets/ is copied to a real PostgreSQL 16
(pgserver); the oracle is FTS5 itself, read by SQL written out here:

- every (term, chunk) body count of the whole vocabulary is the same in both indexes;
- `body_counts` on PostgreSQL gives fts5vocab's rows for exact tokens, prefixes, path
  scopes and negated terms;
- the channel's scores (float for float), best passages and rows, and its "common word"
  pruning, are the same on both engines, and smart search's explain shows the channel.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from pg_server import fresh_database, start_server
from test_search_documents_oracle import glob_scope, questions

import docql_sqlite
from docql_sqlite import SearchOptions
from docql_sqlite.search import documents, ranking, stats
from docql_sqlite.search import terms as search_terms
from docql_sqlite.sqlparams import Params

psycopg = pytest.importorskip("psycopg", reason="PostgreSQL tests need the 'postgres' extra")

SCOPES = [(), ("datasets/en/*",), ("datasets/zh/*", "datasets/code/*")]
ALL_BODY_COUNTS = (
    "SELECT term, doc, count(*) AS n FROM temp.oracle_instances WHERE col = 'body' "
    "GROUP BY term, doc"
)


@pytest.fixture(scope="module")
def pg_server() -> Iterator[Any]:
    yield from start_server()


@pytest.fixture(scope="module")
def engines(pg_server: Any, corpus_db: Path) -> Iterator[tuple[Any, Any]]:
    """(the datasets/ Index, an Index over its PostgreSQL copy's URL)."""
    url = fresh_database(pg_server)
    docql_sqlite.copy(str(corpus_db), url)
    index, conn = docql_sqlite.open(corpus_db), docql_sqlite.open(url)
    # The oracle's own fts5vocab table (not the one the engine creates and reads).
    index.store.conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.oracle_instances "
        "USING fts5vocab(main, chunks_fts, instance)"
    )
    yield index, conn
    conn.close()
    index.close()


def fts5_counts(
    index: Any, token: str, prefix: bool, paths: tuple[str, ...], negated: str | None
) -> list[tuple[int, int]]:
    """fts5vocab's (chunk, body occurrences) of `token`, in scope and without `negated`
    (an FTS5 query), in chunk order: the reference."""
    params = Params(index.dialect)
    if prefix:
        high = params.add(token + "\uffff")
        cond = f"v.term >= {params.add(token)} AND v.term < {high}"
    else:
        cond = f"v.term = {params.add(token)}"
    if paths:
        cond += (
            " AND v.doc IN (SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id "
            f"WHERE {glob_scope(paths, params)})"
        )
    if negated:
        cond += (
            " AND v.doc NOT IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH "
            f"{params.add(negated)})"
        )
    sql = (
        f"SELECT v.doc AS chunk, count(*) AS n FROM temp.oracle_instances v WHERE {cond} "
        "AND v.col = 'body' GROUP BY v.doc ORDER BY v.doc"
    )
    return [(r["chunk"], r["n"]) for r in index.rows(sql, params.values)]


def pg_counts(
    eng: Any, token: str, prefix: bool, paths: tuple[str, ...], negated: str | None
) -> list[tuple[int, int]]:
    """`PostgresStore.body_counts` with the conditions built as documents.py builds them."""
    params = Params(eng.dialect)
    within = without = None
    if paths:
        scope = ranking.scope_sql(eng, paths, params)
        within = f"SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE {scope}"
    if negated:
        without = eng.dialect.ids_matching(params.add(negated))
    return [tuple(r) for r in eng.body_counts(token, prefix, params, within, without)]


def vocabulary(index: Any) -> list[tuple[str, int]]:
    """(term, chunks holding it in the body) of the whole index, most frequent first."""
    rows = index.rows(
        "SELECT term, count(DISTINCT doc) AS n FROM temp.oracle_instances "
        "WHERE col = 'body' GROUP BY term ORDER BY n DESC, term"
    )
    return [(r["term"], r["n"]) for r in rows]


def test_every_body_count_of_the_index_is_fts5s(engines: Any) -> None:
    # The premise, for the whole vocabulary at once: a chunk's B positions of a lexeme in
    # its tsvector are FTS5's body-column instances of that term in that chunk.
    index, conn = engines
    want = {(r["term"], r["doc"]): r["n"] for r in index.rows(ALL_BODY_COUNTS)}
    with nullcontext(conn.store) as eng:
        rows = eng.rows(
            "SELECT u.lexeme AS term, f.rowid AS doc, "
            "cardinality(array_positions(u.weights, 'B')) AS n "
            "FROM chunks_fts f CROSS JOIN LATERAL unnest(f.tsv) u WHERE 'B' = ANY(u.weights)"
        )
    got = {(r["term"], r["doc"]): r["n"] for r in rows}
    assert len(want) > 10_000  # datasets/: every chunk's body terms (12,540)
    assert got == want


def test_body_counts_equal_fts5vocab(engines: Any) -> None:
    index, conn = engines
    vocab = vocabulary(index)
    rng = random.Random(13)
    words = [t for t, _ in vocab[:40]] + [t for t, _ in rng.sample(vocab, 160)]
    words += ["架", "库", "über", "zzzqqq", "dec", "0054"]  # CJK, accents, none, digits
    prefixes = sorted({w[:n] for w in words for n in (1, 3, 5) if len(w) > n})
    # A frequent word as negation (FTS5's syntax on the file, the tsquery on PostgreSQL).
    negated_terms = search_terms.parse("-the -segment")
    on_file = index.dialect.any_of(negated_terms)
    checked = nonempty = 0
    with nullcontext(conn.store) as eng:
        on_pg = eng.dialect.any_of(negated_terms)
        sqlite_eng = index.store
        for i, (token, prefix) in enumerate(
            [(w, False) for w in words] + [(p, True) for p in prefixes]
        ):
            paths = SCOPES[i % len(SCOPES)]
            for negate in (False, True) if i % 4 == 0 else (False,):
                want = fts5_counts(index, token, prefix, paths, on_file if negate else None)
                got = pg_counts(eng, token, prefix, paths, on_pg if negate else None)
                assert got == want, (token, prefix, paths, negate)
                # The file engine's own statement reads the same rows.
                params = Params(index.dialect)
                within = without = None
                if paths:
                    scope = ranking.scope_sql(index.store, paths, params)
                    within = (
                        "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id "
                        f"WHERE {scope}"
                    )
                if negate:
                    without = index.dialect.ids_matching(params.add(on_file))
                mine = sqlite_eng.body_counts(token, prefix, params, within, without)
                assert sorted(mine) == want, (token, prefix, paths, negate)
                checked += 1
                nonempty += bool(want)
    # The table must find things, prefixes must span several tokens, negation must remove.
    assert checked > 300 and nonempty > 250
    assert len(fts5_counts(index, "seg", True, (), None)) > len(
        fts5_counts(index, "segment", False, (), None)
    )
    assert fts5_counts(index, "segment", False, (), on_file) == []


def test_scores_and_best_passages_are_the_files(engines: Any) -> None:
    index, conn = engines
    rng = random.Random(20261203)
    cases = questions(index, rng, 120) + [
        ("how do rolling upgrades work in lumen", ()),
        ("segment compaction write-ahead log replication -snapshot", ("datasets/en/*",)),
        ("configuring replication upgrades installing", ()),
    ]
    ranked_some = 0
    with nullcontext(conn.store) as eng:
        for text, scope in cases:
            terms = search_terms.parse(text)
            if not search_terms.positives(terms):
                continue
            terms, _ = stats.reduce_terms(index.store, terms)
            tokens = documents.query_tokens(terms)
            want = documents.score(
                index.store,
                tokens,
                scope,
                documents.negation(index.store, terms),
                depth=documents.DEPTH,
            )
            got = documents.score(
                eng, tokens, scope, documents.negation(eng, terms), depth=documents.DEPTH
            )
            assert [(r.doc_id, r.score, r.chunk) for r in got] == [
                (r.doc_id, r.score, r.chunk) for r in want
            ], (text, scope)
            # What the fusion sees: the same rows, the same order.
            assert documents.channel(eng, terms, scope) == documents.channel(
                index.store, terms, scope
            )
            ranked_some += bool(want)
    assert ranked_some > 60


def test_common_words_are_pruned_alike(engines: Any) -> None:
    # datasets/ is over MIN_CHUNKS: a word in more than MAX_SHARE of the chunks is not
    # looked up on either engine (its document frequency counted in its own syntax).
    index, conn = engines
    assert stats.chunk_count(index.store) > documents.MIN_CHUNKS
    vocab = vocabulary(index)
    common = 0
    with nullcontext(conn.store) as eng:
        for term, _ in vocab[:60] + vocab[-20:]:
            token = documents.Token(term, 1.0)
            assert documents._common(eng, token) == documents._common(index.store, token), term
            common += documents._common(index.store, token)
    assert 0 < common < 80


def test_smart_search_runs_the_channel_on_postgres(engines: Any) -> None:
    index, conn = engines
    text = "how do rolling upgrades work in lumen"
    opts = SearchOptions(mode="smart", limit=10, explain=True)
    sqlite, postgres = index.search(text, opts), conn.search(text, opts)
    assert postgres and [h["location"] for h in postgres] == [h["location"] for h in sqlite]
    plans = [h["explain"]["plan"] for h in (sqlite[0], postgres[0])]
    assert plans[1]["documents"] == plans[0]["documents"]
    assert plans[1]["documents"][0].startswith("BM25 over whole documents:")
    assert plans[1]["channels"]["documents"] == plans[0]["channels"]["documents"] > 0
