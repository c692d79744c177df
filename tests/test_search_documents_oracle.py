"""The document channel's fast path against the implementation it replaced.

`documents.score` reads each token's postings as plain tuples, caches them per index
version, and precomputes each document's length norm. `reference_score` below is the
earlier implementation, kept verbatim (dict rows, the norm computed inline, no cache):
on the datasets/ index, for random questions of the index's own words (exact words,
stem prefixes, path scopes, negations), the ranked documents, their float scores and
their best passages must be IDENTICAL, not merely close — the fusion ranks by them.
"""

from __future__ import annotations

import math
import os
import random
from pathlib import Path
from typing import Any

import pytest

import docql_sqlite
from docql_sqlite.search import documents, stats
from docql_sqlite.search import terms as search_terms
from docql_sqlite.store.sqlite import engine as sqlite_store
from docql_sqlite.text import has_cjk

MCP_INDEX = Path(os.environ.get("DOCQL_CORPORA", "/work/cache/mcp")) / (
    "mcp-latency-use-multilingual.db"
)


def glob_scope(paths: tuple[str, ...], params: Any) -> str:
    """The search's path scope as the globs themselves in SQL (the engine's REGEXP), the
    oracle of `ranking.scope_sql`'s document ids found in Python."""
    dialect = params.dialect
    globs = (dialect.glob("d.path", params.add(dialect.glob_value(p))) for p in paths)
    return "(" + " OR ".join(globs) + ")"


def reference_occurrences(index: Any, token: documents.Token, paths, negated):
    from docql_sqlite.sqlparams import Params

    params = Params(index.dialect)
    if token.prefix:
        low, high = params.add(token.text), params.add(token.text + sqlite_store.PREFIX_END)
        cond = f"v.term >= {low} AND v.term < {high}"
    else:
        cond = f"v.term = {params.add(token.text)}"
    if paths:
        scope = glob_scope(paths, params)
        cond += (
            f" AND v.doc IN (SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id "
            f"WHERE {scope})"
        )
    if negated:
        cond += (
            f" AND v.doc NOT IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH "
            f"{params.add(negated)})"
        )
    sql = (
        f"SELECT v.doc AS chunk, count(*) AS n FROM {sqlite_store.VOCAB} v WHERE {cond} "
        "AND v.col = 'body' GROUP BY v.doc"
    )
    return [(r["chunk"], r["n"]) for r in index.rows(sql, params.values)]


def reference_layout(index: Any):
    chunk_doc: dict[int, int] = {}
    lengths: dict[int, int] = {}
    for row in index.rows(
        "SELECT c.id AS chunk, c.doc_id AS doc, c.end_offset - c.start_offset AS chars "
        "FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.format != 'code'"
    ):
        chunk, doc, chars = row["chunk"], row["doc"], row["chars"]
        chunk_doc[chunk] = doc
        lengths[doc] = lengths.get(doc, 0) + max(1, int(chars or 0))
    avgdl = sum(lengths.values()) / len(lengths) if lengths else 1.0
    return chunk_doc, lengths, avgdl


def reference_score(index: Any, tokens, paths, negated) -> list[tuple[int, float, int]]:
    """The implementation before the fast path (commit 95e7dd7), as it was."""
    K1, B = documents.K1, documents.B
    chunk_doc, lengths, avgdl = reference_layout(index)
    n_docs = max(1, len(lengths))
    doc_score: dict[int, float] = {}
    chunk_score: dict[int, float] = {}
    for token in tokens:
        if documents._common(index, token):
            continue
        rows = reference_occurrences(index, token, paths, negated)
        if not rows:
            continue
        tf: dict[int, int] = {}
        for chunk, n in rows:
            doc = chunk_doc.get(chunk)
            if doc is not None:
                tf[doc] = tf.get(doc, 0) + n
            chunk_score[chunk] = chunk_score.get(chunk, 0.0) + token.weight * n / (n + K1)
        df = len(tf)
        idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
        w = token.weight * idf * (K1 + 1)
        for doc, n in tf.items():
            norm = K1 * (1.0 - B + B * lengths.get(doc, avgdl) / avgdl)
            doc_score[doc] = doc_score.get(doc, 0.0) + w * n / (n + norm)
    best: dict[int, tuple[float, int]] = {}
    for chunk, s in chunk_score.items():
        doc = chunk_doc.get(chunk)
        if doc is not None and (doc not in best or (s, -chunk) > (best[doc][0], -best[doc][1])):
            best[doc] = (s, chunk)
    ranked = [(d, s, best[d][1]) for d, s in doc_score.items()]
    ranked.sort(key=lambda r: (-r[1], r[0]))
    return ranked


