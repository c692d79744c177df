"""Embeddings and hybrid search: vec0 round trip, model checks, the embedding cache,
RRF, filters.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import docql_sqlite
from docql_sqlite import embed
from docql_sqlite.embedders import decode, get_model, register
from docql_sqlite.errors import EmbeddingError
from docql_sqlite.ingest import IngestOptions, index_paths
from docql_sqlite.search import fusion, vectors


def search(index, text, **options):  # the facade, as every client calls it
    return index.search(text, **options)


REPO = Path(__file__).resolve().parents[1]
SHELL = shutil.which("sqlite3") or "/usr/bin/sqlite3"


@pytest.fixture(scope="module")
def embedded_db(tmp_path_factory) -> Path:
    """datasets/ (en, zh, code) indexed and embedded with the hash model, paths as in corpus_db."""
    path = tmp_path_factory.mktemp("embedded") / "e.db"
    import os

    old = os.getcwd()
    os.chdir(REPO)
    try:
        index_paths(path, ["datasets/en", "datasets/zh", "datasets/code"], IngestOptions(workers=2))
    finally:
        os.chdir(old)
    report = embed(path, "hash")
    assert report["embedded"] > 0
    return path


# -- storage ------------------------------------------------------------------------------
def test_vec0_round_trip(embedded_db: Path) -> None:
    with docql_sqlite.open(embedded_db) as idx:
        conn = idx.conn
        assert vectors.stored_meta(conn) == {
            "embedding_model": "hash:256",
            "embedding_dimensions": "256",
            "embedding_fingerprint": get_model("hash").fingerprint(),
        }
        n_chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        assert conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == n_chunks
        # Every search passage has a vector; a blank chunk or one of links alone has none.
        from docql_sqlite.passage_text import nothing_to_embed

        contents = [row[0] for row in conn.execute("SELECT content FROM chunks")]
        passages = sum(not nothing_to_embed(c) for c in contents)
        assert 0 < passages < n_chunks
        assert conn.execute("SELECT count(*) FROM chunks_vec").fetchone()[0] == passages
        model = get_model("hash")
        rows = conn.execute("SELECT id, content, doc_id FROM chunks ORDER BY id").fetchall()
        for chunk_id, content, doc_id in [r for r in rows if not nothing_to_embed(r[1])][:25]:
            blob, stored_doc = conn.execute(
                "SELECT embedding, doc_id FROM chunks_vec WHERE rowid = ?", (chunk_id,)
            ).fetchone()
            assert stored_doc == doc_id
            assert np.allclose(decode(blob), model.embed([content])[0], atol=1e-7)
        # A chunk is its own nearest neighbour ("more like chunk N").
        some = conn.execute(
            "SELECT id FROM chunks WHERE length(content) > 200 ORDER BY id LIMIT 1"
        ).fetchone()[0]
        (nearest,) = conn.execute(
            "SELECT rowid FROM chunks_vec WHERE embedding MATCH "
            "(SELECT embedding FROM chunks_vec WHERE rowid = ?) AND k = 1",
            (some,),
        ).fetchone()
        assert nearest == some


def test_model_mismatch_is_refused(embedded_db: Path) -> None:
    with docql_sqlite.open(embedded_db) as idx:
        with pytest.raises(
            EmbeddingError,
            match=r"embedded with 'hash:256' \(256 dimensions\) but the query uses "
            r"'hash:64' \(64 dimensions\); search with --model hash:256",
        ):
            search(idx, "segment", mode="vector", model="hash:64")
        assert search(idx, "segment", mode="vector", model="hash:256")
    with pytest.raises(EmbeddingError, match="--replace"):
        embed(embedded_db, "hash:64")


def test_no_embeddings_messages(corpus_db: Path) -> None:
    with docql_sqlite.open(corpus_db) as idx:
        with pytest.raises(
            EmbeddingError, match="no embeddings; create them with: docql-sqlite embed"
        ):
            search(idx, "segment", mode="vector")
        # hybrid without vectors degrades to BM25 and says so.
        hits = search(idx, "segment", mode="hybrid", explain=True)
        assert hits and "ran as bm25" in hits[0]["explain"]["plan"]["notes"][0]


def test_only_new_or_changed_chunks_are_embedded(tmp_index, counting_model) -> None:
    sections = [f"## Part {i}\n\nParagraph number {i} talks about topic {i}.\n" for i in range(6)]
    tmp_index.write("a.md", "# A\n\n" + "\n".join(sections))
    tmp_index.write(
        "b.md", "# B\n\nAnother file.\n\n## Same\n\nParagraph number 1 talks about topic 1.\n"
    )
    tmp_index.index()
    first = embed(tmp_index.db, "counting")
    distinct = tmp_index.scalar("SELECT count(DISTINCT content_hash) FROM chunks")
    assert (
        first["embedded"] == distinct == len(set(counting_model.texts)) == len(counting_model.texts)
    )
    # Nothing changed: nothing embedded.
    counting_model.texts = []
    assert embed(tmp_index.db)["embedded"] == 0 and counting_model.texts == []
    # Edit one section: re-indexing gives every chunk of a.md a new id, yet only the
    # changed text is embedded; the others come from the cache.
    sections[3] = "## Part 3\n\nThis paragraph was rewritten entirely.\n"
    tmp_index.write("a.md", "# A\n\n" + "\n".join(sections))
    # The write path keeps the vectors current: the index run itself embeds the change.
    report = tmp_index.index().embedding
    assert report is not None and embed(tmp_index.db)["embedded"] == 0
    assert len(counting_model.texts) == 1 and counting_model.texts[0].startswith(
        "## Part 3\n\nThis paragraph was rewritten"
    )
    assert report["embedded"] == 1 and report["reused"] + report["unchanged"] >= 6
    # A renamed file is a new document with new chunk ids: all its texts come from the cache.
    counting_model.texts = []
    (tmp_index.docs / "a.md").rename(tmp_index.docs / "c.md")
    report = tmp_index.index().embedding
    assert report is not None
    assert counting_model.texts == [] and report["embedded"] == 0 and report["reused"] >= 6
    n = tmp_index.scalar("SELECT count(*) FROM chunks")
    assert tmp_index.scalar("SELECT count(*) FROM chunk_vectors") == n
    assert (
        tmp_index.scalar(
            "SELECT count(*) FROM chunk_vectors cv JOIN chunks c ON c.id = cv.chunk_id "
            "AND c.content_hash = cv.content_hash"
        )
        == n
    )
    # Replacing the model re-embeds everything.
    counting_model.texts = []
    assert embed(tmp_index.db, "hash:32", replace=True)["embedded"] == distinct


def test_the_embed_report_counts_every_chunk_once(tmp_index, counting_model) -> None:
    """A copy of a passage shares its vector (reused, embedded once); it is not left out
    of the report (7,734 chunks of SQLite's HTML docs reported 6,440 embedded and 19 with
    nothing to embed: the 1,275 copies of its release notes went uncounted)."""
    page = "# Notes\n\nThe same release note in two places.\n\n## Fixes\n\nA fix.\n"
    tmp_index.write("changes.md", page)
    tmp_index.write("release/1.0.md", page)
    tmp_index.write("links.md", "[a]: https://example.org/a\n[b]: https://example.org/b\n")
    tmp_index.index()
    report = embed(tmp_index.db, "counting")
    chunks = tmp_index.scalar("SELECT count(*) FROM chunks")
    distinct = tmp_index.scalar("SELECT count(DISTINCT content_hash) FROM chunks")
    counted = sum(report[k] for k in ("embedded", "reused", "unchanged", "nothing_to_embed"))
    assert report["embedded"] == len(counting_model.texts) == distinct - 1  # links: none
    assert report["reused"] == chunks - distinct and report["nothing_to_embed"] == 1
    assert counted == chunks == report["chunks"]


def test_stale_vectors_are_skipped_until_reembedded(tmp_index) -> None:
    tmp_index.write_many({"a.md": "# A\n\napples and pears\n", "b.md": "# B\n\nbananas\n"})
    tmp_index.index()
    embed(tmp_index.db, "hash")
    tmp_index.write("a.md", "# A\n\ncherries only now\n")
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "apples and pears", mode="vector", limit=5, explain=True)
        assert all("apples" not in h["content"] for h in hits)
        assert "stale" in hits[0]["explain"]["plan"]["notes"][0]


# -- fusion ---------------------------------------------------------------------------------
def test_rrf_arithmetic_hand_checked() -> None:
    row = lambda i: {"_chunk": i, "_path": f"p{i}", "_pos": 0}  # noqa: E731
    a = fusion.Ranked("a", 1.0, [row(1), row(2), row(3)])
    b = fusion.Ranked("b", 2.0, [row(3), row(1)])
    fused = fusion.rrf([a, b], k=60)
    # 3: 1/63 + 2/61 = 0.0158730 + 0.0327869 = 0.0486599
    # 1: 1/61 + 2/62 = 0.0163934 + 0.0322581 = 0.0486515;  2: 1/62 = 0.0161290
    assert [f.row["_chunk"] for f in fused] == [3, 1, 2]
    assert [round(f.score, 6) for f in fused] == [0.04866, 0.048652, 0.016129]
    assert fused[0].rrf == {"a": round(1 / 63, 8), "b": round(2 / 61, 8)}


def test_hybrid_sql_rrf_matches_ranks(embedded_db: Path) -> None:
    with docql_sqlite.open(embedded_db) as idx:
        hits = search(
            idx,
            "segment merge",
            mode="hybrid",
            limit=10,
            explain=True,
            rrf_k=60,
            weights={"bm25": 2.0},
        )
        assert len(hits) == 10
        both = 0
        for h in hits:
            ex = h["explain"]
            expected = sum(
                w / (60 + ex["lists"][name]["rank"])
                for name, w in (("bm25", 2.0), ("vector", 1.0))
                if name in ex["lists"]
            )
            assert h["score"] == pytest.approx(expected, abs=1e-6)
            assert ex["final"] == h["score"]
            both += len(ex["lists"]) == 2
        assert both >= 1
        assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)


def test_vector_filter_is_pushed_and_never_starves(embedded_db: Path) -> None:
    with docql_sqlite.open(embedded_db) as idx:
        zh = [d for d in idx.documents(("datasets/zh/*",))]
        in_zh = idx.conn.execute(
            "SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id "
            "WHERE d.path GLOB 'datasets/zh/*'"
        ).fetchone()[0]
        assert zh and in_zh >= 20
        hits = search(
            idx,
            "segment merge compaction",
            mode="vector",
            limit=20,
            paths=("datasets/zh/*",),
            explain=True,
        )
        assert len(hits) == 20 and all(h["path"].startswith("datasets/zh/") for h in hits)
        assert "pushed into vec0" in hits[0]["explain"]["plan"]["notes"][0]
        grouped = search(idx, "segment merge", mode="hybrid", limit=5, group="file", explain=True)
        assert len(grouped) == 5 and any(
            "over-fetch" in n for n in grouped[0]["explain"]["plan"]["notes"]
        )


# -- DocQL and the shell --------------------------------------------------------------------
def test_docql_search_and_similar(embedded_db: Path) -> None:
    with docql_sqlite.open(embedded_db) as idx:
        fused = idx.query('$.content.search("segment merge")[0:5]')
        api = search(idx, "segment merge", mode="hybrid", limit=5)
        # Same fusion; DocQL's lists are deeper (100 rows), so only the top is compared.
        assert fused[0]["location"] == api[0]["location"] and fused[0]["score"] == pytest.approx(
            api[0]["score"], abs=1e-6
        )
        similar = idx.query('$.content.similar("segment merge")[0:3]')
        assert [i["location"] for i in similar] == [
            h["location"] for h in search(idx, "segment merge", mode="vector", limit=3)
        ]
        chunk = idx.conn.execute(
            "SELECT id FROM chunks WHERE length(content) > 200 ORDER BY id LIMIT 1"
        ).fetchone()[0]
        (first,) = idx.query(f"$.content.similar({chunk})[0:1]")
        assert first["score"] == pytest.approx(1.0)


@pytest.mark.skipif(not Path(SHELL).exists(), reason="no sqlite3 shell")
def test_more_like_chunk_n_in_the_3_40_shell(embedded_db: Path) -> None:
    import sqlite_vec

    with docql_sqlite.open(embedded_db) as idx:
        chunk = idx.conn.execute(
            "SELECT id FROM chunks WHERE length(content) > 200 ORDER BY id LIMIT 1"
        ).fetchone()[0]
        query = f"$.content.similar({chunk})[0:5].location"
        expected = idx.query(query)
        sql = idx.compile(query).inline_sql()
    vec = str(Path(sqlite_vec.loadable_path()))
    done = subprocess.run(
        [SHELL, "-readonly", str(embedded_db)],
        input=f".load {vec}\n{sql};\n",
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr == "" and done.stdout.splitlines() == expected


def test_cli_embed_and_index_embed(tmp_index) -> None:
    from docql_sqlite.cli import cli

    tmp_index.write_many(
        {"a.md": "# A\n\napples\n\n[apples]: #a\n[pears]: #b\n", "b.md": "# B\n\nbananas\n"}
    )
    runner = CliRunner()
    done = runner.invoke(cli, ["index", str(tmp_index.db), str(tmp_index.docs), "--embed", "hash"])
    assert done.exit_code == 0, done.output
    assert "embedded" in done.output
    assert "1 chunks with nothing to embed (links, comments or blank alone)" in done.output
    done = runner.invoke(cli, ["embed", str(tmp_index.db), "--json"])
    assert done.exit_code == 0 and '"embedded": 0' in done.output
    done = runner.invoke(cli, ["embed", str(tmp_index.db), "--model", "hash:64"])
    assert done.exit_code == 1 and "--replace" in done.output
    done = runner.invoke(cli, ["search", str(tmp_index.db), "apples", "--mode", "hybrid", "--json"])
    assert done.exit_code == 0 and "a.md" in done.output


# -- smart search with a passage as the query (more than smart.LONG_QUERY content words) -----
PASSAGE = (
    "Segments are merged in the background when their number grows past the merge factor; "
    "the planner estimates the cost of every candidate merge from segment sizes, deleted "
    "documents, the age of the oldest segment and the write rate observed over the last "
    "minutes, then schedules the cheapest merges first so that queries keep their latency "
    "while the index compacts itself"
)


def _order(hits: list[dict]) -> list[str]:
    return [h["location"] for h in hits]


def test_a_passage_as_query_ranks_by_meaning_when_vectors_exist(embedded_db: Path) -> None:
    """Over LONG_QUERY content words, smart's lexical lists are not run: the order is the
    vector mode's (Lee set: lexical lists outvoted the vector list through RRF)."""
    from docql_sqlite.search import smart
    from docql_sqlite.search import terms as search_terms

    assert len(search_terms.positives(search_terms.parse(PASSAGE))) > smart.LONG_QUERY
    with docql_sqlite.open(embedded_db) as idx:
        smart_hits = search(idx, PASSAGE, mode="smart", limit=8, explain=True)
        vector_hits = search(idx, PASSAGE, mode="vector", limit=8)
        assert _order(smart_hits) == _order(vector_hits)
        plan = smart_hits[0]["explain"]["plan"]
        assert set(plan["channels"]) == {"vector"} and plan["channels"]["vector"] > 0
        assert any("passage as query" in step for step in plan["strategy"])
        # Grouped by file, too: the files of the vector mode, in its order.
        assert _order(search(idx, PASSAGE, mode="smart", limit=5, group="file")) == _order(
            search(idx, PASSAGE, mode="vector", limit=5, group="file")
        )


