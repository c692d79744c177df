"""BM25 search: query builder, AND→OR fallback, CJK substrings, identifiers, field weights, DocQL,
CLI.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import docql_sqlite
from docql_sqlite.dialect import SQLITE
from docql_sqlite.errors import SearchError
from docql_sqlite.search import terms as T
from docql_sqlite.text import CJK_RUN


def search(index, text, **options):  # the facade, as every client calls it
    return index.search(text, **options)


SHELL = shutil.which("sqlite3") or "/usr/bin/sqlite3"
ALL = 100_000  # a limit above any result count: the whole match set


def bm25(idx, text: str, limit: int = 10, **kw):
    return search(idx, text, mode="bm25", limit=limit, **kw)


# -- query builder ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [
        ("DEC-0054", '"dec 0054"'),
        ("gpt-4", '"gpt 4"'),
        ("2026.4.10", '"2026 4 10"'),
        ("snake_case_name", '"snake case name"'),
        ("getUserName", '"getusername"'),
        ("架构", '"架 构"'),
        ("Lumen的架构", '"lumen 的 架 构"'),
        ('"core web vitals"', '"core web vitals"'),
        ("perf*", '"perf" *'),
        ("AND", '"and"'),
    ],
)
def test_term_to_fts(text: str, expected: str) -> None:
    (term,) = T.parse(text, keep_stopwords=True)
    assert term.fts == expected


def test_match_expressions() -> None:
    terms = T.parse('performance "core web vitals" -battery')
    assert SQLITE.match_and(terms) == (
        '(("performance" AND "core web vitals") NOT ("battery")) '
        'AND body : ("performance" OR "core web vitals")'
    )
    assert SQLITE.match_or(terms).startswith(
        '(("performance" OR "core web vitals") NOT ("battery"))'
    )
    assert [t.text for t in T.parse("how do I index the files")] == ["index", "files"]
    assert [t.text for t in T.parse("the")] == ["the"]  # only stopwords: keep them
    assert T.parse("&& - ||") == []
    (flag,) = T.parse("--preserve-symlinks")
    assert not flag.negated and flag.fts == '"preserve symlinks"'
    assert [t.negated for t in T.parse('a -bb -"c d"')] == [False, True, True]
    # a short option and a negative number are text: `set -e`, `grep -v`, `returns -1`
    for text, kept in [
        ("set -e", "-e"),
        ("grep -v?", "-v?"),
        ("returns -1", "-1"),
        ("x -2.5", "-2.5"),
    ]:
        assert [(t.text, t.negated) for t in T.parse(text)][-1] == (kept, False), text


def test_identifier_parts_and_stems() -> None:
    assert T.split_identifier("QueryPlanner") == ["query", "planner"]
    assert T.split_identifier("parse_HTTPResponse") == ["parse", "http", "response"]
    assert T.split_identifier("gpt-4.1") == ["gpt", "4", "1"]
    assert T.stem("indexing") == "index" and T.stem("planners") == "plann" and T.stem("go") == "go"


# -- AND → OR ------------------------------------------------------------------------------
FALLBACK_DOCS = {
    "a.md": "# Alpha\n\nalpha beta gamma together.\n",
    "b.md": "# Beta\n\nonly beta here, beta again.\n",
    "c.md": "# Gamma\n\ngamma and alpha, no third word.\n",
    "d.md": "# Delta\n\nnothing relevant at all.\n",
}


def test_and_then_or_fallback(tmp_index) -> None:
    tmp_index.write_many(FALLBACK_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        # Every word present in one doc: AND finds 1 < limit → OR fills up, AND hit first.
        hits = bm25(idx, "alpha beta gamma", limit=3, explain=True)
        assert hits[0]["path"] == "docs/a.md"
        assert hits[0]["explain"]["lists"]["bm25"]["terms_matched"] == 3
        assert [h["explain"]["lists"]["bm25"]["terms_matched"] for h in hits] == [3, 2, 1]
        assert hits[0]["explain"]["plan"]["fts"]["strategy"].startswith("or")
        # One word missing from the whole index never empties the result.
        hits = bm25(idx, "alpha zebra")
        assert {h["path"] for h in hits} == {"docs/a.md", "docs/c.md"}
        # AND selective enough (>= limit): only chunks with every term.
        hits = bm25(idx, "alpha gamma", limit=2, explain=True)
        assert {h["path"] for h in hits} == {"docs/a.md", "docs/c.md"}
        assert hits[0]["explain"]["plan"]["fts"]["strategy"] == "and"
        # Negation and phrases.
        assert {h["path"] for h in bm25(idx, "alpha -beta")} == {"docs/c.md"}
        assert {h["path"] for h in bm25(idx, '"beta gamma"')} == {"docs/a.md"}
        assert bm25(idx, '"gamma beta"') == []
        # Prefix only where asked.
        assert bm25(idx, "gam") == []
        assert {h["path"] for h in bm25(idx, "gam*")} == {"docs/a.md", "docs/c.md"}
        with pytest.raises(SearchError, match="not negated"):
            bm25(idx, "-alpha")


# -- CJK substrings against a brute-force oracle --------------------------------------------
CJK_EXTRA = {
    "ja.md": "# 東京の案内\n\n東京都は日本の首都です。京都とは違います。\n\n"
    "カタカナのテキストも検索できます。\n",
    "ko.md": "# 한국어 문서\n\n서울은 대한민국의 수도입니다. 한국어 검색을 시험합니다.\n",
}


LETTERS = re.compile(r"[^\W\d_]+")  # CJK punctuation (、。「」) is a separator, not searchable text


def _cjk_substrings(texts: list[str], size: int, count: int, seed: int) -> list[str]:
    found = set()
    for text in texts:
        for run in (r for cjk in CJK_RUN.findall(text) for r in LETTERS.findall(cjk)):
            found.update(run[i : i + size] for i in range(len(run) - size + 1))
    pool = sorted(s for s in found if len(s) == size)
    random.Random(seed).shuffle(pool)
    return pool[:count]


@pytest.fixture(scope="module")
def cjk_index(tmp_path_factory) -> Path:
    from docql_sqlite.ingest import IngestOptions, index_paths

    root = tmp_path_factory.mktemp("cjk")
    repo = Path(__file__).resolve().parents[1]
    shutil.copytree(repo / "datasets" / "zh", root / "zh")
    for name, text in CJK_EXTRA.items():
        (root / name).write_text(text, encoding="utf-8")
    index_paths(
        root / "cjk.db",
        [str(root / "zh"), str(root / "ja.md"), str(root / "ko.md")],
        IngestOptions(workers=1),
    )
    return root / "cjk.db"


@pytest.mark.parametrize("size, count", [(1, 60), (2, 60), (4, 40)])
def test_cjk_substring_matches_oracle(cjk_index: Path, size: int, count: int) -> None:
    with docql_sqlite.open(cjk_index) as idx:
        chunks = list(
            idx.rows(
                "SELECT d.path, c.chunk_index, c.content FROM chunks c JOIN documents d ON d.id = "
                "c.doc_id"
            )
        )
        queries = _cjk_substrings([c["content"] for c in chunks], size, count, seed=size)
        assert len(queries) >= min(count, 20)
        for q in queries:
            oracle = {(c["path"], c["chunk_index"]) for c in chunks if q in c["content"]}
            got = [(h["path"], h["chunk_index"]) for h in bm25(idx, q, limit=ALL)]
            # Runs of 3+ characters also match by their parts (test_search_cjk.py), like
            # the AND→OR fallback of spaced words: the exact matches come first.
            assert set(got[: len(oracle)]) == oracle, q
            assert len(got) == len(oracle) or size > 2, q
            exact = [(h["path"], h["chunk_index"]) for h in bm25(idx, q, limit=len(oracle))]
            assert set(exact) == oracle, q  # enough exact matches: no partial ones


def test_cjk_snippet_shows_original_text(cjk_index: Path) -> None:
    with docql_sqlite.open(cjk_index) as idx:
        (hit,) = bm25(idx, "首都")
        assert "日本の**首都**です" in hit["snippet"]  # no FTS spacing leaks out


# -- identifiers -----------------------------------------------------------------------------
IDENT_DOCS = {
    "ids.md": "# Decisions\n\nSee DEC-0054 for the tokenizer.\n\n## Models\n\nWe compared gpt-4 "
    "with others.\n\n"
    "## Release\n\nShipped in 2026.4.10 last week.\n",
    "code.md": "# Code\n\nCall parse_http_response() or getUserName() here.\n",
    "noise.md": "# Noise\n\nDEC and 0054 apart. gpt 5 and version 4. 2026 then 10.\n",
}


@pytest.mark.parametrize(
    "query, path",
    [
        ("DEC-0054", "docs/ids.md"),
        ("dec-0054", "docs/ids.md"),
        ("gpt-4", "docs/ids.md"),
        ("2026.4.10", "docs/ids.md"),
        ("parse_http_response", "docs/code.md"),
        ("getUserName", "docs/code.md"),
        ("getusername", "docs/code.md"),
    ],
)
def test_identifiers(tmp_index, query: str, path: str) -> None:
    tmp_index.write_many(IDENT_DOCS)
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = bm25(idx, query)
        # Found as one identifier: never the noise file, where its parts stand apart.
        assert [h["path"] for h in hits] == [path]
        assert query.lower() in hits[0]["content"].lower()
        assert f"**{query.lower()}**" in hits[0]["snippet"].lower()
        # Its parts are words of their own too.
        assert {
            h["path"] for h in bm25(idx, query.replace("_", "-").split("-")[-1].split(".")[-1])
        } >= {path}


# -- field weights ------------------------------------------------------------------------------
def test_title_hit_outranks_body_hit(tmp_index) -> None:
    filler = "Some neutral words fill this paragraph so lengths compare. " * 3
    tmp_index.write_many(
        {
            "title.md": f"# Overview\n\n## Compaction\n\n{filler}\nIt mentions compaction once.\n",
            "body.md": f"# Overview\n\n## Background\n\n{filler}\nIt mentions compaction once.\n",
        }
    )
    tmp_index.index()
    with docql_sqlite.open(tmp_index.db) as idx:
        hits = bm25(idx, "compaction")
        assert [h["path"] for h in hits][:2] == ["docs/title.md", "docs/body.md"]
        assert hits[0]["score"] > hits[1]["score"]


def test_blank_chunks_of_matching_sections_are_not_hits(corpus_db: Path) -> None:
    with docql_sqlite.open(corpus_db) as idx:
        for hit in bm25(idx, "QueryPlanner", limit=ALL):
            assert "queryplanner" in hit["content"].lower()


@pytest.mark.parametrize(
    "text",
    [
        "segment compaction",
        "query planner index",
        "QueryPlanner",
        "the write ahead log",
        "compaction -segment",
        '"core web vitals" performance',
        "perf* budget",
        "架构 设计",
    ],
)
def test_the_scored_expression_keeps_the_rows_and_near_the_scores_of_the_body_clause(
    corpus_db: Path, text: str
) -> None:
    """The ranked statements test "a term in the passage's own text" with a body-only
    bm25() instead of `AND body : (…)` phrases (FTS5 counted each term's rows again for
    them): the same rows as the expression with the clause, for AND and OR, and scores
    that differ only by the body phrases' idf (the oracle: FTS5's bm25() of the old
    expression, its own sum of the body phrases)."""
    terms = T.parse(text)
    conn = docql_sqlite.open(corpus_db).store.conn
    for old, new in (
        (SQLITE.match_and(terms), SQLITE.match_and(terms, scored=True)),
        (SQLITE.match_or(terms), SQLITE.match_or(terms, scored=True)),
    ):
        assert "body :" in old and "body :" not in new
        score = SQLITE.bm25(terms, (3.0, 1.0), None, None)  # type: ignore[arg-type]
        oracle = dict(
            conn.execute(
                "SELECT rowid, bm25(chunks_fts, 1.0, 3.0) FROM chunks_fts WHERE chunks_fts MATCH ?",
                (old,),
            )
        )
        scored = dict(
            conn.execute(
                f"SELECT chunks_fts.rowid, {score} FROM chunks_fts "
                f"WHERE {SQLITE.scored_matches('?')}",
                (new,),
            )
        )
        assert scored.keys() == oracle.keys()
        for rowid, value in scored.items():
            assert value < 0
            # Each term's idf over any column instead of over the body alone: 7 % at most
            # here ("QueryPlanner" heads sections whose text rarely repeats it), < 1 % on
            # the 279 MB index. Without the body-only bm25() it would be ~50 %.
            assert value == pytest.approx(oracle[rowid], rel=0.10)
    conn.close()


# -- results, grouping, determinism ------------------------------------------------------------
def test_result_items_and_grouping(corpus_db: Path) -> None:
    with docql_sqlite.open(corpus_db) as idx:
        hits = bm25(idx, "segment", limit=20)
        assert len(hits) == 20
        first = hits[0]
        assert {
            "path",
            "line",
            "end_line",
            "location",
            "section",
            "score",
            "snippet",
            "content",
        } <= set(first)
        assert (
            first["location"] == f"{first['path']}:{first['line']}-{first['end_line']}"
            or first["line"] == first["end_line"]
        )
        assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
        assert bm25(idx, "segment", limit=20) == hits  # deterministic
        files = bm25(idx, "segment", limit=5, group="file")
        assert len({f["path"] for f in files}) == len(files) == 5
        assert all(f["hits"] >= 1 and f["passages"] for f in files)
        scoped = bm25(idx, "lumen", paths=("datasets/zh/*",))
        assert scoped and all(h["path"].startswith("datasets/zh/") for h in scoped)


# -- DocQL and the 3.40 shell --------------------------------------------------------------------
@pytest.mark.skipif(not Path(SHELL).exists(), reason="no sqlite3 shell")
@pytest.mark.parametrize(
    "query",
    [
        '$.content.search("segment merge").location',
        '$.content.search("架构").location',
        '$.content.search("lumen zzzzqq")[0:5].location',
        '$.content.search("DEC-0054").location',
        '$.content.search("compaction -merge").score',
    ],
)
def test_docql_search_runs_in_the_3_40_shell(corpus_db: Path, query: str) -> None:
    """The compiled SQL gives the same answer in Debian's sqlite3 3.40 shell as in apsw."""
    with docql_sqlite.open(corpus_db) as idx:
        compiled = idx.compile(query)
        expected = idx.query(query)
    assert expected
    done = subprocess.run(
        [SHELL, "-readonly", str(corpus_db)],
        input=compiled.inline_sql() + ";\n",
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr == ""
    got = done.stdout.splitlines()
    if query.endswith(".score"):
        assert [round(float(g), 9) for g in got] == [round(e, 9) for e in expected]
    else:
        assert got == expected


def test_docql_search_items(corpus_db: Path) -> None:
    with docql_sqlite.open(corpus_db) as idx:
        items = idx.query('$.content.search("compaction")[0:3]')
        assert len(items) == 3 and all(i["type"] == "chunk" and i["score"] > 0 for i in items)
        assert "**" in items[0]["snippet"]
        filtered = idx.query('$.content.search("compaction")[?(@.path ~= "zh/")]')
        assert filtered and all("/zh/" in i["path"] for i in filtered)
        with pytest.raises(Exception, match="embeddings"):
            idx.query('$.content.similar("compaction")')


# -- CLI ------------------------------------------------------------------------------------------
def test_cli_search(corpus_db: Path) -> None:
    from docql_sqlite.cli import cli

    runner = CliRunner()
    done = runner.invoke(
        cli, ["search", str(corpus_db), "segment merge", "--mode", "bm25", "-n", "3", "--json"]
    )
    assert done.exit_code == 0, done.output
    assert done.output.count('"location"') == 3 and '"content"' not in done.output
    done = runner.invoke(
        cli, ["search", str(corpus_db), "segment", "--mode", "bm25", "--explain", "-t"]
    )
    assert done.exit_code == 0 and "rrf" in done.output and "final" in done.output
    done = runner.invoke(cli, ["search", str(corpus_db), "   ", "--json"])
    assert done.exit_code == 2 and "empty search text" in done.output


@pytest.mark.parametrize("mode", ["bm25", "smart"])
def test_passages_that_tie_are_chosen_by_place_not_by_the_index_history(
    tmp_path: Path, mode: str
) -> None:
    """40 passages with one score, more than a list's depth: which of them fill the
    results is decided by path and line, so an index whose files were deleted and indexed
    again (new chunk ids) answers as a fresh one, first paths first (the list was cut by
    chunk id: league/commonmark's edited index and its fresh one differed)."""
    root = tmp_path / "notes"
    root.mkdir()
    for n in range(40):  # (a number apiece: no copies of one text, which smart shows once)
        (root / f"n{n:03}.md").write_text(f"# Note\n\nThe quartz lantern hums {n:03}.\n")
    fresh, edited = tmp_path / "fresh.db", tmp_path / "edited.db"
    docql_sqlite.index(fresh, [str(root)], workers=0)
    docql_sqlite.index(edited, [str(root)], workers=0)
    early = sorted(root.iterdir())[:20]
    texts = {path: path.read_text() for path in early}
    for path in early:
        path.unlink()
    docql_sqlite.index(edited, [str(root)], workers=0)
    for path, text in texts.items():
        path.write_text(text)
    docql_sqlite.index(edited, [str(root)], workers=0)
    answers = []
    for db in (fresh, edited):
        with docql_sqlite.open(db) as index:
            hits = index.search("quartz lantern", mode=mode, limit=10)
            answers.append([h["path"].rsplit("/", 1)[-1] for h in hits])
    assert answers[0] == answers[1] == [f"n{n:03}.md" for n in range(10)]