def index_words(idx: Any, rng: random.Random, n: int) -> list[str]:
    """Words of the index's own vocabulary, frequent and rare alike."""
    idx.store.conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.oracle_rows USING fts5vocab(main, chunks_fts, row)"
    )
    vocab = [r["term"] for r in idx.rows("SELECT term FROM temp.oracle_rows ORDER BY cnt DESC")]
    frequent = vocab[:200]
    return [rng.choice(frequent if rng.random() < 0.4 else vocab) for _ in range(n)]


def questions(idx: Any, rng: random.Random, count: int) -> list[tuple[str, tuple[str, ...]]]:
    paths = sorted({d["path"] for d in idx.documents()})
    folders = sorted({p.rsplit("/", 1)[0] + "/*" for p in paths if "/" in p})
    out = []
    for _ in range(count):
        words = index_words(idx, rng, rng.randint(1, 7))
        # inflections, so that stem prefixes (upgrades → upgrad*) take part
        words = [w + rng.choice(("s", "ed", "ing")) if rng.random() < 0.2 else w for w in words]
        if rng.random() < 0.15:
            # a negation; a one-character or numeric word quoted (`-"2"`): `-2` is a number
            word = index_words(idx, rng, 1)[0]
            words.append("-" + (f'"{word}"' if len(word) == 1 or word.isdigit() else word))
        scope = tuple(rng.sample(folders, 1)) if folders and rng.random() < 0.2 else ()
        out.append((" ".join(words), scope))
    return out


def compare(idx: Any, cases: list[tuple[str, tuple[str, ...]]]) -> int:
    """Both implementations on every case; returns how many cases ranked something."""
    eng = idx.store
    sqlite_store.ensure_vocab(eng.conn)
    ranked_some = 0
    for text, scope in cases:
        terms = search_terms.parse(text)
        if not search_terms.positives(terms):
            continue
        terms, _ = stats.reduce_terms(eng, terms)
        tokens = documents.query_tokens(terms)
        negated_terms = [t for t in terms if t.negated]
        negated = " OR ".join(t.fts for t in negated_terms) if negated_terms else None
        want = reference_score(eng, tokens, scope, negated)
        for _ in range(2):  # cold, then from the postings cache
            got = documents.score(eng, tokens, scope, negated)
            assert [(r.doc_id, r.score, r.chunk) for r in got] == want, (text, scope)
        # Best passages for the first `depth` documents only; the same scores for all.
        top = documents.score(eng, tokens, scope, negated, depth=documents.DEPTH)
        assert [(r.doc_id, r.score) for r in top] == [(d, s) for d, s, _ in want]
        assert [r.chunk for r in top[: documents.DEPTH]] == [c for _, _, c in want][
            : documents.DEPTH
        ]
        assert all(r.chunk == -1 for r in top[documents.DEPTH :])
        ranked_some += bool(want)
    return ranked_some


def test_fast_path_equals_the_reference_on_datasets(corpus_db) -> None:
    rng = random.Random(20261202)
    with docql_sqlite.open(corpus_db) as idx:
        cases = questions(idx, rng, 300)
        assert compare(idx, cases) > 150