@pytest.mark.parametrize("words", [3, 12, 20])
def test_a_question_keeps_every_channel_with_vectors(embedded_db: Path, words: int) -> None:
    """Up to LONG_QUERY content words (every FAQ and code question) nothing changes: the
    lexical lists run and are fused with the vector list at full weight."""
    from docql_sqlite.search import smart
    from docql_sqlite.search import terms as search_terms

    text = " ".join(t.text for t in search_terms.positives(search_terms.parse(PASSAGE))[:words])
    assert len(search_terms.positives(search_terms.parse(text))) == words <= smart.LONG_QUERY
    with docql_sqlite.open(embedded_db) as idx:
        hits = search(idx, text, mode="smart", limit=5, explain=True)
    plan = hits[0]["explain"]["plan"]
    assert {"bm25", "vector", "documents"} <= set(plan["channels"])
    assert not any("passage as query" in step for step in plan["strategy"])
    assert any(e["explain"]["lists"].get("bm25") for e in hits)


def test_a_passage_as_query_without_vectors_is_lexical(corpus_db: Path) -> None:
    """Without vectors the rule does not apply: BM25 (its 32 rarest words) ranks."""
    with docql_sqlite.open(corpus_db) as idx:
        assert not idx.has_vectors
        hits = search(idx, PASSAGE, mode="smart", limit=5, explain=True)
    assert hits and "bm25" in hits[0]["explain"]["plan"]["channels"]
    assert not any("passage as query" in s for s in hits[0]["explain"]["plan"]["strategy"])


