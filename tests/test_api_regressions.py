"""Regressions found by trying the tool as a user would (each failed before its fix)."""

from __future__ import annotations

from pathlib import Path

import pytest

import docql_sqlite
from docql_sqlite.errors import DocQLError, DocQLRegexError


def test_context_can_be_asked_twice_in_one_process(corpus_db: Path) -> None:
    # `docql_sqlite.search.context` was shadowed by its submodule after the first call.
    with docql_sqlite.open(corpus_db) as index:
        first = index.context("authentication")
        second = index.context("authentication")
    assert first == second
    assert first["blocks"]


@pytest.mark.parametrize("scope", ["datasets/zh/*", ["datasets/zh/*"], ("datasets/zh/*",)])
def test_a_single_glob_string_scopes_search_and_context(corpus_db: Path, scope: object) -> None:
    with docql_sqlite.open(corpus_db) as index:
        hits = index.search("索引", mode="bm25", paths=scope)  # type: ignore[arg-type]
        pack = index.context("索引", paths=scope)  # type: ignore[arg-type]
    assert hits and all(h["path"].startswith("datasets/zh/") for h in hits)
    assert pack["blocks"] and all(b["path"].startswith("datasets/zh/") for b in pack["blocks"])


@pytest.mark.parametrize(
    ("sql", "error", "message"),
    [
        ("SELECT * FROM docql(NULL)", DocQLError, "docql() needs a DocQL query string"),
        ("SELECT docql_rrf(-60)", DocQLError, "ranks start at 1 and k must be positive"),
        ("SELECT docql_grep('abc', '/(/')", DocQLRegexError, "invalid regex /(/: missing )"),
        ("SELECT 'a' REGEXP '('", DocQLRegexError, "invalid regex /(/: missing )"),
    ],
)
def test_sql_functions_raise_docql_errors(
    corpus_db: Path, sql: str, error: type, message: str
) -> None:
    with docql_sqlite.open(corpus_db) as index:
        with pytest.raises(error) as info:
            index.conn.execute(sql).fetchall()
    assert message in info.value.message


def test_index_keeps_vectors_current_after_an_edit(tmp_path: Path) -> None:
    import shutil
    import subprocess

    from conftest import CLI, DATASETS

    docs = tmp_path / "en"
    shutil.copytree(DATASETS / "en", docs)
    db = tmp_path / "v.db"
    run = lambda *args: subprocess.run(
        [str(CLI), *args], capture_output=True, text=True, cwd=tmp_path
    )  # noqa: E731
    assert run("index", str(db), "en", "--embed", "hash").returncode == 0
    with (docs / "handbook" / "03-architecture.md").open("a", encoding="utf-8") as handle:
        handle.write("\nA new closing line about compaction.\n")
    out = run("index", str(db), "en")
    assert out.returncode == 0, out.stderr
    assert (
        "embedded 1 texts" in out.stderr
    )  # only the changed passage; the rest come from the cache
    from docql_sqlite.ingest.embed import pending

    assert pending(db) == ("hash:256", 0)
    quiet = run("index", str(db), "en")
    assert "embedded" not in quiet.stderr  # nothing changed: no model load, no embed run


def test_a_new_chunk_size_rechunks_and_overlapping_roots_count_once(tmp_path: Path) -> None:
    from conftest import DATASETS

    from docql_sqlite.ingest import IngestOptions, index_paths

    db = tmp_path / "c.db"
    zh = DATASETS / "zh"
    first = index_paths(db, [str(zh)], IngestOptions(workers=0))
    assert len(first.added) == 5
    with docql_sqlite.open(db) as index:
        chunks_at_default = len(index.query("$.content.chunks()"))
    smaller = index_paths(db, [str(zh)], IngestOptions(workers=0, max_chars=300))
    assert len(smaller.updated) == 5 and smaller.unchanged == 0
    again = index_paths(db, [str(zh)], IngestOptions(workers=0, max_chars=300))
    assert again.unchanged == 5 and not again.updated
    with docql_sqlite.open(db) as index:
        assert len(index.query("$.content.chunks()")) > chunks_at_default
    overlap = index_paths(
        db, [str(zh), str(zh / "config.md")], IngestOptions(workers=0, max_chars=300)
    )
    assert overlap.unchanged == 5 and not overlap.added and not overlap.updated


def test_similar_to_a_missing_chunk_says_so(tmp_path: Path) -> None:
    from conftest import DATASETS

    from docql_sqlite.errors import DocQLTypeError
    from docql_sqlite.ingest import IngestOptions, index_paths

    db = tmp_path / "s.db"
    index_paths(db, [str(DATASETS / "zh")], IngestOptions(workers=0))
    docql_sqlite.embed(db, "hash")
    with docql_sqlite.open(db) as index:
        assert index.query("$.content.similar(1)[0:1].chunk_index") is not None
        with pytest.raises(
            DocQLTypeError, match=r"similar\(99999\): no chunk with that id has a vector"
        ):
            index.query("$.content.similar(99999)")
        with pytest.raises(DocQLTypeError, match="needs a whole chunk id, got 1.5"):
            index.query("$.content.similar(1.5)")


def test_snippet_marks_whole_tokens_only(corpus_db: Path) -> None:
    # FTS5 matches whole tokens, so "b" must not be marked inside "Builder".
    from docql_sqlite.search import snippets, terms

    pattern = snippets.patterns(terms.parse("b"))
    marked = snippets.make("private Options(Builder b) { this.x = b.x; }", pattern)
    assert marked == "private Options(Builder **b**) { this.x = **b**.x; }"