def test_channel_rows_equal_the_reference_order(corpus_db) -> None:
    """What the fusion sees: the channel's rows (best passage per document, in order)."""
    rng = random.Random(7)
    with docql_sqlite.open(corpus_db) as idx:
        eng = idx.store
        checked = 0
        for text, scope in questions(idx, rng, 60):
            terms = search_terms.parse(text)
            if not search_terms.positives(terms):
                continue
            rows, _ = documents.channel(idx.store, terms, scope)
            tokens = documents.query_tokens(terms)
            cjk = any(has_cjk(t.text) for t in search_terms.positives(terms))
            if cjk or sum(1 for t in tokens if not t.prefix) < documents.MIN_QUESTION_WORDS:
                assert rows == []
                continue
            negated_terms = [t for t in terms if t.negated]
            negated = " OR ".join(t.fts for t in negated_terms) if negated_terms else None
            want = reference_score(eng, tokens, scope, negated)[: documents.DEPTH]
            assert [(r["_chunk"], r["_doc_score"]) for r in rows] == [
                (c, round(s, 6)) for _, s, c in want
            ], text
            checked += bool(want)
        assert checked > 10


def test_a_write_is_seen_not_the_cached_postings(tmp_index) -> None:
    tmp_index.write_many({"a.md": "# A\n\nkernel bootloader grub upgrade\n"})
    tmp_index.index()
    tokens = [documents.Token("kernel", 1.0), documents.Token("grub", 1.0)]
    with docql_sqlite.open(tmp_index.db) as idx:  # one open index: one cache, kept
        sqlite_store.ensure_vocab(idx.conn)
        before = documents.score(idx.store, tokens, (), None)
        tmp_index.write_many({"b.md": "# B\n\nkernel kernel grub and the rest of it\n"})
        tmp_index.index()
        after = documents.score(idx.store, tokens, (), None)
        assert len(before) == 1 and len(after) == 2
        assert [(r.doc_id, r.score, r.chunk) for r in after] == reference_score(
            idx.store, tokens, (), None
        )


def test_caches_belong_to_the_open_index(tmp_index) -> None:
    """The term statistics and postings are the open index's (`Store.stats_cache`): two
    opens of one file keep their own."""
    tmp_index.write_many({"a.md": "# A\n\nkernel bootloader grub upgrade\n"})
    tmp_index.index()
    tokens = [documents.Token("kernel", 1.0)]
    with docql_sqlite.open(tmp_index.db) as one, docql_sqlite.open(tmp_index.db) as two:
        documents.score(one.store, tokens, (), None)
        cache = one.store.stats_cache
        assert cache is not None and len(cache) > 0 and len(documents.postings(one.store)._entries)
        assert two.store.stats_cache is None  # nothing read through the other yet
        documents.score(two.store, tokens, (), None)
        assert two.store.stats_cache is not cache


def test_postings_cache_is_bounded_by_rows() -> None:
    from array import array

    cache = documents.PostingsCache(max_rows=10)
    one = array("q", [1])
    three = documents.Postings(array("q", [1, 2, 3]), one * 3, one * 3, one, array("q", [3]))
    for key in range(5):
        cache.put((key,), three)  # 5 rows each: 3 chunks, 1 document, the entry itself
    assert cache.get((0,)) is None and cache.get((1,)) is None  # the oldest went
    assert cache.get((3,)) is three and cache.get((4,)) is three
    empty = array("q")
    cache.put(("big",), documents.Postings(array("q", range(20)), empty, empty, empty, empty))
    assert cache.get(("big",)) is None  # larger than the whole cache: not kept


@pytest.mark.slow
@pytest.mark.skipif(not MCP_INDEX.exists(), reason=f"no {MCP_INDEX} (benchmarks/mcp_latency.py)")
def test_fast_path_equals_the_reference_on_the_mcp_mix() -> None:
    """The 10 MB Markdown mix: common words (MAX_SHARE) and thousands of postings."""
    rng = random.Random(3)
    with docql_sqlite.open(MCP_INDEX) as idx:
        assert compare(idx, questions(idx, rng, 150)) > 100