# -- chunks of links alone get no vector -----------------------------------------------------
def _page_with_link_block(i: int) -> str:
    """A Node-shaped page: prose about a timeout, then a block of link definitions whose
    labels name timeouts too (a chunk of its own, no search passage)."""
    links = "\n".join(f"[`timeout.option{i}x{k}`]: #timeout-option-{i}-{k}" for k in range(6))
    return f"# Page {i}\n\nSet the timeout of request {i} with care.\n\n{links}\n"


def _vector_ids(db: Path) -> set[int]:
    with docql_sqlite.open(db) as idx:
        return {r["rowid"] for r in idx.rows("SELECT rowid FROM chunks_vec")}


def _chunk_ids(db: Path) -> set[int]:
    with docql_sqlite.open(db) as idx:
        return {r["id"] for r in idx.rows("SELECT id FROM chunks")}


def _link_chunk_ids(db: Path) -> set[int]:
    from docql_sqlite.passage_text import no_passage

    with docql_sqlite.open(db) as idx:
        return {
            r["id"] for r in idx.rows("SELECT id, content FROM chunks") if no_passage(r["content"])
        }


def test_chunks_of_links_alone_get_no_vector(tmp_index, counting_model) -> None:
    from docql_sqlite.passage_text import no_passage

    tmp_index.write_many({f"p{i}.md": _page_with_link_block(i) for i in range(12)})
    tmp_index.index()
    report = embed(tmp_index.db, "counting")
    links = _link_chunk_ids(tmp_index.db)
    assert len(links) == 12 and report["nothing_to_embed"] == 12
    # The model never saw them; their bookkeeping rows make them current, not pending.
    assert counting_model.texts and not any(no_passage(t) for t in counting_model.texts)
    assert _vector_ids(tmp_index.db).isdisjoint(links)
    assert tmp_index.scalar("SELECT count(*) FROM chunk_vectors") == tmp_index.scalar(
        "SELECT count(*) FROM chunks"
    )
    assert embed(tmp_index.db)["embedded"] == 0
    # Their link labels are nearer to the query than the prose by the hash model's
    # words; with vectors they took the vector list's places and 10 asked gave fewer.
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = search(idx, "timeout option", mode="vector", limit=10)
    assert len(hits) == 10 and not any(no_passage(h["content"]) for h in hits)
    with pytest.raises(Exception, match="nothing to embed"):
        with docql_sqlite.open(tmp_index.db) as idx:
            idx.query(f"$.content.similar({min(links)})")


def test_an_index_embedded_before_drops_the_vectors_of_link_chunks(
    tmp_index, counting_model, tmp_path_factory
) -> None:
    from docql_sqlite.embedders import encode
    from docql_sqlite.ingest.embed import pending
    from docql_sqlite.passage_text import no_passage
    from docql_sqlite.schema import KEY_PASSAGES

    pages = {f"p{i}.md": _page_with_link_block(i) for i in range(12)}
    tmp_index.write_many(pages)
    tmp_index.index()
    embed(tmp_index.db, "counting")
    links = _link_chunk_ids(tmp_index.db)
    # As an index embedded before the rule left it: a vector for every chunk, no meta row.
    store = docql_sqlite.Index(tmp_index.db, readonly=False).store
    writer = store.writer()
    model = get_model("counting")
    writer.write_vectors(
        [
            (r["id"], r["doc_id"], r["content_hash"], encode(model.embed([r["content"]])[0]))
            for r in store.rows("SELECT id, doc_id, content_hash, content FROM chunks")
            if r["id"] in links
        ]
    )
    assert len(writer.chunks_with_vectors()) == len(_chunk_ids(tmp_index.db))
    store.conn.execute("DELETE FROM meta WHERE key = ?", (KEY_PASSAGES,))
    store.close()
    assert _vector_ids(tmp_index.db) >= links
    assert pending(tmp_index.db) == ("counting", 0)  # no chunk needs the model
    # A server reading it meanwhile (it writes nothing) leaves those vectors out.
    with docql_sqlite.Index(tmp_index.db, vectors_in_memory=True) as idx:
        hits = search(idx, "timeout option", mode="vector", limit=10)
        assert (
            "in memory"
            in search(idx, "x", mode="vector", explain=True)[0]["explain"]["plan"]["notes"][0]
        )
    assert len(hits) == 10 and not any(no_passage(h["content"]) for h in hits)
    # The next index run (nothing changed on disk) drops them, and then answers as a
    # fresh index of the same files does. It needs no model: here none is installed.
    from docql_sqlite.embedders import reload_plugins
    from docql_sqlite.embedders.registry import forget_loaded_models

    reload_plugins()
    forget_loaded_models()
    run = tmp_index.index()
    assert run.embedding is None and run.embedding_error is None
    assert _vector_ids(tmp_index.db).isdisjoint(links)
    with docql_sqlite.open(tmp_index.db) as idx:
        assert idx.rows("SELECT value FROM meta WHERE key = ?", [KEY_PASSAGES])
    register("counting", lambda arg, **_: counting_model())
    fresh = tmp_path_factory.mktemp("fresh")
    (fresh / "docs").mkdir()
    for name, text in pages.items():
        (fresh / "docs" / name).write_text(text, encoding="utf-8")
    index_paths(fresh / "f.db", [str(fresh / "docs")], IngestOptions(workers=0))
    embed(fresh / "f.db", "counting")
    for db in (tmp_index.db, fresh / "f.db"):
        with docql_sqlite.open(db) as idx:
            got = [
                (h["path"].rsplit("/", 1)[-1], h["line"], round(h["score"], 6))
                for h in search(idx, "timeout option", mode="vector", limit=10)
            ]
        if db == tmp_index.db:
            upgraded = got
    assert upgraded == got and len(got) == 10
